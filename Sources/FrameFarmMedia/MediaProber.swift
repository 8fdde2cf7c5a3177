import FrameFarmCore

/// What `probe` learns about a file: the stream's facts plus what takes reading packets or decoding frames.
public struct MediaFacts: Sendable {
    public var info: VideoStreamInfo
    /// From the container, or from the last packet's timestamp when the container doesn't say.
    public var durationSeconds: Double
    /// Median gap between keyframes over the first packets of the stream; nil with fewer than two keyframes.
    public var keyframeIntervalSeconds: Double?
    /// The picture without baked-in bars, in coded pixels (the whole frame when there are none).
    public var codedContentRect: PixelRect
    /// For opening the file again without analysing it again.
    public var analysis: StreamAnalysis
    /// When the file is shorter than its index says (a download or copy cut short): about where its video data
    /// stops, in seconds from the start (`MediaFile.indexedDataEndSeconds`). Frames asked for after it show the
    /// last frame before it.
    public var cutShortAtSeconds: Double?

    /// The part of the video its file holds: the duration, or less when the file is cut short. Samples taken across
    /// a video (for padding, for the poster) are spread over this.
    public var availableSeconds: Double { min(durationSeconds, cutShortAtSeconds ?? durationSeconds) }

    /// `seconds` (from the start), or just before the cut when the file is cut short before it: the time whose
    /// frame on screen, and keyframe at or before, the file still holds.
    public func heldTime(_ seconds: Double) -> Double {
        guard let cut = cutShortAtSeconds else { return seconds }
        return min(seconds, max(0, cut - 1e-3))
    }

    /// "cut short: ..." for a file shorter than its own index says, which each command's warning goes on from;
    /// nil otherwise.
    public var cutShortNote: String? {
        cutShortAtSeconds.map { ProbeReport.cutShortNote(atSeconds: $0, ofSeconds: durationSeconds) }
    }

    /// "damaged data at T: N packet(s) ..." for the stream times of packets a reader found damaged
    /// (`FrameReader.corruptPacketTimes`); nil when there are none. Seeks back re-read packets, and a damaged
    /// packet may also give a concealed frame: each time counts once (unknown times, -1, together as one). The
    /// packet a cut goes through belongs to the cut (`cutShortNote`), not to damage; so, in a file cut short, do
    /// errors of unknown time (a frame-threaded decoder's, which name no packet).
    public func damageNote(times corruptTimes: [Double]) -> String? {
        let start = info.startSeconds
        let damaged = Set(corruptTimes).filter { time in
            cutShortAtSeconds.map { time >= 0 && time - start < $0 - 5e-7 } ?? true
        }
        guard !damaged.isEmpty else { return nil }
        let times = damaged.filter { $0 >= 0 }.map { $0 - start }
        let place = switch (times.min(), times.max()) {
        case (let first?, let last?) where first == last: String(format: " at %.3f s", first)
        case (let first?, let last?): String(format: " between %.3f s and %.3f s", first, last)
        default: ""
        }
        return "damaged data\(place): \(damaged.count) packet(s) or frame(s) skipped or concealed"
    }
}

/// Finds a video's content rect (coded pixels) from frames its caller decodes anyway (see `MediaProber.probe`);
/// nil leaves it to `PaddingDetector`.
public typealias PaddingFinder = () throws -> PixelRect?

public enum MediaProber {
    /// Demuxes (no decoding) up to this many packets to estimate the keyframe interval.
    static let keyframeScanPackets = 3000

    /// - Parameter beforeDecoding: called with every fact but the content rect (the whole frame until then) once
    ///   they are known from the container and a demux-only scan, before any frame is decoded. A caller that
    ///   decodes the same file anyway starts there, so its decoding overlaps padding detection instead of waiting
    ///   for it; it must stop that work itself when `probe` then throws. It may return a way to find the padding
    ///   from the frames it decodes: `probe` then decodes nothing itself.
    public static func probe(path: String, maxPixels: Int = MediaFile.defaultMaxPixels,
                             beforeDecoding: ((MediaFacts) throws -> PaddingFinder?)? = nil) throws -> MediaFacts {
        let reader = try FrameReader(path: path, threads: 1, keyframesOnly: true, maxPixels: maxPixels)
        let info = reader.info
        let scan = try reader.scanKeyframeTimes(maxPackets: keyframeScanPackets)
        let gaps = zip(scan.keyframes.dropFirst(), scan.keyframes).map { $0 - $1 }.sorted()
        let duration = info.durationSeconds ?? scan.lastTime.map { max(0, $0 - info.startSeconds) } ?? 0
        var facts = MediaFacts(info: info, durationSeconds: duration,
                               keyframeIntervalSeconds: gaps.isEmpty ? nil : gaps[gaps.count / 2],
                               codedContentRect: PixelRect(size: info.geometry.codedSize), analysis: reader.analysis,
                               cutShortAtSeconds: reader.indexedDataEndSeconds.map { max(0, $0 - info.startSeconds) })
        let findPadding = try beforeDecoding?(facts)
        facts.codedContentRect = try findPadding?()
            ?? PaddingDetector.detect(path: path, analysis: reader.analysis, durationSeconds: facts.availableSeconds,
                                      startSeconds: info.startSeconds, maxPixels: maxPixels)
        return facts
    }
}
