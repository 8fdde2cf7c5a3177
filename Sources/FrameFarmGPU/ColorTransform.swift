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
