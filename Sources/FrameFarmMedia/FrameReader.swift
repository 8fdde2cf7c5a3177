import CFFmpeg
import Foundation
import FrameFarmCore

/// What a reader's caller reads after an exact target (`FrameReader.frame(at:lastTime:then:)`).
public enum NextRead: Sendable {
    /// Not known: read on as if anything might follow.
    case unknown
    /// Nothing.
    case nothing
    /// The frame at this stream time.
    case time(Double)
}

/// Decodes a file's video frames in presentation order, with exact and keyframe seeking. Owns its demuxer and
/// decoder; not thread-safe (parallel work opens one reader per chunk).
public final class FrameReader {
    public let path: String
    public let info: VideoStreamInfo
    /// Internal, as are `maxPixels`, `lastKeyframe`, `searchedKeyframe` and `segmentedPlaylist`, for the
    /// extensions in FrameReader+Keyframes.swift and FrameReader+Programme.swift.
    var file: MediaFile
    private var decoder: VideoDecoder
    private let keyframesOnly: Bool
    private let referenceFramesOnly: Bool
    /// See `init`; turned off for a frame that must be exact (one the padding search measures), from its next read.
    public var skipsDeblocking: Bool { didSet { decoder.skipsLoopFilter = skipsDeblocking } }
    let maxPixels: Int
    private let threads: Int
    /// While seeking exactly to `target` (stream time): the latest presentation time, at or before it, of the
    /// packets sent to be decoded in full. A packet presented before that cannot be the frame on screen at the
    /// target (that later frame, or one after it, will be), so the decoder fast-forwards through it
    /// (`VideoDecoder.fastForwarding`). With B-frames, each group's anchor comes before the frames shown ahead
    /// of it, so all but the target's last few frames are passed this way, whatever the frame durations.
    private var fastForward: (target: Double, covered: Double)?
    /// While seeking exactly to a target the next read will not continue from: a packet decoded after this stream
    /// time cannot hold a frame presented at or before it, nor can any packet after it (decode times only grow,
    /// and a frame is decoded no later than it is shown), so instead of sending it the decoder is drained.
    private var drainAfter: Double?
    /// Whether the decoder was drained that way since the last seek: reading on needs a seek.
    private var drainedEarly = false
    /// After a seek in a container without an index, or at its start (a recording cut mid-GOP), packets skipped on
    /// the way to the first keyframe; nil once it is found. MPEG-TS seeks to a byte position, not a keyframe, and
    /// the frames before the next keyframe would decode to garbage where the decoder does not hold them back itself
    /// (HEVC does not; H.264 does).
    private var skippedToKeyframe: Int?
    /// `packetsSent` at the last seek.
    private var packetsSentAtSeek = 0
    /// Whether the stream was found to flag no keyframes (none in the first `keyframeSearchLimit` packets): it is
    /// then decoded from wherever reading starts.
    private var flagsNoKeyframes = false
    private static let keyframeSearchLimit = 1000
    /// Whether reading started at the stream's first packet (not at a seek's).
    private var readsFromStart = true
    /// While `drainAfter` holds: whether a packet presented exactly at its target has been sent. That frame is
    /// the one on screen there (frames decoded after it are presented later, or, leading pictures, earlier), so
    /// the decoder is drained before the next packet that has a presentation time of its own, instead of
    /// decoding the stream's reordering delay more (two frames on the bench's HEVC clip, whose thumbnail times
    /// fall on keyframes). A packet without one (a second field) is still sent.
    private var targetFrameSent = false
    private let normalizer: FrameNormalizer
    private var draining = false
    private var finished = false
    /// Whether the demuxer has run out of packets (a drain that follows is the end of the stream, not a keyframe's).
    private var demuxerFinished = false
    /// The playlist's next run of segments, opened when the demuxer reached a discontinuity; read once the decoder
    /// has put out the frames of the run before it.
    private var nextRun: MediaFile?
    /// `framesDecoded` and `packetsSent` when the decoder started on this part of a playlist (see `checkPartDecoded`).
    private var countsAtPartStart = (frames: 0, packets: 0)
    /// Frames the decoder has put out (frames discarded before decoding are not counted).
    public private(set) var framesDecoded = 0
    /// Packets sent to the decoder: what decoding cost, frames it held back or skipped included.
    public private(set) var packetsSent = 0
    /// Presentation times (seconds) of packets the decoder rejected as corrupt; the caller warns about them.
    public private(set) var corruptPacketTimes: [Double] = []
    /// Frame decoded past a target while seeking exactly; returned first by the next read.
    private var pending: DecodedFrame?
    /// The frame `keyframe(atOrBefore:)` returned last and the index entry it was sought by, while nothing has
    /// been read since (nine padding samples of a 20-s clip fall back to three keyframes).
    var lastKeyframe: (indexTime: Double, frame: DecodedFrame)?
    /// In a container without an index, the keyframe a search found last and the time of the first frame after it
    /// that the search read: every target between the two is shown that keyframe, with no search of its own.
    var searchedKeyframe: (frame: DecodedFrame, until: Double)?
    /// An HLS playlist (or a DASH representation made one), which is sought by opening it again
    /// (`SegmentedPlaylist`).
    lazy var segmentedPlaylist: SegmentedPlaylist? = SegmentedPlaylist.read(by: file)

    /// - Parameter referenceFramesOnly: decode only the frames other frames refer to (`VideoDecoder`): an exact
    ///   read then returns the last of those at or before its time, for callers that need a frame near it.
    /// - Parameter skipsDeblocking: skip deblocking on every frame decoded. Faster, but the frame shown drifts
    ///   by a few dB (`VideoDecoder`): for outputs shrunk 4x or more only.
    /// - Parameter analysis: an earlier reader's (or `MediaFacts`') analysis of this file, so opening it doesn't
    ///   decode its first frames again (see `StreamAnalysis`).
    public init(path: String, analysis: StreamAnalysis? = nil, threads: Int = 0, keyframesOnly: Bool = false,
                referenceFramesOnly: Bool = false, skipsDeblocking: Bool = false,
                maxPixels: Int = MediaFile.defaultMaxPixels, rendition: RenditionRequest? = nil) throws {
        self.path = path
        self.keyframesOnly = keyframesOnly
        self.referenceFramesOnly = referenceFramesOnly
        self.skipsDeblocking = skipsDeblocking
        self.maxPixels = maxPixels
        self.threads = threads
        let opened = try MediaFile(path: path, maxPixels: maxPixels, analysis: analysis, rendition: rendition)
        file = opened
        info = opened.info
        normalizer = FrameNormalizer(streamPeakLuminance: info.color.peakLuminance,
                                     streamTags: ColorTags(opened.stream.pointee.codecpar.pointee))
        decoder = try Self.decoder(for: opened, threads: threads, keyframesOnly: keyframesOnly,
                                   referenceFramesOnly: referenceFramesOnly, skipsDeblocking: skipsDeblocking,
                                   maxPixels: maxPixels)
        if !opened.hasIndex { skippedToKeyframe = 0 }
        if segmentedPlaylist?.opensByRun == true { try seek(toSeconds: info.startSeconds) }
    }

    private static func decoder(for file: MediaFile, threads: Int, keyframesOnly: Bool, referenceFramesOnly: Bool,
                                skipsDeblocking: Bool, maxPixels: Int) throws -> VideoDecoder {
        try VideoDecoder(file: file, threads: threads, keyframesOnly: keyframesOnly,
                         referenceFramesOnly: referenceFramesOnly, skipsDeblocking: skipsDeblocking, maxPixels: maxPixels)
    }

    /// A decoder for `file` with this reader's settings.
    private func newDecoder() throws -> VideoDecoder {
        try Self.decoder(for: file, threads: threads, keyframesOnly: keyframesOnly,
                         referenceFramesOnly: referenceFramesOnly, skipsDeblocking: skipsDeblocking, maxPixels: maxPixels)
    }

    /// How this reader's file was analysed, for other readers of it.
    public var analysis: StreamAnalysis { file.analysis }

    /// See `MediaFile.indexedDataEndSeconds`: where a file cut short loses its video (stream time).
    public var indexedDataEndSeconds: Double? { file.indexedDataEndSeconds }

    /// The next frame in presentation order, or nil at the end of the stream.
    public func nextFrame() throws -> DecodedFrame? {
        lastKeyframe = nil
        if let frame = pending {
            pending = nil
            return frame
        }
        var errorsInARow = 0
        while !finished {
            let frame: UnsafeMutablePointer<AVFrame>?, step: CodecStep
            do {
                (frame, step) = try decoder.receive()
            } catch let error as MediaError where error.code != .outOfMemory && errorsInARow < 64 {
                // A frame-threaded decoder reports a damaged packet (one cut off at the end of a file, say) when
                // its frame is due rather than when it is sent; it goes on with the next one.
                errorsInARow += 1
                try rejected(at: nil)
                continue
            }
            errorsInARow = 0
            if let frame {
                framesDecoded += 1
                let timestamp = frame.pointee.best_effort_timestamp
                let seconds = timestamp == framefarm_av_nopts_value() ? 0 : file.seconds(timestamp)
                // The decoder concealed damage in this frame (missing or broken slices).
                if frame.pointee.decode_error_flags != 0 || frame.pointee.flags & AV_FRAME_FLAG_CORRUPT != 0 {
                    corruptPacketTimes.append(seconds)
                }
                if let window = file.presentationWindow, seconds >= window.upperBound - 5e-7 {
                    var dropped: UnsafeMutablePointer<AVFrame>? = frame
                    av_frame_free(&dropped)
                    continue
                }
                var shown = file.presentationWindow.map { max(seconds, $0.lowerBound) } ?? seconds
                if keyframesOnly { shown = max(shown, info.startSeconds) }
                let decoded = try normalizer.normalize(frame, timeSeconds: shown)
                decoded.run = file.run ?? 0
                return decoded
            }
            if step == .endOfStream {
                // A discontinuity: the next run of segments may change the codec's parameters, so it gets a
                // decoder of its own.
                if let next = nextRun {
                    try checkPartDecoded()
                    file = next
                    decoder = try newDecoder()
                    nextRun = nil
                    draining = false
                    continue
                }
                // A keyframe-only decoder is drained after every keyframe (see `keyframe(atOrBefore:)`): reading on
                // means flushing it and feeding it the packets that follow.
                if keyframesOnly && !demuxerFinished {
                    decoder.flush()
                    draining = false
                    continue
                }
                if demuxerFinished { try checkPartDecoded() }
                finished = true
                break
            }
            try feedDecoder()
        }
        return nil
    }

    /// A run of segments after a discontinuity whose every packet the decoder rejected (a codec the stream's
    /// decoder cannot take) would leave the frame before it on screen: it fails the input, naming its first segment.
    private func checkPartDecoded() throws {
        defer { countsAtPartStart = (framesDecoded, packetsSent) }
        guard let part = file.part, framesDecoded == countsAtPartStart.frames, packetsSent > countsAtPartStart.packets else { return }
        try file.checkRunSize(maxPixels: maxPixels)
        throw part.failure("none of its frames could be decoded")
    }

    private func feedDecoder() throws {
        if draining { return }
        guard let packet = try file.readVideoPacket() else {
            nextRun = try file.openedNextRun(maxPixels: maxPixels)
            demuxerFinished = nextRun == nil
            draining = true
            _ = try decoder.send(nil)
            return
        }
        if let skipped = skippedToKeyframe, !packet.isKeyFrame {
            if skipped < Self.keyframeSearchLimit {
                skippedToKeyframe = skipped + 1
                return
            }
            // None found: the stream flags none. At its start, read it again from its first packet.
            flagsNoKeyframes = true
            if readsFromStart {
                try seek(toSeconds: info.startSeconds)
                return
            }
        }
        skippedToKeyframe = nil
        // Only a decode time below the presentation time is taken as real: a demuxer that copies presentation
        // times into decode times (they then jump back and forth with B-frames) could cut off a reference frame.
        let presentationTime = packet.presentationTimestamp.map(file.seconds)
        if let limit = drainAfter {
            // Before the first packet since the seek nothing is on screen yet: the first frame after the target is
            // then the one to show (a stream whose first keyframe comes after it).
            let decodedLate = packetsSent > packetsSentAtSeek && packet.decodeTimestamp.map(file.seconds).map { decodeTime in
                decodeTime > limit && presentationTime.map { decodeTime < $0 } == true
            } ?? false
            if decodedLate || (targetFrameSent && presentationTime != nil) {
                draining = true
                drainedEarly = true
                _ = try decoder.send(nil)
                return
            }
            // `limit` is the target plus the rounding slack.
            if let presentationTime, abs(presentationTime - (limit - 5e-7)) <= 5e-7 { targetFrameSent = true }
        }
        if let (target, covered) = fastForward {
            let passes = presentationTime.map { $0 < covered } ?? false
            decoder.fastForwarding = passes
            if !passes, let presentationTime, presentationTime <= target {
                fastForward = (target, max(covered, presentationTime))
            }
        }
        // The demuxer flags packets it knows are damaged (an MPEG-TS continuity error, say).
        if packet.isCorrupt { corruptPacketTimes.append(presentationTime ?? -1) }
        // A keyframe before an edit list's start is flagged to be decoded, not shown: its group leads up to the first
        // frame shown. Decoded alone it is the picture at the start (a stream copy cut from a long GOP may have no
        // other keyframe); without this, keyframe thumbnails of such a cut found no frame at all.
        if keyframesOnly, packet.isKeyFrame { packet.showEvenIfDiscarded() }
        do {
            packetsSent += 1
            _ = try decoder.send(packet)
            if keyframesOnly && packet.isKeyFrame {
                draining = true
                _ = try decoder.send(nil)
            }
        } catch let error as MediaError where error.code != .outOfMemory {
            // Corrupt data: the decoder skips the packet and resynchronises at the next one.
            try rejected(at: presentationTime)
        }
    }

    /// Counts a packet the decoder rejected as damaged data, unless its run of a stitched playlist is too large
    /// for `maxPixels`, which fails the input (`MediaFile.checkRunSize`).
    private func rejected(at presentationTime: Double?) throws {
        try file.checkRunSize(maxPixels: maxPixels)
        corruptPacketTimes.append(presentationTime ?? -1)
    }

    /// Repositions at the keyframe at or before `seconds` (stream time); the next frame read is that keyframe or
    /// the first decodable frame after it.
    /// Inputs that can't seek (image pipes, some streams) are reopened at the start instead, and exact reads
    /// decode forward from there.
    public func seek(toSeconds seconds: Double) throws {
        lastKeyframe = nil
        // At the start, reopening is exact whatever the container (a seek may land past the first keyframe).
        var positioned = false
        if seconds > info.startSeconds {
            do {
                if let playlist = segmentedPlaylist {
                    let run = file.run
                    file = try MediaFile.opened(playlist, at: seconds, analysis: file.analysis, maxPixels: maxPixels)
                    // Across a discontinuity the codec's parameters may change.
                    if file.run != run { decoder = try newDecoder() }
                } else {
                    try file.seek(toSeconds: seconds)
                    // A container with an index lands on the keyframe it lists, whatever its bytes say.
                    skippedToKeyframe = file.hasIndex || flagsNoKeyframes ? nil : 0
                    readsFromStart = false
                }
                decoder.flush()
                positioned = true
            } catch is MediaError {}  // this input can't seek: reopened below
        }
        if !positioned {
            file = try MediaFile.openedAtStart(segmentedPlaylist, analysis: file.analysis, maxPixels: maxPixels)
            decoder = try newDecoder()
            skippedToKeyframe = file.hasIndex || flagsNoKeyframes ? nil : 0
            readsFromStart = true
        }
        nextRun = nil
        countsAtPartStart = (framesDecoded, packetsSent)
        pending = nil
        draining = false
        drainedEarly = false
        targetFrameSent = false
        packetsSentAtSeek = packetsSent
        demuxerFinished = false
        finished = false
    }

    /// Of `corruptPacketTimes`, the damage that may show in `frame`, the frame this reader returned last: the
    /// packets from its GOP's keyframe up to it. Damage of unknown time (-1), or in a container without an index
    /// to find the keyframe by, counts only when recorded after the first `count` entries (the count taken before
    /// reading the frame): older damage would otherwise taint every later frame.
    public func damage(reaching frame: DecodedFrame, recordedAfter count: Int) -> [Double] {
        guard !corruptPacketTimes.isEmpty else { return [] }
        let keyframe = keyframeTime(atOrBefore: frame.timeSeconds)
        return corruptPacketTimes.enumerated().compactMap { index, time in
            let metReadingIt = index >= count
            guard time >= 0 else { return metReadingIt ? time : nil }
            guard time <= frame.timeSeconds else { return nil }
            guard let keyframe else { return metReadingIt ? time : nil }
            return time >= keyframe ? time : nil
        }
    }

    /// The frame on screen at stream time `seconds`: the last frame whose presentation time is at or before it
    /// (the first frame when `seconds` precedes the stream). `lastTime` is the time of the frame this reader
    /// returned last, if any: when the target lies ahead of it with no keyframe between, decoding simply goes on
    /// instead of seeking back to the same keyframe.
    ///
    /// `then` is what the caller reads next. When that read will seek anyway (a keyframe lies after this target,
    /// or nothing follows), the decoder is drained once every frame shown by the target is in, instead of
    /// decoding the frame after it, and the stream's reordering delay more, to learn where the target's frame ends.
    public func frame(at seconds: Double, lastTime: Double?, then next: NextRead = .unknown) throws -> DecodedFrame? {
        let keyframe = keyframeTime(atOrBefore: seconds)
        // The next read goes on from here only when it lies ahead with no keyframe between (see `lastTime`).
        let readsOn: Bool
        switch next {
        case .unknown: readsOn = true
        case .nothing: readsOn = false
        case .time(let time): readsOn = time >= seconds && keyframeTime(atOrBefore: time).map { $0 <= seconds } == true
        }
        drainAfter = readsOn || keyframesOnly ? nil : seconds + 5e-7
        targetFrameSent = false  // and at every seek: a backed-off one decodes the target again
        defer { drainAfter = nil }
        if let last = lastTime, last <= seconds, let keyframe, keyframe <= last, !drainedEarly {
            return try decode(until: seconds)
        }
        // Containers without an index (MPEG-TS) may seek past the keyframe the target needs, so the first frame
        // decoded comes after the target, or none does: back off further each time, down to reopening at the start.
        var seekTarget = seconds
        var backoff = 1.0
        while true {
            try seek(toSeconds: seekTarget)
            if let onScreen = try decode(until: seconds) { return onScreen }
            // Drained early, a decoder may hold back the only frame it had: an open GOP's keyframe cut from its group
            // by a stream copy, then a leading frame (no timestamp) that refers to the group before. Read it in full.
            if drainedEarly, pending == nil, drainAfter != nil {
                drainAfter = nil
                continue
            }
            if seekTarget <= info.startSeconds {
                defer { pending = nil }
                return pending
            }
            seekTarget = max(info.startSeconds, seekTarget - backoff)
            backoff *= 4
        }
    }

    /// Decodes from the current position up to `seconds`: the last frame at or before it, or nil when the first
    /// frame decoded is already past it (kept in `pending`).
    private func decode(until seconds: Double) throws -> DecodedFrame? {
        // Half a microsecond of slack absorbs the rounding of the container's time base.
        let target = seconds + 5e-7
        // The setting is read per packet, frame threads or not: FFmpeg's frame threading hands each packet's
        // thread the caller's skip_frame as it was when the packet was sent.
        if !keyframesOnly { fastForward = (target, -.infinity) }
        defer {
            fastForward = nil
            decoder.fastForwarding = false
        }
        var onScreen: DecodedFrame?
        while let frame = try nextFrame() {
            if frame.timeSeconds > target {
                pending = frame
                break
            }
            onScreen = frame
        }
        return onScreen
    }
}
