import Foundation
import FrameFarmMedia

/// Which frame a preview (or poster) shows: `--at 12.5`, `--at 25%` or `--at poster`.
public enum FrameChoice: Sendable, Equatable, CustomStringConvertible {
    case seconds(Double)
    case percent(Double)
    case poster

    public init(parsing text: String) throws {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        if trimmed == "poster" || trimmed == "auto" {
            self = .poster
        } else if trimmed.hasSuffix("%"), let value = Double(trimmed.dropLast()), (0...100).contains(value) {
            self = .percent(value)
        } else if let value = Double(trimmed), value >= 0, value.isFinite {
            self = .seconds(value)
        } else {
            throw ValueParseError(kind: "frame time", value: text, expected: "seconds (12.5), a percentage (25%) or poster")
        }
    }

    public var description: String {
        switch self {
        case .seconds(let seconds): "\(seconds)"
        case .percent(let percent): "\(percent)%"
        case .poster: "poster"
        }
    }

    /// Probes `path` and decodes this choice's frame, each overlapping the other's decoding. For the auto poster
    /// the keyframe candidates are decoded while probing and their bars give the padding, so each keyframe serves
    /// both (the padding search decoded nine more); a frame chosen by time is decoded while the probe searches
    /// for padding, since the time needs only the duration, known before.
    func probeAndDecode(path: String, maxPixels: Int) throws -> (facts: MediaFacts, decoded: Decoded) {
        var pick: PosterPicker.Choice?
        var decoding: BackgroundWork<Decoded>?
        do {
            let facts = try MediaProber.probe(path: path, maxPixels: maxPixels) { early in
                guard self == .poster else {
                    decoding = BackgroundWork { try self.decode(path: path, facts: early, maxPixels: maxPixels) }
                    return nil
                }
                return {
                    let found = try PosterPicker.pickFromKeyframesFindingPadding(
                        path: path, durationSeconds: early.availableSeconds, startSeconds: early.info.startSeconds,
                        keyframeIntervalSeconds: early.keyframeIntervalSeconds, analysis: early.analysis,
                        maxPixels: maxPixels)
                    pick = found?.choice
                    return found?.content
                }
            }
            let decoded = try decoding?.finish()
            return (facts, try decoded ?? decode(path: path, facts: facts, maxPixels: maxPixels, keyframePick: pick))
        } catch {
            // A decode still running must not outlive the call.
            _ = try? decoding?.finish()
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

    /// Decodes the chosen frame of the video `facts` describe (every fact but the content rect is used); for
    /// `.poster`, the picker's winner (`keyframePick` when probing made one) and its score. A time past the end is
    /// clamped to the last frame (documented in docs/commands.md), so `--at 999` on a short clip shows its end rather
    /// than failing; likewise a time past the cut of a file cut short shows the last frame before the cut.
    private func decode(path: String, facts: MediaFacts, maxPixels: Int,
                        keyframePick: PosterPicker.Choice? = nil) throws -> Decoded {
        guard let offset = requestedOffset(durationSeconds: facts.durationSeconds) else {
            let choice = try keyframePick ?? PosterPicker.pick(path: path, facts: facts, maxPixels: maxPixels)
            return Decoded(frame: choice.frame, score: choice.score, damagedTimes: choice.damagedTimes)
        }
        let start = facts.info.startSeconds
        // One frame, maybe a whole GOP into the stream: frame threads use every core on the way.
        let reader = try FrameReader(path: path, analysis: facts.analysis, threads: 0, maxPixels: maxPixels)
        guard let frame = try reader.frame(at: start + facts.heldTime(offset), lastTime: nil, then: .nothing) else {
            throw InputError.noDecodableFrames
        }
        return Decoded(frame: frame, damagedTimes: reader.corruptPacketTimes)
    }

    /// What a preview or poster of this choice warns about: a video cut short (`MediaFacts.cutShortAtSeconds`),
    /// with what became of the choice, and damaged data decoded on the way to the frame shown.
    func warnings(facts: MediaFacts, decoded: Decoded) -> [String] {
        var warnings: [String] = []
        if let note = facts.cutShortNote, let cut = facts.cutShortAtSeconds {
            let shown = String(format: "%.3f s", decoded.frame.timeSeconds - facts.info.startSeconds)
            if let asked = requestedOffset(durationSeconds: facts.durationSeconds) {
                warnings.append(asked <= cut ? note : note + String(
                    format: "; the frame at %.3f s was asked for, the last one before the cut (%@) is shown", asked, shown))
            } else {
                warnings.append(note + "; the frame shown (\(shown)) was picked from the video before it")
            }
        }
        if let damage = facts.damageNote(times: decoded.damagedTimes) {
            warnings.append(damage + " on the way to the frame shown, which may show it"
                            + (self == .poster ? " (every candidate frame was damaged)" : ""))
        }
        return warnings
    }

    /// Seconds from the start that a time or a percentage asks for (a time past the end is the end); nil for the
    /// auto poster.
    private func requestedOffset(durationSeconds duration: Double) -> Double? {
        switch self {
        case .seconds(let seconds): min(seconds, max(0, duration))
        case .percent(let percent): duration * percent / 100
        case .poster: nil
        }
    }
}

extension PosterPicker {
    /// The auto poster: the best keyframe candidate when the video has enough keyframes; else the best of
    /// exactly decoded candidates, decoded in parallel chunks (one per core, each skipping what no candidate
    /// needs), since on a long GOP every candidate means decoding into it.
    static func pick(path: String, facts: MediaFacts, maxPixels: Int) throws -> Choice {
        let start = facts.info.startSeconds, duration = facts.availableSeconds
        if let choice = try pickFromKeyframes(path: path, durationSeconds: duration, startSeconds: start,
                                              keyframeIntervalSeconds: facts.keyframeIntervalSeconds,
                                              analysis: facts.analysis, maxPixels: maxPixels) {
            return choice
        }
        let targets = candidateTimes(durationSeconds: duration, startSeconds: start, count: exactCandidates)
        let cores = ProcessInfo.processInfo.activeProcessorCount
        // The winner is shown at full size: candidates are decoded exactly.
        let feeder = ThumbnailFrameFeeder(path: path, analysis: facts.analysis, targets: targets, mode: .exact,
                                          skipsDeblocking: false, workers: cores, capacity: 2 * cores,
                                          maxPixels: maxPixels)
        var tally = Tally()
        do {
            while let item = try feeder.next() { tally.consider(item.frame, damagedTimes: item.damagedTimes) }
        } catch InputError.noDecodableFrames {
            feeder.cancel()
        }
        return try tally.choice ?? firstFrame(path: path, startSeconds: start, analysis: facts.analysis,
                                              maxPixels: maxPixels)
    }
}
