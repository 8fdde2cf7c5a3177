import FrameFarmCore
import Foundation
import Testing
@testable import FrameFarmGPU

extension GPUTests {
    /// submit/wait with two slots: the next batch uploads while the last one runs, results stay valid until their
    /// slot is reused, and stale tickets are refused.
    @Suite struct PipelinedTests {
        static func batch(luma: Int) -> RenderBatch {
            let format = TestFormat.yuv420p.format(width: 32, height: 18, color: ColorDescription(matrix: .bt709, range: .full))
            let frame = SyntheticFrame(format: format, codes: (luma, 128, 128))
            return RenderBatch(sources: [frame.sourceFrame], canvases: [CanvasSpec(size: PixelSize(width: 16, height: 9))],
                               jobs: [RenderJob(sourceIndex: 0, sourceCrop: SourceRect(x: 0, y: 0, width: 32, height: 18),
                                                destination: PixelRect(x: 0, y: 0, width: 16, height: 9), canvasIndex: 0)])
        }

        @Test func overlappingSubmissions() throws {
            try TestGPU.withRenderer { renderer in
                #expect(renderer.slotCount == 2)
                let first = try renderer.submit(Self.batch(luma: 10))
                let second = try renderer.submit(Self.batch(luma: 20))
                let firstResult = try renderer.wait(first)
                #expect(firstResult.pixel(canvas: 0, x: 3, y: 3).green == 10)
                let third = try renderer.submit(Self.batch(luma: 30))  // reuses the first batch's slot
                #expect(!firstResult.isValid)
                #expect(try renderer.wait(second).pixel(canvas: 0, x: 3, y: 3).green == 20)
                #expect(try renderer.wait(third).pixel(canvas: 0, x: 3, y: 3).green == 30)
                #expect(throws: GPUError.staleTicket) { _ = try renderer.wait(first) }
            }
        }
    }
}
