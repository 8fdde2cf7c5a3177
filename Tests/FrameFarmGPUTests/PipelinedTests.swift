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

        /// A frame of one colour, written plane by plane (a 4K SyntheticFrame takes seconds in a debug build).
        static func flatFrame(_ format: FrameFormat, codes: [UInt8]) -> SourceFrame {
            SourceFrame(format: format) { destination in
                for (plane, code) in zip(format.packedPlanes, codes) {
                    memset(destination.baseAddress! + plane.byteOffset, Int32(code), plane.bytesPerRow * plane.height)
                }
            }
        }

        /// Eight 4K frames drawn at 640 and 160 px into two sheets need about 170 MB of prefilter images. Where the
        /// device's prefilter pass writes them, that is more than lavapipe binds as a storage buffer (128 MiB): the
        /// renderer draws the batch in parts (without them the submission throws); where the host writes them,
        /// they are only read, through a texel view (2 GiB), in one part. Either way every tile shows its own
        /// frame's colour, by the matrix's equations.
        @Test(arguments: [false, true]) func aBatchBeyondTheDeviceLimitsIsDrawnInParts(prefilterOnHost: Bool) throws {
            let format = TestFormat.yuv420p.format(width: 3840, height: 2160, color: ColorDescription(matrix: .bt709, range: .limited))
            let codes: [[UInt8]] = (0..<8).map { (frame: Int) -> [UInt8] in
                [UInt8(40 + 20 * frame), UInt8(90 + 10 * frame), UInt8(180 - 12 * frame)]
            }
            let tiles = [PixelSize(width: 640, height: 360), PixelSize(width: 160, height: 90)]
            func tileRect(frame: Int, sheet: Int) -> PixelRect {
                let size = tiles[sheet]
                return PixelRect(x: frame % 4 * size.width, y: frame / 4 * size.height, width: size.width, height: size.height)
            }
            try TestGPU.withRenderer(prefilterOnHost: prefilterOnHost) { renderer in
                let canvases = try tiles.map { (size: PixelSize) -> PersistentCanvas in
                    try PersistentCanvas(context: renderer.context, size: PixelSize(width: 4 * size.width, height: 2 * size.height))
                }
                var jobs: [RenderJob] = []
                for frame in 0..<8 {
                    for sheet in tiles.indices {
                        jobs.append(RenderJob(sourceIndex: frame, sourceCrop: SourceRect(x: 0, y: 0, width: 3840, height: 2160),
                                              destination: tileRect(frame: frame, sheet: sheet), canvasIndex: sheet))
                    }
                }
                let batch = RenderBatch(sources: codes.map { Self.flatFrame(format, codes: $0) }, canvases: [], jobs: jobs)
                try renderer.finish(try renderer.submit(batch, into: canvases))
                for (sheet, canvas) in canvases.enumerated() {
                    for frame in 0..<8 {
                        let rect = tileRect(frame: frame, sheet: sheet)
                        let offset = ((rect.y + rect.height / 2) * canvas.size.width + rect.x + rect.width / 2) * 4
                        let pixel = canvas.withUnsafeBytes { pixels in (0..<3).map { pixels[offset + $0] } }
                        let code = codes[frame]
                        let expected = ReferenceRenderer.rgb(y: Double(code[0]), cb: Double(code[1]), cr: Double(code[2]),
                                                             format: format)
                        let want = [expected.0, expected.1, expected.2].map { min(max($0, 0), 1) * 255 }
                        for channel in 0..<3 {
                            #expect(abs(Double(pixel[channel]) - want[channel]) <= 2,
                                    "sheet \(sheet) tile \(frame) channel \(channel): \(pixel[channel]), want \(want[channel])")
                        }
                    }
                }
            }
        }

        /// An 8K frame drawn at a phone's size is reduced less than 4x, so its prefilter images are the whole
        /// planes as floats: 199 MB, more than lavapipe binds as a storage buffer (128 MiB). Where the host writes
        /// them, the passes only read them, through a texel view, and the render succeeds with the frame's colour.
        @Test func anEightKFrameRendersWhereTheHostPrefilters() throws {
            let format = TestFormat.yuv420p.format(width: 7680, height: 4320, color: ColorDescription(matrix: .bt709, range: .limited))
            let size = PixelSize(width: 2622, height: 1206)
            let batch = RenderBatch(sources: [Self.flatFrame(format, codes: [120, 80, 170])], canvases: [CanvasSpec(size: size)],
                                    jobs: [RenderJob(sourceIndex: 0, sourceCrop: SourceRect(x: 0, y: 0, width: 7680, height: 4320),
                                                     destination: PixelRect(size: size), canvasIndex: 0)])
            try TestGPU.withRenderer(prefilterOnHost: true) { renderer in
                let pixel = try renderer.render(batch).pixel(canvas: 0, x: size.width / 2, y: size.height / 2)
                let expected = ReferenceRenderer.rgb(y: 120, cb: 80, cr: 170, format: format)
                let want = [expected.0, expected.1, expected.2].map { min(max($0, 0), 1) * 255 }
                for (channel, value) in [pixel.red, pixel.green, pixel.blue].enumerated() {
                    #expect(abs(Double(value) - want[channel]) <= 2, "channel \(channel): \(value), want \(want[channel])")
                }
            }
        }

        /// The halves keep the jobs' order, cut where the source changes nearest the middle, carry only the
        /// sources their jobs read (renumbered), and leave the overlays to the second.
        @Test func halvesCutBetweenSourcesAndDrawOverlaysLast() {
            let sources = [16, 32, 48].map { width in
                PipelinedTests.flatFrame(TestFormat.gray.format(width: width, height: 8, color: ColorDescription(matrix: .bt709, range: .full)),
                                         codes: [0])
            }
            let overlay = Overlay.tint(PixelRect(x: 0, y: 0, width: 4, height: 4), color: .white)
            func job(_ source: Int, canvas: Int) -> RenderJob {
                RenderJob(sourceIndex: source, sourceCrop: SourceRect(x: 0, y: 0, width: 16, height: 8),
                          destination: PixelRect(x: source * 4, y: 0, width: 4, height: 2), canvasIndex: canvas)
            }
            let batch = RenderBatch(sources: sources,
                                    canvases: [CanvasSpec(size: PixelSize(width: 16, height: 4), overlays: [overlay]),
                                               CanvasSpec(size: PixelSize(width: 16, height: 4))],
                                    jobs: [job(0, canvas: 0), job(1, canvas: 0), job(1, canvas: 1), job(2, canvas: 1)])
            let (first, second) = Renderer.halves(of: batch)
            // The middle (job 2) splits source 1's jobs; the nearest change of source is before job 3.
            #expect(first.jobs.map(\.sourceIndex) == [0, 1, 1])
            #expect(first.jobs.map(\.canvasIndex) == [0, 0, 1])
            #expect(first.sources.map(\.format.width) == [16, 32])
            #expect(second.jobs.map(\.sourceIndex) == [0])
            #expect(second.sources.map(\.format.width) == [48])
            #expect(second.jobs[0].destination == batch.jobs[3].destination)
            #expect(first.canvases.map(\.overlays) == [[], []])
            #expect(second.canvases.map(\.overlays) == [[overlay], []])
        }
    }
}
