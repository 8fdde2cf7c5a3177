import FrameFarmCore
import Foundation
import Testing
@testable import FrameFarmGPU

extension GPUTests {
    @Suite struct OverlayTests {
        static let grey = RGBA8(red: 128, green: 128, blue: 128)
        static let canvas = PixelSize(width: 64, height: 48)

        /// A canvas filled with mid grey video, with `overlays` on top.
        static func render(_ overlays: [Overlay], background: RGBA8 = .black,
                           canvasesOnDevice: Bool = false) throws -> RenderedCanvases {
            // Full-range BT.709 code 128 for Y and neutral chroma decodes to 128.
            let format = TestFormat.yuv444p.format(width: 8, height: 8, color: ColorDescription(matrix: .bt709, range: .full))
            let frame = SyntheticFrame(format: format, codes: (128, 128, 128))
            return try TestGPU.withRenderer(canvasesOnDevice: canvasesOnDevice) { renderer in
                try renderer.render(RenderBatch(
                    sources: [frame.sourceFrame], canvases: [CanvasSpec(size: canvas, background: background, overlays: overlays)],
                    jobs: [RenderJob(sourceIndex: 0, sourceCrop: SourceRect(x: 0, y: 0, width: 8, height: 8),
                                     destination: PixelRect(size: canvas), canvasIndex: 0)]))
            }
        }

        @Test func outlineIsDrawnInsideItsRect() throws {
            let red = RGBA8(red: 255, green: 0, blue: 0)
            let result = try Self.render([.safeAreaOutline(PixelRect(x: 8, y: 6, width: 40, height: 30), color: red, thickness: 2)])
            for (x, y) in [(8, 6), (9, 7), (47, 35), (46, 20), (20, 34), (8, 35)] {
                #expect(result.pixel(canvas: 0, x: x, y: y) == red, "(\(x), \(y))")
            }
            for (x, y) in [(7, 6), (10, 8), (48, 35), (45, 33), (30, 20), (0, 0)] {
                #expect(result.pixel(canvas: 0, x: x, y: y) == Self.grey, "(\(x), \(y))")
            }
        }

        @Test func tintBlendsByAlpha() throws {
            let tint = RGBA8(red: 0, green: 0, blue: 255, alpha: 64)
            let result = try Self.render([.tint(PixelRect(x: 0, y: 0, width: 10, height: 48), color: tint)])
            func blended(_ pixel: Int, _ colour: Int) -> UInt8 {
                UInt8((Double(pixel) + Double(colour - pixel) * 64 / 255).rounded())
            }
            #expect(result.pixel(canvas: 0, x: 5, y: 20) == RGBA8(red: blended(128, 0), green: blended(128, 0), blue: blended(128, 255)))
            #expect(result.pixel(canvas: 0, x: 10, y: 20) == Self.grey)
        }

        /// Overlays run last, so this one also checks that canvases drawn in device memory are copied after them.
        @Test(arguments: [false, true])
        func cornerMaskIsBackgroundAtTheCornersAndAntialiased(canvasesOnDevice: Bool) throws {
            let radius = 10.0
            let background = RGBA8(red: 0, green: 0, blue: 0)
            let result = try Self.render([.roundedCornerMask(radius: radius)], background: background,
                                         canvasesOnDevice: canvasesOnDevice)
            for (x, y) in [(0, 0), (63, 0), (0, 47), (63, 47), (1, 1), (2, 2)] {
                #expect(result.pixel(canvas: 0, x: x, y: y) == background, "(\(x), \(y))")
            }
            for (x, y) in [(32, 24), (10, 10), (0, 24), (32, 0), (3, 3)] {
                #expect(result.pixel(canvas: 0, x: x, y: y) == Self.grey, "(\(x), \(y))")
            }
            // Partial coverage: pixel centre (1.5, 4.5) lies 0.12 px outside the corner arc.
            let distance = ((10 - 1.5) * (10 - 1.5) + (10 - 4.5) * (10 - 4.5)).squareRoot() - radius
            let coverage = min(max(0.5 - distance, 0), 1)
            let expected = Int((128 * coverage).rounded())
            let pixel = result.pixel(canvas: 0, x: 1, y: 4)
            #expect(abs(Int(pixel.red) - expected) <= 1 && pixel.red > 0 && pixel.red < 128, "\(pixel) vs \(expected)")
        }

        @Test func overlaysApplyInOrder() throws {
            let red = RGBA8(red: 255, green: 0, blue: 0)
            let result = try Self.render([
                .tint(PixelRect(x: 0, y: 0, width: 64, height: 48), color: RGBA8(red: 0, green: 255, blue: 0, alpha: 255)),
                .safeAreaOutline(PixelRect(x: 0, y: 0, width: 64, height: 48), color: red, thickness: 1),
            ])
            #expect(result.pixel(canvas: 0, x: 0, y: 20) == red)
            #expect(result.pixel(canvas: 0, x: 20, y: 20) == RGBA8(red: 0, green: 255, blue: 0))
        }

        /// A canvas's overlays travel in its uniform block, so their number is capped: every one of the most it
        /// may have is drawn, and one more is refused with a clear error instead of being dropped.
        @Test func everyOverlayUpToTheCapIsDrawnAndOneMoreIsRefused() throws {
            let cap = CanvasDescriptor.maxOverlays
            func column(_ index: Int) -> Overlay {
                .tint(PixelRect(x: index * 4, y: 0, width: 4, height: 48),
                      color: RGBA8(red: UInt8(20 * index + 10), green: 0, blue: 255, alpha: 255))
            }
            let result = try Self.render((0..<cap).map(column))
            for index in 0..<cap {
                #expect(result.pixel(canvas: 0, x: index * 4 + 1, y: 30) == RGBA8(red: UInt8(20 * index + 10), green: 0, blue: 255))
            }
            #expect(result.pixel(canvas: 0, x: cap * 4 + 1, y: 30) == Self.grey)
            #expect {
                try Self.render((0...cap).map(column))
            } throws: { error in
                "\(error)".contains("canvas 0 has \(cap + 1) overlays")
            }
        }
    }
}
