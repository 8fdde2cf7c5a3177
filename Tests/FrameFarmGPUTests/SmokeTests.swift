import Foundation
import FrameFarmCore
import Testing
@testable import FrameFarmGPU

@Suite struct SmokeTests {
    @Test func downscaleMatchesReference() throws {
        let color = ColorDescription(matrix: .bt709, range: .limited)
        let frame = SyntheticFrame(format: TestFormat.yuv420p.format(width: 64, height: 48, color: color),
                                   luma: { x, y in 0.5 + 0.4 * sin(x / 5) * cos(y / 7) },
                                   cb: { x, _ in 0.3 * sin(x / 9) }, cr: { _, y in 0.3 * cos(y / 6) })
        let size = PixelSize(width: 20, height: 15)
        let crop = SourceRect(x: 0, y: 0, width: 64, height: 48)
        let pixels = try TestGPU.withRenderer { renderer in
            let result = try renderer.render(RenderBatch(
                sources: [frame.sourceFrame], canvases: [CanvasSpec(size: size)],
                jobs: [RenderJob(sourceIndex: 0, sourceCrop: crop, destination: PixelRect(size: size), canvasIndex: 0)]))
            return result.pixels(canvas: 0)
        }
        let expected = ReferenceRenderer.render(frame, crop: crop, size: size)
        let comparison = ImageComparison(pixels, expected)
        print(comparison)
        #expect(comparison.meanAbsoluteError <= 1 && comparison.psnr >= 45, "\(comparison)")
    }
}
