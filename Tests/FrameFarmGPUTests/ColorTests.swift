import FrameFarmCore
import Foundation
import Testing
@testable import FrameFarmGPU

extension GPUTests {
    /// Known patches: Y'CbCr computed from R'G'B' with the standard equations must decode back within 2 LSB.
    @Suite struct ColorTests {
        static let patches: [(name: String, rgb: (Double, Double, Double))] = [
            ("75% white", (0.75, 0.75, 0.75)), ("75% yellow", (0.75, 0.75, 0)), ("75% cyan", (0, 0.75, 0.75)),
            ("75% green", (0, 0.75, 0)), ("75% magenta", (0.75, 0, 0.75)), ("75% red", (0.75, 0, 0)),
            ("75% blue", (0, 0, 0.75)), ("red", (1, 0, 0)), ("green", (0, 1, 0)), ("blue", (0, 0, 1)),
            ("black", (0, 0, 0)), ("white", (1, 1, 1)),
        ]

        /// Stored codes of an R'G'B' colour: Y' = Kr R' + Kg G' + Kb B', Pb = (B' - Y') / (2 (1 - Kb)), likewise Pr;
        /// for the `rgb` matrix, G', B', R' themselves, each coded as luma is.
        static func codes(_ rgb: (Double, Double, Double), format: FrameFormat) -> (y: Int, cb: Int, cr: Int) {
            let n = Double(format.bitDepth)
            let maximum = pow(2, n) - 1
            func code(_ v: Double) -> Int { Int(min(max(v, 0), maximum).rounded()) }
            if format.color.matrix == .rgb {
                let step = pow(2, n - 8)
                let coded = [rgb.1, rgb.2, rgb.0].map { format.color.range == .limited ? code(16 * step + 219 * step * $0) : code(maximum * $0) }
                return (coded[0], coded[1], coded[2])
            }
            let (kr, kb) = format.color.matrix.lumaCoefficients
            let y = kr * rgb.0 + (1 - kr - kb) * rgb.1 + kb * rgb.2
            let pb = (rgb.2 - y) / (2 * (1 - kb)), pr = (rgb.0 - y) / (2 * (1 - kr))
            if format.color.range == .limited {
                let step = pow(2, n - 8)
                return (code(16 * step + 219 * step * y), code(128 * step + 224 * step * pb),
                        code(128 * step + 224 * step * pr))
            }
            return (code(maximum * y), code(pow(2, n - 1) + maximum * pb), code(pow(2, n - 1) + maximum * pr))
        }

        @Test(arguments: ColorMatrix.allCases, ColorRange.allCases)
        func patchesDecodeToTheirColour(_ matrix: ColorMatrix, _ range: ColorRange) throws {
            for testFormat in [TestFormat.yuv420p, .yuv420p10le, .p010] {
                let format = testFormat.format(width: 8, height: 8, color: ColorDescription(matrix: matrix, range: range))
                let frames = Self.patches.map { SyntheticFrame(format: format, codes: Self.codes($0.rgb, format: format)) }
                let tile = PixelSize(width: 3, height: 3)
                let canvas = PixelSize(width: tile.width * frames.count, height: tile.height)
                let jobs = frames.indices.map { index in
                    RenderJob(sourceIndex: index, sourceCrop: SourceRect(x: 0, y: 0, width: 8, height: 8),
                              destination: PixelRect(x: index * tile.width, y: 0, width: tile.width, height: tile.height),
                              canvasIndex: 0)
                }
                let result = try TestGPU.withRenderer { renderer in
                    try renderer.render(RenderBatch(sources: frames.map(\.sourceFrame), canvases: [CanvasSpec(size: canvas)],
                                                    jobs: jobs)).pixels(canvas: 0)
                }
                for (index, patch) in Self.patches.enumerated() {
                    let offset = (1 * canvas.width + index * tile.width + 1) * 4
                    let got = [Int(result[offset]), Int(result[offset + 1]), Int(result[offset + 2])]
                    let expected = [patch.rgb.0, patch.rgb.1, patch.rgb.2].map { Int(($0 * 255).rounded()) }
                    let error = zip(got, expected).map { abs($0 - $1) }.max()!
                    // R'G'B' planes pass through unconverted: 8-bit full range is exact, the rest within rounding.
                    let tolerance = matrix != .rgb ? 2 : range == .full && format.bitDepth == 8 ? 0 : 1
                    #expect(error <= tolerance, "\(testFormat) \(matrix) \(range) \(patch.name): got \(got), expected \(expected)")
                }
            }
        }

        @Test func grayIsNeutral() throws {
            for range in ColorRange.allCases {
                let format = TestFormat.gray.format(width: 4, height: 4, color: ColorDescription(matrix: .bt709, range: range))
                let code = range == .limited ? 126 : 128  // ~50% grey
                let frame = SyntheticFrame(format: format, codes: (code, 0, 0))
                let pixel = try TestGPU.withRenderer { renderer in
                    try renderer.render(RenderBatch(sources: [frame.sourceFrame], canvases: [CanvasSpec(size: PixelSize(width: 2, height: 2))],
                                                    jobs: [RenderJob(sourceIndex: 0, sourceCrop: SourceRect(x: 0, y: 0, width: 4, height: 4),
                                                                     destination: PixelRect(x: 0, y: 0, width: 2, height: 2), canvasIndex: 0)]))
                        .pixel(canvas: 0, x: 1, y: 1)
                }
                let expected = range == .limited ? Int((Double(code - 16) / 219 * 255).rounded()) : code
                #expect(pixel.red == pixel.green && pixel.green == pixel.blue && abs(Int(pixel.red) - expected) <= 1,
                        "\(range): \(pixel), expected \(expected)")
            }
        }
    }
}
