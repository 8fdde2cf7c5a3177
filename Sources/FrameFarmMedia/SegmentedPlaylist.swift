import CFFmpeg
import Foundation
import FrameFarmCore

/// The HLS media playlist that an input reads, which is sought by opening it again from the segment that holds the
/// target (`MediaFile.opened(_:at:...)`). FFmpeg 5.1's hls demuxer seeks fragmented-MP4 segments to garbage (its MP4
/// demuxer keeps the sample tables of the fragments read before the seek and reads on from them in the new
/// segment's bytes: "Invalid NAL unit size", `--seek keyframe` got frame 0 or no frame at all), and MPEG-TS ones to
/// the first keyframe of the target's segment, which may come after the target or long before it.
struct SegmentedPlaylist: Sendable {
    /// The media playlist's name: the input's, or for a multivariant playlist its rendition's (a remote one
    /// registered with the input's query, as the nested opener registers it).
    let name: String
    let playlist: HLSMediaPlaylist
    /// Whether it is a DASH representation's segments (failures then name the manifest).
    var isManifest = false
    /// Seconds added to the timestamps of the run of segments (`HLSMediaPlaylist.run(of:)`) starting at each
    /// segment, once learnt (see `MediaFile.part`).
    let runOffsets = Locked<[Int: Double]>([:])
    /// Runs whose frame size `MediaFile.checkRunSize` has measured.
    let sizedRuns = Locked<Set<Int>>([])
    /// For a DASH manifest, how each run (period) is placed: the time of its own timestamps at
    /// which it starts, and how long it shows. Its runs are then placed as the manifest says, and each shows only
    /// its period (`MediaFile.presentationWindow`), where an HLS playlist's are placed by their first timestamps.
    /// Its segments may hold more: a programme cut for an advertisement mid-segment goes on past the period's end,
    /// and resumes from a segment that starts before it.
    let periods: [DASHManifest.PeriodTiming]?

    init(name: String, playlist: HLSMediaPlaylist, isManifest: Bool = false, periods: [DASHManifest.PeriodTiming]? = nil) {
        self.name = name
        self.playlist = playlist
        self.isManifest = isManifest
        self.periods = periods
    }

    /// Whether it is opened a run at a time, each placed on the timeline (`MediaFile.part`): a playlist of several
    /// runs, or a DASH representation, whose first period may start inside its first segment.
    var opensByRun: Bool { playlist.hasDiscontinuities || periods != nil }

    /// The DASH period (`periods`) whose run starts at segment `runStart`.
    func period(startingAt runStart: Int) -> DASHManifest.PeriodTiming? {
        let index = playlist.segments[...runStart].filter(\.startsDiscontinuity).count
        return periods.flatMap { $0.indices.contains(index) ? $0[index] : nil }
    }

    /// The media playlist that `file` reads, when it is an HLS playlist (or a DASH representation made one); nil
    /// for any other input, or when the playlist cannot be read here.
    static func read(by file: MediaFile) -> SegmentedPlaylist? {
        if let own = file.segmentedPlaylist { return own }
        let context = file.context, path = file.path
        // A ladder read without renditions that cannot be read numbers its variants as FFmpeg read them.
        guard String(cString: context.pointee.iformat.pointee.name) == "hls",
              let (text, base) = LadderRepair.known(path).map({ ($0.text, $0.base) }) ?? PlaylistScan.text(path) else { return nil }
        var name = base, media = text
        if text.contains("#EXT-X-STREAM-INF") {
            // FFmpeg's hls demuxer makes a program per variant, numbered in the playlist's order.
            // A variant whose video is an `#EXT-X-MEDIA` rendition has an address that is not the video's playlist.
            let variants = PlaylistScan.variants(in: text)
            guard let variant = MediaFile.program(of: file.videoStreamIndex, in: context).map({ Int($0.id) }),
                  variants.indices.contains(variant), !variants[variant].tag.contains("VIDEO=\"") else { return nil }
            let resolved = PlaylistScan.resolve(variants[variant].address, against: base)
            name = RemoteInput.isRemote(resolved) ? RemoteInput.registerNested(resolved, within: base) : resolved
            // What it names is relative to where its redirects led.
            guard let nested = PlaylistScan.text(name) else { return nil }
            (media, name) = (nested.text, nested.base)
        }
        guard let playlist = HLSMediaPlaylist(media) else { return nil }
        return SegmentedPlaylist(name: name, playlist: playlist)
    }
}

/// Segments of a playlist that FFmpeg reads as a playlist of their own (`OpenedInput(part:)`).
struct PlaylistPart {
    let playlist: SegmentedPlaylist
    let segments: Range<Int>

    /// The part's first segment failing for `reason`, named as a missing one is.
    func failure(_ reason: String) -> InputError {
        let address = playlist.playlist.address(of: segments.lowerBound)
        let resolved = PlaylistScan.resolve(address, against: playlist.name)
        // A remote one without its query (a token); a local one as the file it names.
        return .segmentFailed(segment: RemoteInput.isRemote(resolved) ? RemoteInput.name(of: resolved) : resolved.removingPercentEncoding ?? resolved,
                              reason: reason, inManifest: playlist.isManifest)
    }
}

extension MediaFile {
    /// `playlist`, the media playlist of `known`'s input, opened so that the next packet read is the keyframe at or
    /// before `seconds` (see `SegmentedPlaylist`): from the segment its durations put `seconds` in, or an earlier
    /// one of its run when that segment starts later than they say or holds no keyframe before `seconds`. The
    /// packets from the segment's start up to that keyframe are read and dropped, and those read past it are kept
    /// for `readVideoPacket`.
    static func opened(_ playlist: SegmentedPlaylist, at seconds: Double, analysis known: StreamAnalysis,
                       maxPixels: Int) throws -> MediaFile {
        let segments = playlist.playlist
        var first = segments.segment(holding: seconds, firstStart: known.info.startSeconds), step = 1
        let run = segments.run(of: first)
        while true {
            let file = try part(PlaylistPart(playlist: playlist, segments: first..<run.upperBound), analysis: known,
                                maxPixels: maxPixels)
            // Two segments past the target at most: a playlist whose durations are wrong would otherwise be read
            // to its end.
            let reach = seconds - segments.start(of: first, firstStart: known.info.startSeconds) + 2 * segments.longestDuration + 1
            if try file.readAhead(toKeyframeAtOrBefore: seconds, reaching: reach) || first == run.lowerBound { return file }
            // No keyframe there yet: twice as far back each time, so a long group of pictures in short segments
            // costs a few opens, not one per segment.
            first = max(run.lowerBound, first - step)
            step *= 2
        }
    }

    /// The input from its start: for a playlist divided by discontinuities, its first run of segments (see `part`).
    static func openedAtStart(_ playlist: SegmentedPlaylist?, analysis known: StreamAnalysis, maxPixels: Int) throws -> MediaFile {
        guard let playlist, playlist.opensByRun else {
            return try MediaFile(path: known.path, maxPixels: maxPixels, analysis: known)
        }
        return try part(PlaylistPart(playlist: playlist, segments: playlist.playlist.run(of: 0)), analysis: known,
                        maxPixels: maxPixels)
    }

    /// For segments of a playlist opened alone, the first segment of their run (`HLSMediaPlaylist.run(of:)`).
    var run: Int? { part.map { $0.playlist.playlist.run(of: $0.segments.lowerBound).lowerBound } }

    /// For part of a playlist whose decoder rejected a packet: fails, naming the run's first segment and the limit,
    /// when the run's frames have more than `maxPixels` pixels (an advertisement larger than the programme). A part
    /// keeps the input's analysis, made on its first run, so its decoder learns a later run's size only when it
    /// refuses the frames; left alone, those frames would count as damaged data and the run show the frame
    /// before it. The run's first segment is analysed alone, once per run.
    func checkRunSize(maxPixels: Int) throws {
        guard let part, let run, run > 0, part.playlist.sizedRuns.withLock({ $0.insert(run).inserted }) else { return }
        let first = PlaylistPart(playlist: part.playlist, segments: run..<(run + 1))
        do {
            _ = try MediaFile(path: path, maxPixels: maxPixels, analysis: nil, rendition: nil, part: first)
        } catch let error as InputError {
            if case .tooLarge = error { throw first.failure(error.description) }
        }
    }

    /// For part of a playlist that ends at a discontinuity, the next run of segments, opened; nil at the end.
    func openedNextRun(maxPixels: Int) throws -> MediaFile? {
        guard let part, part.segments.upperBound < part.playlist.playlist.segments.count else { return nil }
        let next = part.playlist.playlist.run(of: part.segments.upperBound)
        return try MediaFile.part(PlaylistPart(playlist: part.playlist, segments: next), analysis: analysis,
                                  maxPixels: maxPixels)
    }

    /// Segments of one run of `known`'s playlist, opened and placed on the playlist's timeline as players place
    /// them. After a discontinuity the timestamps may start again (an advertisement stitched in, usually from 0
    /// or 10 s), so FFmpeg, which reads across it unchanged, showed the last frame before it for the rest of the
    /// video. A run whose first timestamp lies more than half a segment from where the durations before it end
    /// is moved there, as hls.js and Safari move it; one that carries on the timeline is left as it is.
    /// A discontinuity also ends what one open of the playlist reads (`openedNextRun`), so each run gets a decoder
    /// of its own, in case its codec parameters change.
    /// A run whose own parameters (a fragmented-MP4 initialization section) give frames larger than `maxPixels`
    /// fails the input naming the segment.
    static func part(_ part: PlaylistPart, analysis known: StreamAnalysis, maxPixels: Int) throws -> MediaFile {
        do {
            return try placed(part, analysis: known, maxPixels: maxPixels)
        } catch let error as InputError {
            if case .tooLarge = error { throw part.failure(error.description) }
            throw error
        }
    }

    private static func placed(_ part: PlaylistPart, analysis known: StreamAnalysis, maxPixels: Int) throws -> MediaFile {
        let file = try MediaFile(path: known.path, maxPixels: maxPixels, analysis: known, rendition: nil, part: part)
        let segments = part.playlist.playlist
        let run = segments.run(of: part.segments.lowerBound), runStart = run.lowerBound
        let expected = segments.start(of: runStart, firstStart: known.info.startSeconds)
        let period = part.playlist.period(startingAt: runStart)
        if let period {
            let end = period.shownSeconds.map { expected + $0 } ?? segments.start(of: run.upperBound, firstStart: known.info.startSeconds)
            file.presentationWindow = expected..<end
        }
        // The first run of an HLS playlist sets the timeline; a DASH period's first may start before its offset.
        guard runStart > 0 || period != nil else { return file }
        let learnt = part.playlist.runOffsets.withLock { $0[runStart] }
        let offset = try learnt ?? {
            // The run's first time: from this open's first packet, or a one-segment open of the run's start.
            let measured = runStart == part.segments.lowerBound ? file : try MediaFile(
                path: known.path, maxPixels: maxPixels, analysis: known, rendition: nil,
                part: PlaylistPart(playlist: part.playlist, segments: runStart..<(runStart + 1)))
            guard let packet = try measured.readVideoPacket(),
                  let first = (packet.presentationTimestamp ?? packet.decodeTimestamp).map(measured.seconds) else { return 0 }
            if measured === file { file.packetsReadAhead = [Packet(moving: packet)] }
            let offset: Double
            if let period, abs(first - period.presentationTimeOffset) <= segments.longestDuration {
                // A DASH period starts at its `@presentationTimeOffset`, which may lie inside its first segment.
                offset = expected - period.presentationTimeOffset
            } else {
                // A DASH period whose media disagrees with its offset is moved as a run of HLS is.
                offset = abs(expected - first) > segments.longestDuration / 2 || period != nil ? expected - first : 0
            }
            part.playlist.runOffsets.withLock { $0[runStart] = offset }
            return offset
        }()
        file.shiftTimestamps(by: offset)
        return file
    }

    /// Reads packets up to the last keyframe presented at or before `seconds` and keeps those from it on; false
    /// when there is none (all packets read are kept). Reading stops at the first packet decoded after `seconds`
    /// (a keyframe after it is also presented after it), or `reach` seconds after the first packet.
    private func readAhead(toKeyframeAtOrBefore seconds: Double, reaching reach: Double) throws -> Bool {
        let target = timestamp(seconds)
        var kept: [Packet] = [], found = false, firstDecoded: Int64?
        while let read = try readVideoPacket() {
            let copy = Packet(moving: read)
            let presented = copy.presentationTimestamp ?? copy.decodeTimestamp
            if copy.isKeyFrame, let presented, presented <= target {
                kept.removeAll()
                found = true
            }
            kept.append(copy)
            guard let decoded = copy.decodeTimestamp ?? presented else { continue }
            firstDecoded = firstDecoded ?? decoded
            if decoded > target || self.seconds(decoded - firstDecoded!) > reach { break }
        }
        packetsReadAhead = kept
        return found
    }
}
