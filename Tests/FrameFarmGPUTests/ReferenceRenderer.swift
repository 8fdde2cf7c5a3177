import FrameFarmCore
import Foundation
@testable import FrameFarmGPU

/// An independent CPU reference: the kernels and the Y'CbCr -> R'G'B' equations written again from their
/// definitions, and a direct separable resampler in double (no pre-shrink, no tables, no shared code with the
/// GPU path). What the GPU output is measured against.
enum ReferenceRenderer {
    static func kernel(_ filter: ResamplingFilter, _ t: Double) -> (weight: Double, support: Double) {
        let x = abs(t)
        switch filter {
        case .lanczos3:
            let support = 3.0
            if x == 0 { return (1, support) }
            if x >= support { return (0, support) }
            let sinc = { (v: Double) in sin(Double.pi * v) / (Double.pi * v) }
            return (sinc(x) * sinc(x / support), support)
        case .catmullRom:  // Mitchell-Netravali with B = 0, C = 1/2
            let b = 0.0, c = 0.5
            if x < 1 { return (((12 - 9 * b - 6 * c) * x * x * x + (-18 + 12 * b + 6 * c) * x * x + (6 - 2 * b)) / 6, 2) }
            if x < 2 {
                return (((-b - 6 * c) * x * x * x + (6 * b + 30 * c) * x * x + (-12 * b - 48 * c) * x + (8 * b + 24 * c)) / 6, 2)
            }
            return (0, 2)
        case .bilinear:
            return (max(0, 1 - x), 1)
        }
    }

    /// One axis: destination pixel i samples `start + (i + 0.5) * length / count`, taps clamped to `range`.
    struct Axis {
        var start: Double
        var length: Double
        var count: Int
        var range: ClosedRange<Int>

        func taps(_ i: Int, filter: ResamplingFilter) -> [(index: Int, weight: Double)] {
            let ratio = length / Double(count)
            let scale = max(1, ratio)
            let centre = start + (Double(i) + 0.5) * ratio
            let reach = kernel(filter, 0).support * scale
            var taps: [(Int, Double)] = []
            var j = Int((centre - reach).rounded(.down)) - 1
            while Double(j) + 0.5 < centre + reach + 1 {
                let w = kernel(filter, (Double(j) + 0.5 - centre) / scale).weight
                if w != 0 { taps.append((min(max(j, range.lowerBound), range.upperBound), w)) }
                j += 1
            }
            let total = taps.reduce(0) { $0 + $1.1 }
            return taps.map { ($0.0, $0.1 / total) }
        }
    }

    static func axis(cropStart: Double, cropLength: Double, count: Int, subsampling: Int, siting: Double,
                     planeSize: Int) -> Axis {
        let s = Double(subsampling)
        let first = max(0, Int(floor(cropStart / s + 1e-9)))
        let last = min(planeSize - 1, Int(ceil((cropStart + cropLength) / s - 1e-9)) - 1)
        return Axis(start: cropStart / s + (subsampling == 2 ? siting : 0), length: cropLength / s, count: count,
                    range: first...max(first, last))
    }

    /// Separable resampling of a plane of stored values to `x.count` x `y.count`.
    static func resample(_ plane: [Int], width: Int, x: Axis, y: Axis, filter: ResamplingFilter) -> [Double] {
        let columnTaps = (0..<x.count).map { x.taps($0, filter: filter) }
        let rows = y.range
        var horizontal = [Double](repeating: 0, count: rows.count * x.count)
        for (r, row) in rows.enumerated() {
            for i in 0..<x.count {
                var sum = 0.0
                for tap in columnTaps[i] { sum += tap.weight * Double(plane[row * width + tap.index]) }
                horizontal[r * x.count + i] = sum
            }
        }
        var output = [Double](repeating: 0, count: x.count * y.count)
        for j in 0..<y.count {
            let taps = y.taps(j, filter: filter)
            for i in 0..<x.count {
                var sum = 0.0
                for tap in taps { sum += tap.weight * horizontal[(tap.index - rows.lowerBound) * x.count + i] }
                output[j * x.count + i] = sum
            }
        }
        return output
    }

    /// R'G'B' (0...1, unclamped) of stored Y, Cb, Cr values by the matrix's defining equations.
    static func rgb(y: Double, cb: Double, cr: Double, format: FrameFormat) -> (Double, Double, Double) {
        let n = Double(format.bitDepth)
        if format.color.matrix == .rgb {
            // The planes are G', B', R', each coded as luma.
            let step = pow(2, n - 8), maximum = pow(2, n) - 1
            func channel(_ v: Double) -> Double { format.color.range == .limited ? (v - 16 * step) / (219 * step) : v / maximum }
            return (channel(cr), channel(y), channel(cb))
        }
        let ey: Double, pb: Double, pr: Double
        if format.color.range == .limited {
            let step = pow(2, n - 8)
            ey = (y - 16 * step) / (219 * step)
            pb = (cb - 128 * step) / (224 * step)
            pr = (cr - 128 * step) / (224 * step)
        } else {
            let maximum = pow(2, n) - 1
            ey = y / maximum
            pb = (cb - pow(2, n - 1)) / maximum
            pr = (cr - pow(2, n - 1)) / maximum
        }
        let chroma = format.layout != .gray
        let (kr, kb) = format.color.matrix.lumaCoefficients
        let r = ey + (chroma ? (2 - 2 * kr) * pr : 0)
        let b = ey + (chroma ? (2 - 2 * kb) * pb : 0)
        let g = (ey - kr * r - kb * b) / (1 - kr - kb)
        return (r, g, b)
    }

    /// The RGBA8 pixels (alpha 255) of `crop` of `frame` resampled to `size`.
    static func render(_ frame: SyntheticFrame, crop: SourceRect, size: PixelSize,
                       filter: ResamplingFilter = .lanczos3) -> [UInt8] {
        let format = frame.format
        let luma = resample(frame.luma, width: format.width,
                            x: axis(cropStart: crop.x, cropLength: crop.width, count: size.width, subsampling: 1,
                                    siting: 0, planeSize: format.width),
                            y: axis(cropStart: crop.y, cropLength: crop.height, count: size.height, subsampling: 1,
                                    siting: 0, planeSize: format.height), filter: filter)
        var cb = [Double](repeating: 0, count: luma.count), cr = cb
        if format.layout != .gray {
            let siting = format.color.chromaSiting.chromaOffset
            let x = axis(cropStart: crop.x, cropLength: crop.width, count: size.width,
                         subsampling: format.chromaSubsamplingX, siting: siting.x, planeSize: format.chromaWidth)
            let y = axis(cropStart: crop.y, cropLength: crop.height, count: size.height,
                         subsampling: format.chromaSubsamplingY, siting: siting.y, planeSize: format.chromaHeight)
            cb = resample(frame.cb, width: format.chromaWidth, x: x, y: y, filter: filter)
            cr = resample(frame.cr, width: format.chromaWidth, x: x, y: y, filter: filter)
        }
        var pixels = [UInt8](repeating: 255, count: luma.count * 4)
        for index in luma.indices {
            let (r, g, b) = rgb(y: luma[index], cb: cb[index], cr: cr[index], format: format)
            for (channel, value) in [r, g, b].enumerated() {
                pixels[index * 4 + channel] = UInt8((min(max(value, 0), 1) * 255).rounded())
            }
        }
        return pixels
    }
}

/// Mean absolute error and PSNR over the R, G, B channels of two RGBA8 images.
struct ImageComparison: CustomStringConvertible {
    var meanAbsoluteError: Double
    var maxAbsoluteError: Int
    var psnr: Double

    init(_ a: [UInt8], _ b: [UInt8]) {
        precondition(a.count == b.count)
        var absolute = 0.0, squared = 0.0, maximum = 0, count = 0
        for index in a.indices where index % 4 != 3 {
            let difference = Int(a[index]) - Int(b[index])
            absolute += Double(abs(difference))
            squared += Double(difference * difference)
            maximum = max(maximum, abs(difference))
            count += 1
        }
        meanAbsoluteError = absolute / Double(count)
        maxAbsoluteError = maximum
        let mse = squared / Double(count)
        psnr = mse == 0 ? .infinity : 10 * log10(255 * 255 / mse)
    }

    var description: String {
        String(format: "MAE %.3f, max %d, PSNR %.2f dB", meanAbsoluteError, maxAbsoluteError, psnr)
    }
}
