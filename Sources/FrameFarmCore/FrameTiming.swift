/// How a stream's frames are spaced in time, from the timestamps of its packets (the container's index, or a
/// demux-only scan): the facts behind lint's `variable-frame-rate` and `timestamp-jump`.
public struct FrameTiming: Codable, Sendable, Equatable {
    /// The typical frame duration.
    public var medianFrameSeconds: Double
    public var shortestFrameSeconds: Double
    public var longestFrameSeconds: Double
    /// The share of frame durations more than 10% off the median (jumps left out): 0 for a constant rate, even
    /// one stored in whole milliseconds (23.976 fps as 41 and 42 ms).
    public var irregularShare: Double
    /// Where the timestamps break: a step back, or a step forward of more than 10 frames and half a second.
    public var jumps: [TimestampJump]
    /// Frames stamped with the time of the frame before them; nil when none is.
    public var repeats: TimestampRepeats?
    /// How many frame durations these facts come from.
    public var framesMeasured: Int
    /// Packets of those scanned that carry no timestamp at all, whose frames' times are guesses (FFmpeg's MPEG-PS
    /// muxer leaves them out of H.264 frames that start inside a packet); nil when every packet carries one.
    public var untimedPackets: Int?

    /// The one line that says packets carry no timestamp (lint's `missing-timestamps`, the jobs' warning).
    public var untimedNote: String? {
        untimedPackets.map { untimed in
            "\(untimed) of the first \(untimed + framesMeasured + 1) video packets carry no timestamp (FFmpeg's MPEG-PS "
                + "muxer leaves them out of H.264): their frames' times are guesses, so thumbnails, posters and seeks may "
                + "show other frames; remux to MP4 or MPEG-TS"
        }
    }

    /// Off the median by more than this share, a frame duration is irregular.
    static let tolerance = 0.1

    public init(medianFrameSeconds: Double, shortestFrameSeconds: Double, longestFrameSeconds: Double,
                irregularShare: Double, jumps: [TimestampJump], repeats: TimestampRepeats? = nil, framesMeasured: Int) {
        self.medianFrameSeconds = medianFrameSeconds
        self.shortestFrameSeconds = shortestFrameSeconds
        self.longestFrameSeconds = longestFrameSeconds
        self.irregularShare = irregularShare
        self.jumps = jumps
        self.repeats = repeats
        self.framesMeasured = framesMeasured
    }

    /// Frames reorder (B-frames) by a few places at most: the timestamps are put back in order within a window
    /// this long, so a break of more frames than that still shows as one.
    static let reorderWindow = 16

    /// The timing of packets with these timestamps (seconds) in the order the file holds them: presentation times
    /// (Matroska, whose blocks carry no decode times), or decode times (an MP4's index); nil with fewer than 3.
    public init?(packetTimes: [Double]) {
        guard packetTimes.count >= 3 else { return nil }
        // A step back of more than half a second is a break, not B-frame reordering: each run between breaks is
        // put in order on its own, so the break keeps its size.
        var runs: [[Double]] = [[]]
        for time in packetTimes {
            if let last = runs[runs.count - 1].last, time < last - 0.5 { runs.append([]) }
            runs[runs.count - 1].append(time)
        }
        let times = runs.flatMap(Self.reordered)
        let steps = zip(times.dropFirst(), times).map { $0 - $1 }
        let median = steps.filter { $0 > 0 }.sorted().middle ?? 0
        guard median > 0 else { return nil }
        var jumps: [TimestampJump] = []
        var repeats: TimestampRepeats?
        var durations: [Double] = []
        for (index, step) in steps.enumerated() {
            if step == 0 {
                repeats = TimestampRepeats(count: (repeats?.count ?? 0) + 1,
                                           firstAtSeconds: repeats?.firstAtSeconds ?? times[index])
            } else if step < 0 || (step > 10 * median && step > 0.5) {
                // The jump is what the step adds beyond one frame.
                jumps.append(TimestampJump(atSeconds: times[index], bySeconds: step - median))
            } else {
                durations.append(step)
            }
        }
        let irregular = durations.filter { abs($0 - median) > Self.tolerance * median }.count
        self.init(medianFrameSeconds: median, shortestFrameSeconds: durations.min() ?? median,
                  longestFrameSeconds: durations.max() ?? median,
                  irregularShare: durations.isEmpty ? 0 : Double(irregular) / Double(durations.count),
                  jumps: jumps, repeats: repeats, framesMeasured: steps.count)
    }
}

extension FrameTiming {
    /// `times` sorted within a sliding window of `reorderWindow`: presentation order, where only B-frame
    /// reordering moved them.
    static func reordered(_ times: [Double]) -> [Double] {
        var window: [Double] = []
        var ordered: [Double] = []
        ordered.reserveCapacity(times.count)
        for time in times {
            let place = window.firstIndex { $0 > time } ?? window.endIndex
            window.insert(time, at: place)
            if window.count > reorderWindow { ordered.append(window.removeFirst()) }
        }
        return ordered + window
    }
}

/// Frames that carry the timestamp of the frame before them (a muxer that rounded, or a broken encode).
public struct TimestampRepeats: Codable, Sendable, Equatable {
    public var count: Int
    /// The first repeated time, from the start.
    public var firstAtSeconds: Double

    public init(count: Int, firstAtSeconds: Double) {
        self.count = count
        self.firstAtSeconds = firstAtSeconds
    }
}

/// A break in a stream's timestamps: at `atSeconds` (the packet before it) they go on `bySeconds` later than one
/// frame would (negative: they step back).
public struct TimestampJump: Codable, Sendable, Equatable {
    public var atSeconds: Double
    public var bySeconds: Double

    public init(atSeconds: Double, bySeconds: Double) {
        self.atSeconds = atSeconds
        self.bySeconds = bySeconds
    }
}

extension Array where Element == Double {
    /// The middle value of a sorted array (the upper one of an even count); nil when empty.
    var middle: Double? { isEmpty ? nil : self[count / 2] }
}
