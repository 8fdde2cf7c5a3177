import FrameFarmCore
import Foundation
import Testing
@testable import FrameFarmGPU

extension GPUTests {
    @Suite struct LinearLightTests {
        static let format = TestFormat.yuv444p.format(width: 64, height: 64, color: ColorDescription(matrix: .bt709, range: .full))

        static func render(_ frame: SyntheticFrame, size: Int, linearLight: Bool) throws -> RGBA8 {
            try TestGPU.withRenderer { renderer in
                try renderer.render(RenderBatch(
                    sources: [frame.sourceFrame], canvases: [CanvasSpec(size: PixelSize(width: size, height: size))],
                    jobs: [RenderJob(sourceIndex: 0, sourceCrop: SourceRect(x: 0, y: 0, width: 64, height: 64),
                                     destination: PixelRect(x: 0, y: 0, width: size, height: size), canvasIndex: 0)],
                    linearLight: linearLight)).pixel(canvas: 0, x: size / 2, y: size / 2)
            }
        }

        /// A one-pixel black/white checkerboard averages to half the light: sRGB 188, not the encoded mean 128.
        @Test func checkerboardAveragesLight() throws {
            let checker = SyntheticFrame(format: Self.format, luma: { x, y in (Int(x) + Int(y)) % 2 == 0 ? 0 : 1 })
            for size in [8, 3] {
                let linear = try Self.render(checker, size: size, linearLight: true)
                let encoded = try Self.render(checker, size: size, linearLight: false)
                #expect(abs(Int(linear.green) - 188) <= 2, "linear \(size): \(linear)")
                #expect(abs(Int(encoded.green) - 128) <= 2, "encoded \(size): \(encoded)")
            }
        }

        @Test func flatColourIsUnchanged() throws {
            let flat = SyntheticFrame(format: Self.format, codes: (150, 100, 170))
            let linear = try Self.render(flat, size: 5, linearLight: true)
            let encoded = try Self.render(flat, size: 5, linearLight: false)
            #expect(abs(Int(linear.red) - Int(encoded.red)) <= 1 && abs(Int(linear.green) - Int(encoded.green)) <= 1
                    && abs(Int(linear.blue) - Int(encoded.blue)) <= 1, "\(linear) vs \(encoded)")
        }
    }
}
