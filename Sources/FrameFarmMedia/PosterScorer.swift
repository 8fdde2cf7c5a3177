import Foundation
import FrameFarmCore

/// How well a frame would represent its video as a poster, judged on the CPU from a box-downscaled copy of its
/// luma (about 128 px across: fast on any frame size). Black, near-black, washed-out, flat and blurred frames
/// score low; well-exposed, contrasty, detailed frames score high.
public struct PosterScore: Codable, Sendable, Comparable {
    /// Mean brightness 0...1 (0 = black level, 1 = white level).
    public var brightness: Double
    /// Standard deviation of brightness, 0...0.5.
    public var contrast: Double
    /// Mean absolute Laplacian of the downscaled luma: fine detail and focus.
    public var sharpness: Double
    /// The combined score the picker maximises.
    public var value: Double

    public static func < (lhs: PosterScore, rhs: PosterScore) -> Bool { lhs.value < rhs.value }

    /// Scores a frame. The frame-code band of FrameFarm's own samples is ignored like any other content.
    public init(frame: DecodedFrame) {
        let grid = PosterScore.downscaledLuma(frame, targetWidth: 128)
        self.init(luma: grid.values, width: grid.width, height: grid.height)
    }

    init(luma: [Double], width: Int, height: Int) {
        let count = Double(luma.count)
        let mean = luma.reduce(0, +) / count
        let variance = luma.reduce(0) { $0 + ($1 - mean) * ($1 - mean) } / count
        var laplacian = 0.0
        if width >= 3, height >= 3 {
            for y in 1..<(height - 1) {
                for x in 1..<(width - 1) {
                    let center = luma[y * width + x]
                    let neighbours = luma[y * width + x - 1] + luma[y * width + x + 1]
                        + luma[(y - 1) * width + x] + luma[(y + 1) * width + x]
                    laplacian += abs(neighbours - 4 * center)
                }
            }
            laplacian /= Double((width - 2) * (height - 2))
        }
        brightness = mean
        contrast = variance.squareRoot()
        sharpness = laplacian
        // Exposure peaks at mid-grey and falls to zero at black and white; a frame darker than 8% scores nothing.
        let exposure = mean < 0.08 || mean > 0.97 ? 0 : 1 - pow(abs(mean - 0.45) / 0.55, 2)
        value = exposure * min(1, contrast / 0.2) * sharpness
    }

    /// Box-averages the luma plane to about `targetWidth` columns, normalised so black = 0 and white = 1.
    static func downscaledLuma(_ frame: DecodedFrame, targetWidth: Int) -> (values: [Double], width: Int, height: Int) {
        let format = frame.format
        let step = max(1, format.width / targetWidth)
        let width = max(1, format.width / step), height = max(1, format.height / step)
        let (black, white) = format.lumaLevels
        var values = [Double](repeating: 0, count: width * height)
        frame.withLumaPlane { base, bytesPerRow in
            for gridY in 0..<height {
                for gridX in 0..<width {
                    var sum = 0
                    for y in (gridY * step)..<(gridY * step + step) {
                        let row = base + y * bytesPerRow
                        for x in (gridX * step)..<(gridX * step + step) {
                            sum += format.bytesPerSample == 1 ? Int(row.load(fromByteOffset: x, as: UInt8.self))
                                : Int(row.loadUnaligned(fromByteOffset: x * 2, as: UInt16.self))
                        }
                    }
                    let mean = Double(sum) / Double(step * step)
                    values[gridY * width + gridX] = min(1, max(0, (mean - black) / (white - black)))
                }
            }
        }
        return (values, width, height)
    }
}

/// Picks a poster frame: candidates are keyframes spread between 5% and 95% of the video (away from openings,
/// credits and fades), decoded keyframes-only so it stays fast on long videos, and scored by `PosterScore`.
public enum PosterPicker {
    public struct Choice: Sendable {
        /// Stream time of the chosen frame (seconds, as the container counts).
        public var timeSeconds: Double
        public var score: PosterScore
        public var candidates: Int
    }

    /// Candidates are keyframes (cheap to decode); a video with too few keyframes to choose from (a long GOP)
    /// gets exactly decoded candidates instead.
    public static func pick(path: String, durationSeconds: Double, startSeconds: Double, candidates: Int = 24,
                            maxPixels: Int = MediaFile.defaultMaxPixels) throws -> Choice {
        let fromKeyframes = try pick(path: path, durationSeconds: durationSeconds, startSeconds: startSeconds,
                                     candidates: candidates, keyframesOnly: true, maxPixels: maxPixels)
        if fromKeyframes.candidates >= min(candidates, 6) { return fromKeyframes }
        return try pick(path: path, durationSeconds: durationSeconds, startSeconds: startSeconds,
                        candidates: min(candidates, 12), keyframesOnly: false, maxPixels: maxPixels)
    }

    private static func pick(path: String, durationSeconds: Double, startSeconds: Double, candidates: Int,
                             keyframesOnly: Bool, maxPixels: Int) throws -> Choice {
        // Keyframe candidates are independent seeks (one thread each is plenty); exact candidates decode through
        // whole GOPs, where frame threads help.
        let reader = try FrameReader(path: path, threads: keyframesOnly ? 1 : 0, keyframesOnly: keyframesOnly,
                                     maxPixels: maxPixels)
        var best: Choice?
        var seen = Set<Double>()
        var lastTime: Double?
        for index in 0..<max(1, candidates) {
            let fraction = candidates <= 1 ? 0.5 : 0.05 + 0.9 * Double(index) / Double(candidates - 1)
            let target = startSeconds + durationSeconds * fraction
            let frame: DecodedFrame?
            if keyframesOnly {
                frame = try reader.keyframe(atOrBefore: target)
            } else {
                frame = try reader.frame(at: target, lastTime: lastTime)
            }
            guard let frame, seen.insert(frame.timeSeconds).inserted else { continue }
            lastTime = frame.timeSeconds
            let score = PosterScore(frame: frame)
            if best == nil || score > best!.score {
                best = Choice(timeSeconds: frame.timeSeconds, score: score, candidates: 0)
            }
        }
        if best == nil {
            try reader.seek(toSeconds: startSeconds)
            guard let first = try reader.nextFrame() else { throw InputError.noDecodableFrames }
            best = Choice(timeSeconds: first.timeSeconds, score: PosterScore(frame: first), candidates: 0)
        }
        best!.candidates = seen.count
        return best!
    }
}
