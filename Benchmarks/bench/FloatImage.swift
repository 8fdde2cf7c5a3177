import Foundation
import FrameFarm

/// An RGB picture with Float samples on the 0...255 scale: the high-precision reference outputs are compared to.
struct FloatImage {
    var width: Int
    var height: Int
    /// Interleaved RGB, width * height * 3.
    var values: [Float]

    /// The 8-bit picture, for reading the frame code.
    var rgba: RGBAImage {
        var pixels = [UInt8](repeating: 255, count: width * height * 4)
        for index in 0..<(width * height) {
            for channel in 0..<3 {
                pixels[index * 4 + channel] = UInt8(max(0, min(255, values[index * 3 + channel].rounded())))
            }
        }
        return RGBAImage(width: width, height: height, pixels: pixels)
    }
}

/// The float reference: a separable Lanczos-3 resampler in Double whose kernel widens with the downscale factor
/// (a properly antialiased scale), so a faster result that aliases or blurs scores lower against it.
enum ReferenceScaler {
    /// `crop` of `source` scaled into `destination` on a black canvas of `canvas` size.
    static func render(_ source: FloatImage, crop: SourceRect, destination: PixelRect, canvas: PixelSize) -> FloatImage {
        let horizontal = weights(sourceStart: crop.x, sourceLength: crop.width, sourceLimit: source.width,
                                 outputCount: destination.width)
        let vertical = weights(sourceStart: crop.y, sourceLength: crop.height, sourceLimit: source.height,
                               outputCount: destination.height)
        // Horizontal pass over every source row the vertical pass reads.
        let rowLow = vertical.map(\.first).min() ?? 0
        let rowHigh = vertical.map { $0.first + $0.weights.count }.max() ?? 0
        var rows = [Double](repeating: 0, count: (rowHigh - rowLow) * destination.width * 3)
        for row in rowLow..<rowHigh {
            for (x, taps) in horizontal.enumerated() {
                var sum = (0.0, 0.0, 0.0)
                for (tap, weight) in taps.weights.enumerated() {
                    let index = (row * source.width + taps.first + tap) * 3
                    sum.0 += weight * Double(source.values[index])
                    sum.1 += weight * Double(source.values[index + 1])
                    sum.2 += weight * Double(source.values[index + 2])
                }
                let out = ((row - rowLow) * destination.width + x) * 3
                rows[out] = sum.0
                rows[out + 1] = sum.1
                rows[out + 2] = sum.2
            }
        }
        var output = FloatImage(width: canvas.width, height: canvas.height,
                                values: [Float](repeating: 0, count: canvas.area * 3))
        for (y, taps) in vertical.enumerated() {
            for x in 0..<destination.width {
                var sum = (0.0, 0.0, 0.0)
                for (tap, weight) in taps.weights.enumerated() {
                    let index = ((taps.first + tap - rowLow) * destination.width + x) * 3
                    sum.0 += weight * rows[index]
                    sum.1 += weight * rows[index + 1]
                    sum.2 += weight * rows[index + 2]
                }
                let out = ((destination.y + y) * canvas.width + destination.x + x) * 3
                output.values[out] = Float(max(0, min(255, sum.0)))
                output.values[out + 1] = Float(max(0, min(255, sum.1)))
                output.values[out + 2] = Float(max(0, min(255, sum.2)))
            }
        }
        return output
    }

    struct Taps {
        var first: Int
        var weights: [Double]
    }

    /// Normalised Lanczos-3 taps for each output sample; edges clamp to the source.
    static func weights(sourceStart: Double, sourceLength: Double, sourceLimit: Int, outputCount: Int) -> [Taps] {
        let scale = sourceLength / Double(outputCount)
        let stretch = max(1, scale)
        let radius = 3 * stretch
        return (0..<outputCount).map { index in
            let center = sourceStart + (Double(index) + 0.5) * scale
            let low = Int((center - radius).rounded(.down))
            let high = Int((center + radius).rounded(.up))
            var raw: [Int: Double] = [:]
            for sample in low...high {
                let weight = lanczos((Double(sample) + 0.5 - center) / stretch)
                guard weight != 0 else { continue }
                raw[min(max(sample, 0), sourceLimit - 1), default: 0] += weight
            }
            let first = raw.keys.min() ?? 0
            let last = raw.keys.max() ?? 0
            var weights = (first...last).map { raw[$0] ?? 0 }
            let total = weights.reduce(0, +)
            weights = weights.map { $0 / total }
            return Taps(first: first, weights: weights)
        }
    }

    private static func lanczos(_ x: Double) -> Double {
        if x == 0 { return 1 }
        guard abs(x) < 3 else { return 0 }
        let pix = Double.pi * x
        return 3 * sin(pix) * sin(pix / 3) / (pix * pix)
    }
}

/// Peak signal-to-noise ratio over the RGB channels of `rect` in `image` against the same rect of `reference`.
enum PSNR {
    static func decibels(_ image: RGBAImage, in rect: PixelRect, reference: FloatImage, referenceOrigin: (x: Int, y: Int) = (0, 0)) -> Double {
        var squaredError = 0.0
        for y in 0..<rect.height {
            for x in 0..<rect.width {
                let pixel = ((rect.y + y) * image.width + rect.x + x) * 4
                let expected = ((referenceOrigin.y + y) * reference.width + referenceOrigin.x + x) * 3
                for channel in 0..<3 {
                    let difference = Double(image.pixels[pixel + channel]) - Double(reference.values[expected + channel])
                    squaredError += difference * difference
                }
            }
        }
        let meanSquaredError = squaredError / Double(rect.area * 3)
        return meanSquaredError == 0 ? 99 : 10 * log10(255 * 255 / meanSquaredError)
    }
}
