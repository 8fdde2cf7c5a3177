import Foundation
import FrameFarmMedia

/// Which frame a preview (or poster) shows: `--at 12.5`, `--at 25%` or `--at poster`.
public enum FrameChoice: Sendable, Hashable, CustomStringConvertible {
    case seconds(Double)
    case percent(Double)
    case poster

    public init(parsing text: String) throws {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        if trimmed == "poster" || trimmed == "auto" {
            self = .poster
        } else if trimmed.hasSuffix("%"), Self.isDecimal(trimmed.dropLast()), let value = Double(trimmed.dropLast()),
                  (0...100).contains(value) {
            self = .percent(value)
        } else if Self.isDecimal(trimmed[...]), let value = Double(trimmed), value >= 0, value.isFinite {
            self = .seconds(value)
        } else {
            throw ValueParseError(kind: "frame time", value: text,
                                  expected: "seconds (12.5), a percentage (25%), or auto (the poster frame; also called poster)")
        }
    }

    /// Digits with at most one decimal point: Swift's `Double` would also read `0x10` (16) and `1e308`.
    private static func isDecimal(_ text: Substring) -> Bool {
        !text.isEmpty && text.filter { $0 == "." }.count <= 1 && text.allSatisfy { $0 == "." || $0.isASCII && $0.isNumber }
    }

    public var description: String {
        switch self {
        case .seconds(let seconds): "\(seconds)"
        case .percent(let percent): "\(percent)%"
        case .poster: "poster"
        }
    }

    /// Decodes this choice's frame of the video at `path`, which `stream` describes, and finds its padding, in
    /// stages that overlap. For the auto poster the candidates are decoded first and their bars give the padding,
    /// so each candidate serves both (the padding search decoded nine more); a frame chosen by time is decoded in
    /// the background while the padding is found, since the time needs only the duration.
    func decodeFindingPadding(_ stream: StreamFacts, path: String,
                              maxPixels: Int) throws -> (facts: MediaFacts, decoded: Decoded) {
        guard let offset = requestedOffset(stream) else {
            let found = try PosterPicker.pickFromKeyframes(
                path: path, durationSeconds: stream.availableSeconds, startSeconds: stream.info.startSeconds,
                keyframeIntervalSeconds: stream.keyframeIntervalSeconds, keyframeTimes: stream.keyframeTimes,
                analysis: stream.analysis, maxPixels: maxPixels)
                ?? PosterPicker.pickExactlyFindingPadding(path: path, stream: stream, maxPixels: maxPixels)
            var choice = found.choice
            if choice.score.value <= 0,
               let atAnEnd = try PosterPicker.pickFromTheEnds(path: path, stream: stream, maxPixels: maxPixels) {
                choice = atAnEnd
            }
            return (MediaFacts(stream: stream, padding: found.padding),
                    Decoded(frame: choice.frame, score: choice.score, damagedTimes: choice.damagedTimes))
        }
        let decoding = BackgroundWork { try Self.decode(path: path, stream: stream, offset: offset, maxPixels: maxPixels) }
        do {
            let padding = try PaddingDetector.detect(stream, path: path, maxPixels: maxPixels)
            return (MediaFacts(stream: stream, padding: padding), try decoding.finish())
        } catch {
            // The decode still running must not outlive the call.
            _ = try? decoding.finish()
            throw error
        }
    }

    /// A decoded choice: the frame, the auto poster's score, and what its decoding ran into.
    struct Decoded {
        var frame: DecodedFrame
        var score: PosterScore?
        /// Stream times of damaged packets on the way to the frame (`FrameReader.corruptPacketTimes`), so concealed
        /// damage may show in it: for a frame chosen by time, from its keyframe on; for the auto poster, only
        /// when every candidate was damaged (`PosterPicker.Tally` prefers clean ones).
        var damagedTimes: [Double] = []
    }

    /// Decodes the frame on screen `offset` seconds into the video `stream` describes. A time past the end is
    /// clamped to the last frame (documented in docs/commands.md), so `--at 999` on a short clip shows its end rather
    /// than failing; likewise a time past the cut of a file cut short shows the last frame before the cut.
    private static func decode(path: String, stream: StreamFacts, offset: Double, maxPixels: Int) throws -> Decoded {
        let start = stream.info.startSeconds
        // One frame, maybe a whole GOP into the stream: frame threads use every core on the way.
        let reader = try FrameReader(path: path, analysis: stream.analysis, threads: 0, maxPixels: maxPixels)
        guard let frame = try reader.frame(at: start + stream.heldTime(offset), lastTime: nil, then: .nothing) else {
            throw InputError.noDecodableFrames
        }
        return Decoded(frame: frame, damagedTimes: reader.corruptPacketTimes)
    }

    /// What a preview or poster of this choice warns about: a video cut short (`MediaFacts.cutShortAtSeconds`),
    /// with what became of the choice, and damaged data decoded on the way to the frame shown.
    func warnings(facts: MediaFacts, decoded: Decoded) -> [InputWarning] {
        var warnings: [InputWarning] = []
        if let cut = facts.cutShortAtSeconds {
            let shown = decoded.frame.timeSeconds - facts.info.startSeconds
            let consequence: InputWarning.CutShortConsequence? = switch requestedOffset(facts.stream) {
            case let asked? where asked < cut - 5e-7: nil  // the cut is the first frame the file lacks
            case let asked?: .frameAskedPastCut(askedSeconds: asked, shownSeconds: shown)
            case nil: .posterPickedBeforeCut(shownSeconds: shown)
            }
            warnings.append(.cutShort(atSeconds: cut, ofSeconds: facts.durationSeconds, consequence: consequence))
        }
        // Past the end (not a cut, which says so above): shown all the same, as the last frame, and said.
        if case .seconds(let asked) = self, facts.cutShortAtSeconds == nil, asked > facts.timelineSeconds + 5e-4 {
            let shown = decoded.frame.timeSeconds - facts.timelineOriginSeconds
            warnings.append(.frameAskedPastEnd(askedSeconds: asked, endSeconds: facts.timelineSeconds, shownSeconds: shown))
        }
        if let score = decoded.score, score.value <= 0 {
            // A still (one frame, no durations between frames) has no other time to pick.
            let onlyFrame = facts.frameTiming == nil && (facts.keyframeTimes?.count ?? 1) <= 1
            warnings.append(.posterShowsLittle(brightness: score.brightness, onlyFrame: onlyFrame))
        }
        if let damage = facts.stream.damage(times: decoded.damagedTimes) {
            warnings.append(.damagedData(damage, consequence: .frameShownMayShowIt(everyCandidateDamaged: self == .poster)))
        }
        return warnings
    }

    /// Seconds into the video that a time or a percentage of the file's timeline asks for (a time past the end is
    /// the end, one in the lead before the video the first frame); nil for the auto poster.
    private func requestedOffset(_ stream: StreamFacts) -> Double? {
        let duration = stream.timelineSeconds
        return switch self {
        case .seconds(let seconds): stream.videoSeconds(atTimeline: min(seconds, max(0, duration)))
        case .percent(let percent): stream.videoSeconds(atTimeline: duration * percent / 100)
        case .poster: nil
        }
    }
}

extension PosterPicker {
    /// The auto poster where the video has too few keyframes to choose from: the best of exactly decoded
    /// candidates in windows after its keyframes (`windowedCandidateTimes`), decoded in parallel chunks (one per
    /// core, each skipping what no candidate needs). Candidates spread over the whole video are decoded too, as
    /// many as before windows bounded the cost, when the windows' best is weak (black, washed out, flat or blurred:
    /// a dark or soft opening in a one-GOP clip) or lies near their end and is clearly better than their first (a
    /// fade or a blur still lifting where the windows end). The candidates' bars (those decoded clean) give the
    /// padding, as the keyframe candidates' do.
    static func pickExactlyFindingPadding(path: String, stream facts: StreamFacts,
                                          maxPixels: Int) throws -> (choice: Choice, padding: Padding) {
        let start = facts.info.startSeconds, duration = facts.availableSeconds
        let spread = candidateTimes(durationSeconds: duration, startSeconds: start, count: exactCandidates)
        let keyframes = try keyframes(path: path, stream: facts, near: spread, maxPixels: maxPixels)
        let windowed = windowedCandidateTimes(durationSeconds: duration, startSeconds: start, count: exactCandidates,
                                              keyframes: keyframes)
        var tally = Tally()
        var bars: [Double: FrameBars?] = [:]
        try decodeCandidates(windowed, path: path, stream: facts, maxPixels: maxPixels, into: &tally, bars: &bars)
        if windowed != spread,
           tally.choice.map({ $0.score.value < PosterScore.weak || isImproving(tally, keyframes: keyframes) }) ?? true {
            try decodeCandidates(spread, path: path, stream: facts, maxPixels: maxPixels, into: &tally, bars: &bars)
        }
        let choice = try tally.choice ?? firstFrame(path: path, startSeconds: start, analysis: facts.analysis,
                                                    maxPixels: maxPixels)
        return (choice, Padding.decide(codedSize: facts.info.geometry.codedSize, frames: Array(bars.values)))
    }

    /// Whether `tally`'s best lies in the last quarter of its window's candidates (those after the same keyframe)
    /// and scores a quarter more than the window's earliest: the picture was still getting better where the window
    /// ends (a fade after the second keyframe of three lifting past it).
    private static func isImproving(_ tally: Tally, keyframes: [Double]) -> Bool {
        guard let best = tally.choice else { return false }
        // Frame and keyframe times of one frame may differ in their last bits (15.04 and 15.040000000000001).
        let slack = 0.0005
        let opening = keyframes.last { $0 <= best.timeSeconds + slack } ?? -.infinity
        let closing = keyframes.first { $0 > best.timeSeconds + slack } ?? .infinity
        let window = tally.values.filter { $0.key >= opening - slack && $0.key < closing - slack }
        guard let first = window.min(by: { $0.key < $1.key }), let last = window.keys.max() else { return false }
        return best.timeSeconds >= first.key + 0.75 * (last - first.key) && best.score.value > 1.25 * first.value
    }

    /// Where every candidate between 5% and 95% scored nothing (black, washed out or flat: a video whose picture
    /// is only in its first or last seconds), the best of frames from the first and last 5%, its ends included;
    /// nil when they score nothing either.
    static func pickFromTheEnds(path: String, stream facts: StreamFacts, maxPixels: Int) throws -> Choice? {
        let start = facts.info.startSeconds, duration = facts.availableSeconds
        let fractions = [0, 0.01, 0.02, 0.03, 0.04, 0.96, 0.97, 0.98, 0.99, 0.999]
        var tally = Tally()
        var bars: [Double: FrameBars?] = [:]
        try decodeCandidates(fractions.map { start + duration * $0 }, path: path, stream: facts, maxPixels: maxPixels,
                             into: &tally, bars: &bars)
        return tally.choice.flatMap { $0.score.value > 0 ? $0 : nil }
    }

    /// The video's keyframes (presentation times) as far as the windows need them: all of them when the probe's
    /// scan reached the end, else those before each of `times` by the container's index (decode times, moved by
    /// the reordering delay as the probe moves its own), else every keyframe interval from the start.
    private static func keyframes(path: String, stream facts: StreamFacts, near times: [Double],
                                  maxPixels: Int) throws -> [Double] {
        if let all = facts.keyframeTimes { return all }
        let start = facts.info.startSeconds
        let reader = try FrameReader(path: path, analysis: facts.analysis, threads: 1, keyframesOnly: true,
                                     maxPixels: maxPixels)
        if let first = reader.keyframeTime(atOrBefore: start) {
            let reorderDelay = max(0, start - first)
            return Set(times.compactMap { reader.keyframeTime(atOrBefore: $0) }).sorted().map { $0 + reorderDelay }
        }
        guard let interval = facts.keyframeIntervalSeconds, interval > 0 else { return [start] }
        return Array(stride(from: start, to: start + facts.availableSeconds, by: interval))
    }

    /// Decodes the frames on screen at `targets` into `tally`, and the bars of those decoded clean into `bars`.
    private static func decodeCandidates(_ targets: [Double], path: String, stream facts: StreamFacts, maxPixels: Int,
                                         into tally: inout Tally, bars: inout [Double: FrameBars?]) throws {
        // A worker per GOP holding a candidate, at most: workers split the candidates only at GOP starts, so on a
        // one-GOP clip a second one would open its demuxer and decoder to find nothing to take.
        let gops = facts.keyframeTimes.map { keyframes in
            Set(targets.map { target in keyframes.last { $0 <= target } }).count
        }
        let cores = ProcessInfo.processInfo.activeProcessorCount
        let workers = min(cores, max(1, gops ?? .max))
        // The winner is shown at full size: candidates are decoded with deblocking. Any frame near a candidate's
        // time serves, so frames no other refers to are not decoded.
        let feeder = ThumbnailFrameFeeder(path: path, analysis: facts.analysis, targets: targets, mode: .exact,
                                          referenceFramesOnly: true, skipsDeblocking: false, workers: workers,
                                          capacity: 2 * cores, maxPixels: maxPixels)
        do {
            while let item = try feeder.next() {
                tally.consider(item.frame, damagedTimes: item.damagedTimes)
                // A damaged frame's edges may be concealment, not bars.
                if item.damagedTimes.isEmpty {
                    bars.updateValue(PaddingDetector.bars(in: item.frame, codedSize: facts.info.geometry.codedSize),
                                     forKey: item.frame.timeSeconds)
                }
            }
        } catch InputError.noDecodableFrames {
            feeder.cancel()
        }
    }
}
