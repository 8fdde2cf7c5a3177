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

    /// A score below which a frame is blurred, nearly flat or nearly black (a sharp, well-exposed frame scores about
    /// 0.05; one under a strong blur 0.006): worth looking further for a better one.
    public static let weak = 0.01

    /// Brightness (0 black, 1 white) below which a frame, or a cell of one, shows nothing.
    static let nearBlack = 0.08

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
        // Exposure peaks at mid-grey and falls to zero at black and white; a frame near black scores nothing.
        let exposure = mean < Self.nearBlack || mean > 0.97 ? 0 : 1 - pow(abs(mean - 0.45) / 0.55, 2)
        // And counts only the picture that shows: a title card (white text on black) has the contrast and edges of
        // a detailed frame, and beat a soft but whole scene. Bars cost every frame of a video alike.
        let shown = Double(luma.reduce(0) { $0 + ($1 >= Self.nearBlack ? 1 : 0) }) / count
        // Detail counts up to half the frame's contrast: a picture's mean Laplacian stays below that (the samples'
        // zone plate reaches it), noise's is several times its contrast (a frame of static beat every real one).
        // And only in rows that are not a test pattern's (colour bars: every row the one above), which beat a
        // soft scene on contrast and edges alone.
        value = exposure * shown * min(1, contrast / 0.2) * min(sharpness, contrast / 2)
            * (1 - Self.repeatedRowShare(luma, width: width, height: height))
    }

    /// The share of rows that repeat the row above (within a 256th) while varying along themselves: vertical
    /// bars, as test patterns and slates draw them. A camera's rows never repeat that closely, and flat rows (a
    /// letterbox bar, a white sky) do not vary along themselves.
    static func repeatedRowShare(_ luma: [Double], width: Int, height: Int) -> Double {
        guard width >= 2, height >= 2 else { return 0 }
        var repeated = 0
        for y in 1..<height {
            let row = luma[(y * width)..<(y * width + width)]
            let mean = row.reduce(0, +) / Double(width)
            let spread = (row.reduce(0) { $0 + ($1 - mean) * ($1 - mean) } / Double(width)).squareRoot()
            let change = zip(row, luma[((y - 1) * width)..<(y * width)]).reduce(0) { $0 + abs($1.0 - $1.1) } / Double(width)
            if spread > 0.05, change < 1.0 / 256 { repeated += 1 }
        }
        return Double(repeated) / Double(height - 1)
    }

    /// Box-averages the luma plane to about `targetWidth` columns, normalised so black = 0 and white = 1. An RGB
    /// frame's luma is its planes weighed as BT.709 weighs them: its green plane alone took a red picture for black.
    static func downscaledLuma(_ frame: DecodedFrame, targetWidth: Int) -> (values: [Double], width: Int, height: Int) {
        let format = frame.format
        let step = max(1, format.width / targetWidth)
        let width = max(1, format.width / step), height = max(1, format.height / step)
        let (black, white) = format.lumaLevels
        let means: [Double]
        if format.color.matrix == .rgb {
            // Planes G, B, R.
            let planes = (0..<3).map { cellMeans(frame, plane: $0, step: step, width: width, height: height) }
            means = planes[0].indices.map { 0.7152 * planes[0][$0] + 0.0722 * planes[1][$0] + 0.2126 * planes[2][$0] }
        } else {
            means = cellMeans(frame, plane: 0, step: step, width: width, height: height)
        }
        return (means.map { min(1, max(0, ($0 - black) / (white - black))) }, width, height)
    }

    /// The mean sample of each `step` x `step` cell of plane `plane`, `width` x `height` cells, row by row.
    private static func cellMeans(_ frame: DecodedFrame, plane: Int, step: Int, width: Int, height: Int) -> [Double] {
        let format = frame.format
        var means = [Double](repeating: 0, count: width * height)
        // Row by row, each sample type in its own loop: every candidate of a poster passes through here whole.
        var sums = [Int](repeating: 0, count: width)
        frame.withPlane(plane) { base, bytesPerRow in
            for gridY in 0..<height {
                for index in sums.indices { sums[index] = 0 }
                for y in (gridY * step)..<(gridY * step + step) {
                    let row = base + y * bytesPerRow
                    if format.bytesPerSample == 1 {
                        let samples = row.assumingMemoryBound(to: UInt8.self)
                        for gridX in 0..<width {
                            var sum = 0
                            for x in (gridX * step)..<(gridX * step + step) { sum &+= Int(samples[x]) }
                            sums[gridX] &+= sum
                        }
                    } else {
                        for gridX in 0..<width {
                            var sum = 0
                            for x in (gridX * step)..<(gridX * step + step) {
                                sum += Int(row.loadUnaligned(fromByteOffset: x * 2, as: UInt16.self))
                            }
                            sums[gridX] &+= sum
                        }
                    }
                }
                for gridX in 0..<width { means[gridY * width + gridX] = Double(sums[gridX]) / Double(step * step) }
            }
        }
        return means
    }
}

/// Picks a poster frame: candidates spread between 5% and 95% of the video (away from openings, credits and
/// fades), scored by `PosterScore`. Keyframes are the cheap candidates; a video with too few of them (a long GOP)
/// needs exactly decoded ones, which the caller decodes (in parallel chunks) and shows to a `Tally`.
public enum PosterPicker {
    public struct Choice: Sendable {
        /// Stream time of the chosen frame (seconds, as the container counts).
        public var timeSeconds: Double
        public var score: PosterScore
        public var candidates: Int
        /// The frame itself, so the caller need not seek and decode it again (up to a whole GOP on a long one).
        public var frame: DecodedFrame
        /// Stream times of the damaged data its decoding met (`FrameReader.corruptPacketTimes`); empty when clean.
        public var damagedTimes: [Double] = []
    }

    /// Fewer distinct keyframe candidates than this and exact candidates are decoded instead.
    static let fewestKeyframes = 6
    public static let keyframeCandidates = 24
    public static let exactCandidates = 12

    /// `count` stream times spread between 5% and 95% of the video (its middle for one).
    public static func candidateTimes(durationSeconds: Double, startSeconds: Double, count: Int) -> [Double] {
        (0..<max(1, count)).map { index in
            let fraction = count <= 1 ? 0.5 : 0.05 + 0.9 * Double(index) / Double(count - 1)
            return startSeconds + durationSeconds * fraction
        }
    }

    /// The share of a video (at least `leastWindowSeconds`) that exact candidates may cost to decode: what
    /// `windowedCandidateTimes` spends, counted from each window's keyframe.
    public static let windowShare = 0.2
    public static let leastWindowSeconds = 3.0

    /// `count` exact candidates where keyframes are few: an exact frame costs everything from the keyframe before
    /// it, so spreading them over a clip with three keyframes decoded nearly all of it (the bench's 20-s clip, of
    /// which ffmpeg's `thumbnail` filter looks at the first 100 frames for its poster). The candidates lie in
    /// windows that open at keyframes (or at 5% of the video, for the keyframe before it) and end at the next one,
    /// at 95%, or where the windows together cost `windowShare` of the video to decode, whichever comes first;
    /// each window gets candidates in proportion to its length (at least one), its ends included. Where every
    /// window fits, this is `candidateTimes`. `keyframes` are stream times, ascending; those past 95% are ignored.
    public static func windowedCandidateTimes(durationSeconds: Double, startSeconds: Double, count: Int,
                                              keyframes: [Double]) -> [Double] {
        let low = startSeconds + 0.05 * durationSeconds, high = startSeconds + 0.95 * durationSeconds
        // The keyframe the decoding of the first candidate starts from, and every later one before the end.
        let opening = keyframes.last { $0 <= low } ?? startSeconds
        let starts = [opening] + keyframes.filter { $0 > low && $0 < high }
        let ends = starts.indices.map { index in index + 1 < starts.count ? starts[index + 1] : high }
        // What the windows cost when each may reach `reach` past its keyframe, and which part of each is shown.
        func windows(reach: Double) -> [(keyframe: Double, shown: ClosedRange<Double>)] {
            zip(starts, ends).compactMap { start, end in
                let from = max(start, low), to = min(end, start + reach)
                return to > from ? (start, from...to) : nil
            }
        }
        func cost(reach: Double) -> Double {
            windows(reach: reach).reduce(0) { $0 + $1.shown.upperBound - $1.keyframe }
        }
        let budget = max(leastWindowSeconds, windowShare * durationSeconds)
        guard durationSeconds > 0, cost(reach: durationSeconds) > budget else {
            return candidateTimes(durationSeconds: durationSeconds, startSeconds: startSeconds, count: count)
        }
        // The cost grows with the reach: the widest reach within the budget, by bisection.
        var fits = 0.0, exceeds = durationSeconds
        for _ in 0..<40 {
            let middle = (fits + exceeds) / 2
            if cost(reach: middle) <= budget { fits = middle } else { exceeds = middle }
        }
        let chosen = windows(reach: fits).map(\.shown)
        guard !chosen.isEmpty else { return [low] }
        let total = chosen.reduce(0) { $0 + $1.upperBound - $1.lowerBound }
        return chosen.flatMap { window -> [Double] in
            let length = window.upperBound - window.lowerBound
            let share = max(1, Int((Double(count) * length / max(total, 1e-9)).rounded()))
            return (0..<share).map { index in
                share == 1 ? window.lowerBound : window.lowerBound + length * Double(index) / Double(share - 1)
            }
        }
    }

    /// Keeps the best of the frames it is shown, holding only that one, and the best damaged one apart: concealed
    /// damage (smeared blocks, broken edges) reads as detail and contrast, so a damaged frame would often win. It
    /// is chosen only when no candidate decoded clean.
    public struct Tally: Sendable {
        private var clean: Choice?
        private var damaged: Choice?
        /// Every distinct frame shown, by its time, with its score's value.
        public private(set) var values: [Double: Double] = [:]

        public init() {}

        /// The best clean frame, else the best damaged one; `candidates` counts every distinct frame shown.
        public var choice: Choice? {
            guard var best = clean ?? damaged else { return nil }
            best.candidates = values.count
            return best
        }

        /// - Parameter damagedTimes: what decoding the frame met (see `Choice.damagedTimes`).
        public mutating func consider(_ frame: DecodedFrame, damagedTimes: [Double] = []) {
            guard values[frame.timeSeconds] == nil else { return }
            let candidate = Choice(timeSeconds: frame.timeSeconds, score: PosterScore(frame: frame), candidates: 0,
                                   frame: frame, damagedTimes: damagedTimes)
            values[frame.timeSeconds] = candidate.score.value
            if damagedTimes.isEmpty {
                Self.keepBetter(candidate, in: &clean)
            } else {
                Self.keepBetter(candidate, in: &damaged)
            }
        }

        /// Takes in what another tally saw (another run of the same candidates).
        public mutating func merge(_ other: Tally) {
            values.merge(other.values) { first, _ in first }
            if let theirs = other.clean { Self.keepBetter(theirs, in: &clean) }
            if let theirs = other.damaged { Self.keepBetter(theirs, in: &damaged) }
        }

        private static func keepBetter(_ candidate: Choice, in best: inout Choice?) {
            if best == nil || candidate.score > best!.score { best = candidate }
        }
    }

    /// The best keyframe candidate and the padding decided from the bars of the same candidates (as
    /// `PaddingDetector` does from its own samples: one decode of each keyframe serves both), or nil when the video
    /// has too few keyframes to choose from. The probe's keyframe interval, or its list of every keyframe of a
    /// short clip, says so before anything is decoded. The candidates are decoded in runs, one per worker, each keeping only its best frame.
    public static func pickFromKeyframes(path: String, durationSeconds: Double, startSeconds: Double,
                                         keyframeIntervalSeconds: Double?, keyframeTimes: [Double]? = nil,
                                         analysis: StreamAnalysis? = nil,
                                         maxPixels: Int = MediaFile.defaultMaxPixels,
                                         workers: Int = ProcessInfo.processInfo.activeProcessorCount)
        throws -> (choice: Choice, padding: Padding)? {
        if let interval = keyframeIntervalSeconds, interval > 0,
           durationSeconds * 0.9 / interval + 1 < Double(fewestKeyframes) {
            return nil
        }
        if let keyframeTimes, keyframeTimes.count < fewestKeyframes { return nil }
        let targets = candidateTimes(durationSeconds: durationSeconds, startSeconds: startSeconds,
                                     count: keyframeCandidates)
        let runs = try FrameReader.inRuns(path: path, analysis: analysis, targets: targets, workers: workers,
                                          maxPixels: maxPixels) { reader, run in
            var tally = Tally()
            var bars: [Double: FrameBars?] = [:]
            for target in run {
                let damageBefore = reader.corruptPacketTimes.count
                guard let frame = try reader.keyframe(atOrBefore: target) else { continue }
                let damage = reader.damage(reaching: frame, recordedAfter: damageBefore)
                // A damaged frame's edges may be concealment, not bars.
                if damage.isEmpty {
                    bars.updateValue(PaddingDetector.bars(in: frame, codedSize: reader.info.geometry.codedSize), forKey: frame.timeSeconds)
                }
                tally.consider(frame, damagedTimes: damage)
            }
            return (tally: tally, bars: bars, codedSize: reader.info.geometry.codedSize)
        }
        var tally = Tally()
        var bars: [Double: FrameBars?] = [:]
        for run in runs {
            tally.merge(run.tally)
            bars.merge(run.bars) { first, _ in first }
        }
        guard let choice = tally.choice, choice.candidates >= fewestKeyframes else { return nil }
        return (choice, Padding.decide(codedSize: runs[0].codedSize, frames: Array(bars.values)))
    }

    /// The video's first frame, for one where no candidate decoded.
    public static func firstFrame(path: String, startSeconds: Double, analysis: StreamAnalysis? = nil,
                                  maxPixels: Int = MediaFile.defaultMaxPixels) throws -> Choice {
        let reader = try FrameReader(path: path, analysis: analysis, threads: 1, maxPixels: maxPixels)
        try reader.seek(toSeconds: startSeconds)
        guard let first = try reader.nextFrame() else { throw InputError.noDecodableFrames }
        var tally = Tally()
        tally.consider(first)
        return tally.choice!
    }
}
