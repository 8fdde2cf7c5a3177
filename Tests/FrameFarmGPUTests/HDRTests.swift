import FrameFarmCore
import Foundation
import Testing
@testable import FrameFarmGPU

/// HDR and wide-gamut sources against a double-precision reference written from the standards: SMPTE ST 2084
/// (PQ), ITU-R BT.2100 (HLG), BT.2087's published BT.2020 -> BT.709 matrix, the BT.2390 EETF and IEC 61966-2-1.
enum HDRReference {
    static let referenceWhite = 203.0  // cd/m², ITU-R BT.2408

    static func pqToNits(_ signal: Double) -> Double {
        let m1 = 0.1593017578125, m2 = 78.84375, c1 = 0.8359375, c2 = 18.8515625, c3 = 18.6875
        let p = pow(signal, 1 / m2)
        return 10000 * pow(max(p - c1, 0) / (c2 - c3 * p), 1 / m1)
    }

    static func nitsToPQ(_ nits: Double) -> Double {
        let m1 = 0.1593017578125, m2 = 78.84375, c1 = 0.8359375, c2 = 18.8515625, c3 = 18.6875
        let y = pow(nits / 10000, m1)
        return pow((c1 + c2 * y) / (1 + c3 * y), m2)
    }

    /// BT.2100 HLG: inverse OETF, then the OOTF of a 1000 cd/m² display (gamma 1.2).
    static func hlgToNits(_ signal: [Double]) -> [Double] {
        let a = 0.17883277, b = 1 - 4 * a, c = 0.5 - a * log(4 * a)
        let scene = signal.map { $0 <= 0.5 ? $0 * $0 / 3 : (exp(($0 - c) / a) + b) / 12 }
        let luminance = 0.2627 * scene[0] + 0.6780 * scene[1] + 0.0593 * scene[2]
        return scene.map { 1000 * pow(luminance, 0.2) * $0 }
    }

    /// ITU-R BT.2087, equation 6 (to four decimals).
    static let bt2020ToBT709: [[Double]] = [[1.6605, -0.5876, -0.0728], [-0.1246, 1.1329, -0.0083],
                                            [-0.0182, -0.1006, 1.1187]]
    /// Display P3 -> sRGB, as colour-science and Apple publish it.
    static let displayP3ToBT709: [[Double]] = [[1.2249401, -0.2249404, 0], [-0.0420569, 1.0420571, 0],
                                               [-0.0196376, -0.0786361, 1.0982735]]

    /// BT.2390 EETF from a display of `peak` cd/m² to one whose peak is reference white (black 0 on both).
    static func eetf(nits: Double, peak: Double) -> Double {
        let sourcePeak = nitsToPQ(peak)
        let e1 = min(nitsToPQ(nits) / sourcePeak, 1)
        let maxLum = nitsToPQ(referenceWhite) / sourcePeak
        let ks = 1.5 * maxLum - 0.5
        guard e1 >= ks else { return nits }
        let t = (e1 - ks) / (1 - ks)
        let e2 = (2 * t * t * t - 3 * t * t + 1) * ks + (t * t * t - 2 * t * t + t) * (1 - ks)
            + (-2 * t * t * t + 3 * t * t) * maxLum
        return pqToNits(e2 * sourcePeak)
    }

    static func srgbEncode(_ v: Double) -> Double {
        v <= 0.0031308 ? 12.92 * v : 1.055 * pow(v, 1 / 2.4) - 0.055
    }

    /// sRGB bytes for linear light (white = 1) in the source primaries, through FrameFarm's documented choices:
    /// desaturate toward luminance out of gamut, BT.2390 on the largest channel above white.
    static func output(light: [Double], gamut: [[Double]], peak: Double?) -> [Int] {
        var rgb = gamut.map { row in zip(row, light).map(*).reduce(0, +) }
        let luminance = 0.2126 * rgb[0] + 0.7152 * rgb[1] + 0.0722 * rgb[2]
        let lowest = rgb.min()!
        if lowest < 0 { rgb = rgb.map { luminance > 0 ? luminance + ($0 - luminance) * luminance / (luminance - lowest) : 0 } }
        let largest = rgb.max()!
        if let peak, peak > referenceWhite, largest > 0 {
            let mapped = eetf(nits: largest * referenceWhite, peak: peak) / referenceWhite
            rgb = rgb.map { $0 * mapped / largest }
        }
        return rgb.map { Int((srgbEncode(min(max($0, 0), 1)) * 255).rounded()) }
    }

    /// R'G'B' (0...1) of stored 10-bit limited-range codes; BT.2020's luma coefficients unless told.
    static func signal(codes: (y: Int, cb: Int, cr: Int), kr: Double = 0.2627, kb: Double = 0.0593) -> [Double] {
        let y = (Double(codes.y) - 64) / 876, pb = (Double(codes.cb) - 512) / 896, pr = (Double(codes.cr) - 512) / 896
        let kg = 1 - kr - kb
        let r = y + 2 * (1 - kr) * pr, b = y + 2 * (1 - kb) * pb
        let g = (y - kr * r - kb * b) / kg
        return [r, g, b].map { min(max($0, 0), 1) }
    }
}

extension GPUTests {
    @Suite struct HDRTests {
        @Test func gamutMatricesMatchThePublishedOnes() {
            let cases: [(ColorPrimaries, [[Double]])] = [(.bt2020, HDRReference.bt2020ToBT709),
                                                          (.displayP3, HDRReference.displayP3ToBT709)]
            for (primaries, published) in cases {
                let computed = OutputConversion.gamutMatrix(from: primaries, to: .bt709)
                let error = zip(computed.joined(), published.joined()).map { abs($0 - $1) }.max()!
                #expect(error < 2e-4, "\(primaries): \(computed)")
            }
            #expect(OutputConversion.gamutMatrix(from: .bt709, to: .bt709) == [[1, 0, 0], [0, 1, 0], [0, 0, 1]])
        }

        /// R'G'B' signals: greys from black to peak, BT.2020 colours inside and outside BT.709's gamut.
        static let signals: [[Double]] = [
            [0, 0, 0], [0.1, 0.1, 0.1], [0.3, 0.3, 0.3], [0.45, 0.45, 0.45], [0.5, 0.5, 0.5], [0.58, 0.58, 0.58],
            [0.65, 0.65, 0.65], [0.75, 0.75, 0.75], [0.9, 0.9, 0.9], [1, 1, 1], [0.6, 0.35, 0.3], [0.3, 0.55, 0.4],
            [0, 0.6, 0], [0.7, 0, 0], [0.2, 0.2, 0.65], [0.75, 0.7, 0.2],
        ]

        /// Renders one 3x3 tile per signal (each from its own flat 8x8 frame) and returns the centre pixels.
        static func render(_ signals: [[Double]], color: ColorDescription,
                           linearLight: Bool = false) throws -> (codes: [(y: Int, cb: Int, cr: Int)], pixels: [[Int]]) {
            let format = TestFormat.yuv420p10le.format(width: 8, height: 8, color: color)
            let codes = signals.map { GPUTests.ColorTests.codes(($0[0], $0[1], $0[2]), format: format) }
            let frames = codes.map { SyntheticFrame(format: format, codes: $0) }
            let tile = 3
            let canvas = PixelSize(width: tile * frames.count, height: tile)
            let jobs = frames.indices.map { index in
                RenderJob(sourceIndex: index, sourceCrop: SourceRect(x: 0, y: 0, width: 8, height: 8),
                          destination: PixelRect(x: index * tile, y: 0, width: tile, height: tile), canvasIndex: 0)
            }
            let result = try TestGPU.withRenderer { renderer in
                try renderer.render(RenderBatch(sources: frames.map(\.sourceFrame), canvases: [CanvasSpec(size: canvas)],
                                                jobs: jobs, linearLight: linearLight)).pixels(canvas: 0)
            }
            let pixels = frames.indices.map { index in
                let offset = (canvas.width + index * tile + 1) * 4
                return [Int(result[offset]), Int(result[offset + 1]), Int(result[offset + 2])]
            }
            return (codes, pixels)
        }

        @Test(arguments: [1000.0, 4000.0, nil])
        func pqIsToneMappedIntoSRGB(_ peak: Double?) throws {
            let color = ColorDescription(matrix: .bt2020, range: .limited, transfer: .pq, primaries: .bt2020,
                                         peakLuminance: peak)
            let (codes, pixels) = try Self.render(Self.signals, color: color)
            for (code, got) in zip(codes, pixels) {
                let light = HDRReference.signal(codes: code).map { HDRReference.pqToNits($0) / HDRReference.referenceWhite }
                let expected = HDRReference.output(light: light, gamut: HDRReference.bt2020ToBT709, peak: peak ?? 1000)
                #expect(zip(got, expected).map { abs($0 - $1) }.max()! <= 2, "peak \(String(describing: peak)) \(code): got \(got), expected \(expected)")
            }
            // Whatever the reference says: black stays black, the peak reaches white, greys up to 983 cd/m² (signal
            // 0.75) keep their order, and those beyond the peak clip to white.
            let greys = pixels[0..<10].map { $0[1] }
            #expect(greys.first == 0 && greys.last! >= 254)
            #expect(zip(greys[0..<8], greys[1..<8]).allSatisfy { $0 < $1 }, "\(greys)")
            #expect(zip(greys, greys.dropFirst()).allSatisfy { $0 <= $1 }, "\(greys)")
            #expect(pixels.allSatisfy { $0[0] == $0[1] && $0[1] == $0[2] } == false)
        }

        @Test func hlgIsDecodedThroughItsSystemGammaAndToneMapped() throws {
            let color = ColorDescription(matrix: .bt2020, range: .limited, transfer: .hlg, primaries: .bt2020)
            let (codes, pixels) = try Self.render(Self.signals, color: color)
            for (code, got) in zip(codes, pixels) {
                let light = HDRReference.hlgToNits(HDRReference.signal(codes: code)).map { $0 / HDRReference.referenceWhite }
                let expected = HDRReference.output(light: light, gamut: HDRReference.bt2020ToBT709, peak: 1000)
                #expect(zip(got, expected).map { abs($0 - $1) }.max()! <= 2, "\(code): got \(got), expected \(expected)")
            }
        }

        /// SDR in Display P3: converted to sRGB's primaries, no tone mapping.
        @Test func wideGamutSDRIsConvertedToSRGBPrimaries() throws {
            let color = ColorDescription(matrix: .bt709, range: .limited, transfer: .bt709, primaries: .displayP3)
            let signals: [[Double]] = [[1, 0, 0], [0, 1, 0], [0, 0, 1], [0.5, 0.5, 0.5], [0.8, 0.4, 0.2], [1, 1, 1]]
            let (codes, pixels) = try Self.render(signals, color: color)
            for (code, got) in zip(codes, pixels) {
                let light = HDRReference.signal(codes: code, kr: 0.2126, kb: 0.0722).map { e in
                    e <= 0.04045 ? e / 12.92 : pow((e + 0.055) / 1.055, 2.4)
                }
                let expected = HDRReference.output(light: light, gamut: HDRReference.displayP3ToBT709, peak: nil)
                #expect(zip(got, expected).map { abs($0 - $1) }.max()! <= 2, "\(code): got \(got), expected \(expected)")
            }
            #expect(pixels[3].max()! - pixels[3].min()! <= 1, "grey stays neutral: \(pixels[3])")
        }

        /// Filtering in light must not change a flat patch: the same bytes as filtering the encoded signal.
        @Test func linearLightAgreesOnFlatHDRPatches() throws {
            let color = ColorDescription(matrix: .bt2020, range: .limited, transfer: .pq, primaries: .bt2020)
            let encoded = try Self.render(Self.signals, color: color).pixels
            let linear = try Self.render(Self.signals, color: color, linearLight: true).pixels
            for (a, b) in zip(encoded, linear) {
                #expect(zip(a, b).map { abs($0 - $1) }.max()! <= 2, "\(a) vs \(b)")
            }
        }
    }
}
