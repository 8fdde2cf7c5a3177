import Foundation
import FrameFarmCore

/// The affine map from samples as stored (raw 8- or 16-bit words, before any shift) to R'G'B' in 0...1, as the
/// row-major 3x4 matrix the shaders apply after filtering. Built from the frame's matrix, range, bit depth and
/// bit shift: limited range has Y 16-235 and C 16-240 at 8 bits, scaled by 2^(N-8) at N bits; full range divides
/// by 2^N - 1.
struct ColorTransform: Equatable {
    /// Rows R, G, B; columns Y, Cb, Cr, offset.
    var rows: [[Double]]

    init(format: FrameFormat) {
        let bits = Double(format.bitDepth)
        let unshift = 1 / Double(1 << format.bitShift)
        let lumaOffset: Double, lumaScale: Double, chromaScale: Double
        let chromaOffset = (bits - 1).exp2
        switch format.color.range {
        case .limited:
            let step = (bits - 8).exp2
            lumaOffset = 16 * step
            lumaScale = 219 * step
            chromaScale = 224 * step
        case .full:
            lumaOffset = 0
            lumaScale = bits.exp2 - 1
            chromaScale = bits.exp2 - 1
        }
        if format.color.matrix == .rgb {
            // Each plane is a channel of its own: G, B, R in the Y', Cb, Cr columns, all scaled like luma.
            let scale = unshift / lumaScale, offset = -lumaOffset / lumaScale
            rows = [[0, 0, scale, offset], [scale, 0, 0, offset], [0, scale, 0, offset]]
            return
        }
        let (kr, kb) = format.color.matrix.lumaCoefficients
        let kg = 1 - kr - kb
        // R'G'B' from normalized Y' (0...1) and Cb, Cr (-0.5...0.5).
        let fromNormalized: [[Double]] = [
            [1, 0, 2 * (1 - kr)],
            [1, -2 * kb * (1 - kb) / kg, -2 * kr * (1 - kr) / kg],
            [1, 2 * (1 - kb), 0],
        ]
        let hasChroma = format.layout != .gray
        rows = fromNormalized.map { row in
            let y = row[0] * unshift / lumaScale
            let cb = hasChroma ? row[1] * unshift / chromaScale : 0
            let cr = hasChroma ? row[2] * unshift / chromaScale : 0
            let offset = -row[0] * lumaOffset / lumaScale
                - (hasChroma ? (row[1] + row[2]) * chromaOffset / chromaScale : 0)
            return [y, cb, cr, offset]
        }
    }

    var shaderMatrix: (Float, Float, Float, Float, Float, Float, Float, Float, Float, Float, Float, Float) {
        let m = rows.flatMap { $0 }.map(Float.init)
        return (m[0], m[1], m[2], m[3], m[4], m[5], m[6], m[7], m[8], m[9], m[10], m[11])
    }
}

private extension Double {
    var exp2: Double { pow(2, self) }
}

/// What the shaders do after Y'CbCr -> R'G'B' to reach sRGB output (Shaders/transfer.glsl). SDR in BT.709
/// primaries needs nothing. HDR is decoded to display light (SDR reference white, 203 cd/m² per ITU-R BT.2408,
/// is 1.0), other primaries are converted to BT.709's, and light above white is tone-mapped with the BT.2390
/// EETF from the content's peak (libplacebo's and mpv's `bt.2390`); the sRGB curve then encodes it.
struct OutputConversion: Equatable {
    /// SDR reference white in cd/m²: the level HDR graphics and skin tones are graded to (BT.2408).
    static let referenceWhite = 203.0
    /// The peak assumed for HDR that states none: HDR10's common mastering level, and HLG's nominal display.
    static let defaultPeak = 1000.0

    /// 0: SDR (the sRGB curve stands for every SDR transfer), 1: PQ, 2: HLG.
    var transferCode: UInt32
    /// Linear source-primaries RGB -> linear BT.709 RGB, row-major.
    var gamut: [[Double]]
    /// The content's peak, PQ-encoded (0...1); 0 when nothing exceeds white and no tone mapping is needed.
    var toneMapPeak: Double

    init(color: ColorDescription) {
        transferCode = switch color.transfer {
        case .pq: 1
        case .hlg: 2
        default: 0
        }
        gamut = Self.gamutMatrix(from: color.primaries, to: .bt709)
        let peak = switch color.transfer {
        case .pq: min(max(color.peakLuminance ?? Self.defaultPeak, Self.referenceWhite), 10000)
        case .hlg: Self.defaultPeak
        default: Self.referenceWhite
        }
        toneMapPeak = peak > Self.referenceWhite ? Self.pqEncode(nits: peak) : 0
    }

    /// Whether the default (non-linear) path must decode and re-encode at all.
    var isNeeded: Bool { transferCode != 0 || gamut != Self.identity }

    private static let identity: [[Double]] = [[1, 0, 0], [0, 1, 0], [0, 0, 1]]

    /// SMPTE ST 2084 inverse EOTF: absolute luminance to the PQ signal.
    static func pqEncode(nits: Double) -> Double {
        let (m1, m2, c1, c2, c3) = (2610.0 / 16384, 2523.0 / 4096 * 128, 3424.0 / 4096, 2413.0 / 4096 * 32,
                                    2392.0 / 4096 * 32)
        let y = pow(max(nits, 0) / 10000, m1)
        return pow((c1 + c2 * y) / (1 + c3 * y), m2)
    }

    /// RGB (linear, `source` primaries) -> XYZ -> RGB (linear, `target` primaries); both share D65, so no
    /// chromatic adaptation is needed.
    static func gamutMatrix(from source: ColorPrimaries, to target: ColorPrimaries) -> [[Double]] {
        if source == target { return identity }
        return multiply(invert(rgbToXYZ(target)), rgbToXYZ(source))
    }

    /// The matrix whose columns are the primaries' XYZ, scaled so that RGB (1, 1, 1) is the white point (Y = 1).
    private static func rgbToXYZ(_ primaries: ColorPrimaries) -> [[Double]] {
        let c = primaries.chromaticities
        func xyz(_ xy: (Double, Double)) -> [Double] { [xy.0 / xy.1, 1, (1 - xy.0 - xy.1) / xy.1] }
        let columns = [xyz(c.red), xyz(c.green), xyz(c.blue)]
        let unscaled = (0..<3).map { row in columns.map { $0[row] } }
        let white = xyz(c.white)
        let inverse = invert(unscaled)
        let scale = inverse.map { row in zip(row, white).map(*).reduce(0, +) }
        return unscaled.map { row in zip(row, scale).map(*) }
    }

    private static func multiply(_ a: [[Double]], _ b: [[Double]]) -> [[Double]] {
        a.map { row in (0..<3).map { column in (0..<3).map { row[$0] * b[$0][column] }.reduce(0, +) } }
    }

    private static func invert(_ m: [[Double]]) -> [[Double]] {
        let cofactors = (0..<3).map { row in
            (0..<3).map { column in
                let r = [(row + 1) % 3, (row + 2) % 3], c = [(column + 1) % 3, (column + 2) % 3]
                return m[r[0]][c[0]] * m[r[1]][c[1]] - m[r[0]][c[1]] * m[r[1]][c[0]]
            }
        }
        let determinant = (0..<3).map { m[0][$0] * cofactors[0][$0] }.reduce(0, +)
        return (0..<3).map { row in (0..<3).map { column in cofactors[column][row] / determinant } }
    }

    var shaderGamut: (Float, Float, Float, Float, Float, Float, Float, Float, Float, Float, Float, Float) {
        let m = gamut.flatMap { $0 + [0] }.map(Float.init)
        return (m[0], m[1], m[2], m[3], m[4], m[5], m[6], m[7], m[8], m[9], m[10], m[11])
    }
}
