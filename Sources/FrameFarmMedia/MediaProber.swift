import FrameFarmCore

/// What demuxing a file tells, before any frame is decoded (`MediaProber.open`): the first stage of every job.
public struct StreamFacts: Sendable {
    public var info: VideoStreamInfo
    /// From the container, or from the last packet's timestamp when the container doesn't say.
    public var durationSeconds: Double
    /// Median gap between keyframes over the first packets of the stream; nil with fewer than two keyframes.
    public var keyframeIntervalSeconds: Double?
    /// The longest gap between keyframes over those packets; nil with fewer than two keyframes.
    public var longestKeyframeIntervalSeconds: Double?
    /// Every keyframe's presentation time (stream time) when the scan reached the end of the stream (a short
    /// video); nil when it stopped before. Says, before anything is decoded, that a short clip has too few
    /// keyframes to sample, and where exact poster candidates are cheap.
    public var keyframeTimes: [Double]?
    /// How those packets are spaced in time (jumps at times from the start); nil with fewer than three.
    public var frameTiming: FrameTiming?
    /// For opening the file again without analysing it again.
    public var analysis: StreamAnalysis
    /// When the file is shorter than its index says (a download or copy cut short): about where its video data
    /// stops, in seconds from the start (`MediaFile.indexedDataEndSeconds`). Frames asked for after it show the
    /// last frame before it.
    public var cutShortAtSeconds: Double?
    /// MP4 and MOV: whether the index ('moov') comes before the media data, as progressive download wants; nil
    /// for other containers and for inputs read over http.
    public var indexFirst: Bool?
    /// Stream times of the packets the scan found flagged damaged (`PacketScan.corruptTimes`).
    public var scannedCorruptTimes: [Double] = []

    /// The part of the video its file holds: the duration, or less when the file is cut short. Samples taken across
    /// a video (for padding, for the poster) are spread over this.
    public var availableSeconds: Double { min(durationSeconds, cutShortAtSeconds ?? durationSeconds) }

    /// The file's timeline, which outputs' times count on: the lead before the video's first frame
    /// (`VideoStreamInfo.leadSeconds`), then the video.
    public var timelineSeconds: Double { info.leadSeconds + durationSeconds }

    /// The stream time at which the file's timeline starts.
    public var timelineOriginSeconds: Double { info.startSeconds - info.leadSeconds }

    /// Seconds into the video at `seconds` on the file's timeline: its first frame's all through the lead.
    public func videoSeconds(atTimeline seconds: Double) -> Double { max(0, seconds - info.leadSeconds) }

    /// `seconds` (from the start), or just before the cut when the file is cut short before it: the time whose
    /// frame on screen, and keyframe at or before, the file still holds.
    public func heldTime(_ seconds: Double) -> Double {
        guard let cut = cutShortAtSeconds else { return seconds }
        return min(seconds, max(0, cut - 1e-3))
    }

    /// The damage a reader found (`FrameReader.corruptPacketTimes`: stream times of damaged packets); nil when
    /// there is none. Seeks back re-read packets, and a damaged packet may also give a concealed frame: each time
    /// counts once (unknown times, -1, together as one). The packet a cut goes through belongs to the cut, not to
    /// damage; so, in a file cut short, do errors of unknown time (a frame-threaded decoder's, which name no packet).
    public func damage(times corruptTimes: [Double]) -> DamagedData? {
        let start = info.startSeconds
        let damaged = Set(corruptTimes).filter { time in
            cutShortAtSeconds.map { time >= 0 && time - start < $0 - 5e-7 } ?? true
        }
        guard !damaged.isEmpty else { return nil }
        let times = damaged.filter { $0 >= 0 }.map { $0 - start }
        return DamagedData(count: damaged.count, firstSeconds: times.min(), lastSeconds: times.max())
    }
}

/// What `probe` learns about a file: the stream's facts (read as `facts.info`, `facts.durationSeconds`, ...) and
/// its content rect, the second stage, which takes decoded frames.
@dynamicMemberLookup
public struct MediaFacts: Sendable {
    public var stream: StreamFacts
    /// The bars baked into the frames, and the evidence for them.
    public var padding: Padding
    /// How long the video opens on black (`BlackOpening`); nil when it does not, or was not looked at (`probe`
    /// and `lint` look; the rendering jobs do not).
    public var blackOpeningSeconds: Double?
    /// How many of the padding search's frames show combing (nil when not looked at, as for `blackOpeningSeconds`).
    public var combing: CombingTally?
    /// The damage in what was read (the packet scan and the sampled frames): not the whole file.
    public var damage: DamagedData?

    public init(stream: StreamFacts, padding: Padding, blackOpeningSeconds: Double? = nil,
                combing: CombingTally? = nil, damage: DamagedData? = nil) {
        self.stream = stream
        self.padding = padding
        self.blackOpeningSeconds = blackOpeningSeconds
        self.combing = combing
        self.damage = damage
    }

    /// The picture without the bars found throughout, in coded pixels (the whole frame when there are none, or
    /// when they show in part of the video only).
    public var codedContentRect: PixelRect { padding.contentRect }

    public subscript<Value>(dynamicMember fact: KeyPath<StreamFacts, Value>) -> Value { stream[keyPath: fact] }
}

public enum MediaProber {
    /// Demuxes (no decoding) up to this many packets to estimate the keyframe interval.
    static let keyframeScanPackets = 3000

    /// The times between consecutive `keyframes`, sorted, less what a forward timestamp jump between them adds (at
    /// times from `start`): a splice is reported as a jump, not as a long group of pictures. A pair whose times step
    /// back (across a jump back in time) is left out.
    static func keyframeGaps(_ keyframes: [Double], jumps: [TimestampJump], start: Double) -> [Double] {
        zip(keyframes.dropFirst(), keyframes).compactMap { later, earlier in
            let jumped = jumps.filter { $0.bySeconds > 0 && (earlier..<later).contains($0.atSeconds + start) }
                .reduce(0) { $0 + $1.bySeconds }
            let gap = later - earlier - jumped
            return gap > 0 ? gap : nil
        }.sorted()
    }

    /// The stream's facts, from the container and a demux-only scan. A job that decodes the file anyway starts
    /// its decoding from these and finds the padding in its own frames; `probe` decodes keyframes for it. A
    /// multivariant playlist or DASH manifest that fails on a rendition's segment is read again without the
    /// renditions that cannot be read alone, as players leave them out (`LadderRepair`,
    /// `DASHInput.leaveOutUnreadable`); every later open of it reads without them.
    public static func open(path: String, maxPixels: Int = MediaFile.defaultMaxPixels,
                            rendition: RenditionRequest? = nil) throws -> StreamFacts {
        do {
            return try openOnce(path: path, maxPixels: maxPixels, rendition: rendition)
        } catch InputError.segmentFailed(let segment, let reason, let inManifest, let unreadable) {
            let repaired = inManifest ? DASHInput.leaveOutUnreadable(path)
                : PlaylistScan.isPlaylist(path) && LadderRepair.known(path) == nil && LadderRepair.repaired(path) != nil
            guard repaired else {
                throw InputError.segmentFailed(segment: segment, reason: reason, inManifest: inManifest, unreadable: unreadable)
            }
            // What the failed open noted (FFmpeg tries the segment again as it closes) would fail the next one.
            _ = RemoteReader.takeNestedFailure(within: path)
            _ = NestedOpener.takeSkippedRenditions(within: path)
            return try openOnce(path: path, maxPixels: maxPixels, rendition: rendition)
        }
    }

    private static func openOnce(path: String, maxPixels: Int, rendition: RenditionRequest?) throws -> StreamFacts {
        let reader = try FrameReader(path: path, threads: 1, keyframesOnly: true, maxPixels: maxPixels, rendition: rendition)
        var info = reader.info
        let scan = try reader.scanPackets(maxPackets: keyframeScanPackets)
        if info.color.transfer.isHDR, info.color.peakLuminance == nil {
            // HDR10 metadata the container does not carry (FFmpeg's mp4 muxer writes none) is in the stream's SEI,
            // which only decoding reads: the first keyframe's is the video's, for every output and report alike.
            info.color.peakLuminance = try? reader.keyframe(atOrBefore: info.startSeconds)?.format.color.peakLuminance
        }
        // An advertisement before a stitched programme: the video is the programme's size and shape, and the
        // advertisement's frames are fitted into its picture, as players show them.
        var analysis = reader.analysis
        if let programme = try reader.programmeGeometry() {
            info.geometry = programme
            analysis = try StreamAnalysis(path: analysis.path, info: info, streamIndex: analysis.streamIndex,
                                          parameters: analysis.parameters)
        }
        let scannedAll = scan.packetTimes.count < keyframeScanPackets
        var timing = FrameTiming(packetTimes: scan.packetTimes.map { $0 - info.startSeconds })
        let gaps = keyframeGaps(scan.keyframes, jumps: timing?.jumps ?? [], start: info.startSeconds)
        timing?.untimedPackets = scan.untimedPackets > 0 ? scan.untimedPackets : nil
        var duration = info.durationSeconds ?? 0
        if info.durationSeconds == nil {
            // No duration in the container (a stream recorded or piped into Matroska): the last packet says it,
            // read on to the end when the first scan stopped before (demuxing only), plus that frame's own time.
            let lastTime = scannedAll ? scan.lastTime : try reader.scanPackets(maxPackets: .max).lastTime
            let frameSeconds = timing?.medianFrameSeconds ?? info.frameRate.map { 1 / $0 } ?? 0
            duration = lastTime.map { max(0, $0 - info.startSeconds + frameSeconds) } ?? 0
        }
        let isMP4 = ["mp4", "mov"].contains(info.fileFormat)
        // An index lists decode times, which trail presentation by the stream's reordering delay: the first
        // keyframe is the first frame shown, at the start.
        let reorderDelay = max(0, info.startSeconds - (scan.keyframes.first ?? info.startSeconds))
        return StreamFacts(info: info, durationSeconds: duration, keyframeIntervalSeconds: gaps.isEmpty ? nil : gaps[gaps.count / 2],
                           longestKeyframeIntervalSeconds: gaps.last,
                           keyframeTimes: scannedAll ? scan.keyframes.map { $0 + reorderDelay } : nil,
                           frameTiming: timing,
                           analysis: analysis,
                           cutShortAtSeconds: reader.indexedDataEndSeconds.map { max(0, $0 - info.startSeconds) },
                           indexFirst: isMP4 ? MP4Boxes.isIndexFirst(path: path) : nil,
                           scannedCorruptTimes: scan.corruptTimes)
    }

    /// Every fact: the stream's, then the padding (and combing, and damage) from frames spread over the video,
    /// and a black opening.
    public static func probe(path: String, maxPixels: Int = MediaFile.defaultMaxPixels,
                             rendition: RenditionRequest? = nil) throws -> MediaFacts {
        let stream = try open(path: path, maxPixels: maxPixels, rendition: rendition)
        let sampled = try PaddingDetector.inspect(path: path, analysis: stream.analysis, durationSeconds: stream.availableSeconds,
                                                  startSeconds: stream.info.startSeconds, keyframeTimes: stream.keyframeTimes,
                                                  maxPixels: maxPixels,
                                                  // Fields are a YUV video thing; an RGB stream's alternate
                                                  // rows are a palette's ordered dither (any GIF FFmpeg made).
                                                  measuresCombing: stream.info.color.matrix != .rgb)
        return MediaFacts(stream: stream, padding: sampled.padding,
                          blackOpeningSeconds: try BlackOpening.seconds(stream, path: path, maxPixels: maxPixels),
                          combing: sampled.combing,
                          damage: stream.damage(times: stream.scannedCorruptTimes + sampled.corruptTimes))
    }
}

extension PaddingDetector {
    /// The padding of the video `stream` describes, from frames spread over the part its file holds.
    public static func detect(_ stream: StreamFacts, path: String,
                              maxPixels: Int = MediaFile.defaultMaxPixels) throws -> Padding {
        try inspect(path: path, analysis: stream.analysis, durationSeconds: stream.availableSeconds,
                    startSeconds: stream.info.startSeconds, keyframeTimes: stream.keyframeTimes, maxPixels: maxPixels).padding
    }
}
