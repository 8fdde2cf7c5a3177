import FrameFarmCore
import Foundation
import Testing
@testable import FrameFarmGPU

extension GPUTests {
    /// Handles are released: contexts come and go, and a long run of small batches neither leaks process memory nor
    /// grows device memory, all without a validation message.
    @Suite(.serialized) struct ResourceTests {
        static func residentBytes() -> Int {
            let fields = (try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8))?.split(separator: " ") ?? []
            return (fields.count > 1 ? Int(fields[1]) ?? 0 : 0) * Int(sysconf(Int32(_SC_PAGESIZE)))
        }

        @Test func contextsAndRenderersComeAndGo() throws {
            for iteration in 0..<100 {
                let context = try GPUContext(validation: TestGPU.validationRequested)
                if iteration % 10 == 0 {
                    // A renderer, its pipelines and buffers too, every tenth time (pipeline builds dominate the cost).
                    let renderer = try Renderer(context: context)
                    _ = try renderer.render(Self.smallBatch(shade: iteration))
                }
                #expect(context.validationMessages.isEmpty, "iteration \(iteration): \(context.validationMessages)")
            }
        }

        /// The context's device-memory account follows every buffer: it peaks at least at what a renderer holds,
        /// and returns to zero once the renderer and a canvas are gone.
        @Test func deviceMemoryIsAccountedAndReturned() throws {
            let context = try GPUContext(validation: TestGPU.validationRequested)
            do {
                let renderer = try Renderer(context: context)
                let canvas = try PersistentCanvas(context: context, size: PixelSize(width: 64, height: 32))
                let job = RenderJob(sourceIndex: 0, sourceCrop: SourceRect(x: 0, y: 0, width: 48, height: 28),
                                    destination: PixelRect(x: 0, y: 0, width: 32, height: 16), canvasIndex: 0)
                try renderer.render(RenderBatch(sources: [Self.smallFrame.sourceFrame], canvases: [], jobs: [job]),
                                    into: canvas)
                _ = try renderer.render(Self.smallBatch(shade: 1))
                let memory = context.deviceMemory
                #expect(memory.inUse >= renderer.deviceMemoryBytes + 64 * 32 * 4)
                #expect(memory.peak >= memory.inUse)
            }
            #expect(context.deviceMemory.inUse == 0)
            #expect(context.deviceMemory.peak > 0)
        }

        /// A render's result ends at the next render, so renders one after another reuse one slot's buffers
        /// (already grown, their pages touched) instead of growing a second set.
        @Test func rendersInTurnReuseOneSlot() throws {
            let context = try GPUContext(validation: TestGPU.validationRequested)
            let renderer = try Renderer(context: context, slotCount: 2)
            let size = PixelSize(width: 1024, height: 768)
            let job = RenderJob(sourceIndex: 0, sourceCrop: SourceRect(x: 0, y: 0, width: 48, height: 28),
                                destination: PixelRect(size: size), canvasIndex: 0)
            let batch = RenderBatch(sources: [Self.smallFrame.sourceFrame], canvases: [CanvasSpec(size: size)],
                                    jobs: [job])
            _ = try renderer.render(batch)
            let afterOne = renderer.deviceMemoryBytes
            #expect(afterOne >= size.area * 4)
            for _ in 0..<3 { _ = try renderer.render(batch) }
            #expect(renderer.deviceMemoryBytes == afterOne)
            // Submissions in flight together still take both slots.
            let first = try renderer.submit(batch), second = try renderer.submit(batch)
            #expect(first.slot != second.slot)
            _ = try renderer.wait(second)
            #expect(renderer.deviceMemoryBytes > afterOne)
            #expect(context.validationMessages.isEmpty, "\(context.validationMessages)")
        }

        static let smallFrame = SyntheticFrame(
            format: TestFormat.nv12.format(width: 48, height: 28, color: ColorDescription(matrix: .bt709, range: .limited)),
            luma: { x, y in (x + y) / 80 }, cb: { x, _ in x / 200 }, cr: { _, y in y / 100 })

        static func smallBatch(shade: Int) -> RenderBatch {
            RenderBatch(sources: [smallFrame.sourceFrame],
                        canvases: [CanvasSpec(size: PixelSize(width: 40, height: 20),
                                              background: RGBA8(red: UInt8(shade % 256), green: 0, blue: 0))],
                        jobs: [RenderJob(sourceIndex: 0, sourceCrop: SourceRect(x: 1, y: 1, width: 46, height: 26),
                                         destination: PixelRect(x: 2, y: 2, width: 24 + shade % 7, height: 13),
                                         canvasIndex: 0)])
        }

        @Test func thousandSmallBatchesHoldSteady() throws {
            try TestGPU.withRenderer { renderer in
                for shade in 0..<50 { _ = try renderer.render(Self.smallBatch(shade: shade)) }
                let residentBefore = Self.residentBytes()
                let deviceBefore = renderer.deviceMemoryBytes
                for shade in 0..<1000 {
                    let result = try renderer.render(Self.smallBatch(shade: shade))
                    if shade % 100 == 0 { #expect(result.pixel(canvas: 0, x: 39, y: 19).red == UInt8(shade % 256)) }
                }
                let growth = Self.residentBytes() - residentBefore
                #expect(growth < 8 << 20, "resident memory grew by \(growth) bytes over 1,000 batches")
                #expect(renderer.deviceMemoryBytes == deviceBefore)
            }
        }
    }
}
