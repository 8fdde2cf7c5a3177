import Foundation

/// Damaged packets or concealed frames a decode went through.
public struct DamagedData: Codable, Sendable, Hashable, CustomStringConvertible {
    /// Packets or frames, each time once.
    public var count: Int
    /// Seconds from the start of the first and last with a known time.
    public var firstSeconds: Double?
    public var lastSeconds: Double?

    public init(count: Int, firstSeconds: Double?, lastSeconds: Double?) {
        self.count = count
        self.firstSeconds = firstSeconds
        self.lastSeconds = lastSeconds
    }

    /// "damaged data at T: N packet(s) or frame(s) skipped or concealed".
    public var description: String {
        let place = switch (firstSeconds, lastSeconds) {
        case (let first?, let last?) where first == last: String(format: " at %.3f s", first)
        case (let first?, let last?): String(format: " between %.3f s and %.3f s", first, last)
        default: ""
        }
        return "damaged data\(place): \(count) packet(s) or frame(s) skipped or concealed"
    }
}

/// How many of the frames a probe sampled show combing (`CombingDetector`): interlaced video the stream does
/// not flag.
public struct CombingTally: Codable, Sendable, Equatable {
    /// Frames looked at, and those combed.
    public var sampledFrames: Int
    public var combedFrames: Int

    public init(sampledFrames: Int, combedFrames: Int) {
        self.sampledFrames = sampledFrames
        self.combedFrames = combedFrames
    }

    /// Whether the video is interlaced by the look of it: a third of the samples combed, two at the least
    /// (frames without motion show no combing even in interlaced video; one combed frame may be a fluke).
    public var showsInterlacing: Bool { combedFrames >= 2 && combedFrames * 3 >= sampledFrames }
}
