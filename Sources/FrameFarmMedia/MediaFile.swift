import CFFmpeg
import Foundation
import FrameFarmCore

/// Facts about a file's video stream, read from the container and codec parameters (no decoding).
public struct VideoStreamInfo: Sendable {
    public var containerName: String
    public var codecName: String
    public var pixelFormatName: String
    public var geometry: DisplayGeometry
    /// Frames per second (average), nil when the container doesn't say.
    public var frameRate: Double?
    /// Seconds; nil when neither the stream nor the container knows.
    public var durationSeconds: Double?
    public var startSeconds: Double
    public var color: ColorDescription
    public var bitRate: Int?
    /// Whether the stream says its frames are interlaced (any field order); nil when it doesn't say.
    public var interlaced: Bool?
    /// The codec's profile as FFmpeg names it ("High", "Main 10", "Profile 0"); nil when unknown.
    public var codecProfile: String?
    /// The codec's level as its specification numbers it (H.264 4.2, HEVC 5.0, AV1 5.1); nil when unknown.
    public var codecLevel: Double?
    /// The stream's four-character code in its container (MP4 sample entry: "avc1", "hvc1", "hev1"); nil
    /// when the container has none.
    public var codecTag: String?
    /// The colour tags the stream leaves unspecified, of "matrix", "primaries" and "transfer" (players then guess).
    public var untaggedColor: [String] = []
    /// The container as delivery rules name it: "mp4", "mov" (QuickTime brand), "mpegts", "webm" or "matroska",
    /// else FFmpeg's demuxer name.
    public var fileFormat: String
    /// For a multivariant HLS playlist or DASH manifest: the rendition read, and why; nil for other inputs.
    public var rendition: Rendition?
    /// How long the file runs before the video's first frame: its audio starts first. Players' seek bars and
    /// `ffmpeg -ss` count from the file's start, so the times outputs give do too. 0 for playlists and manifests,
    /// whose timeline is their segments'.
    public var leadSeconds = 0.0
    /// Renditions of a multivariant playlist left out of its ladder, each as why (their playlists could not be
    /// read), as players skip them; `rendition` counts those read.
    public var skippedRenditions: [String] = []
    /// The audio streams beside the video (`MediaFile.audioTracks`).
    public var audioTracks: [ProbeReport.AudioTrack] = []
}

/// What `avformat_find_stream_info` learnt about a file's video stream: which stream it is and its codec
/// parameters, as the first open of the file found them. Later opens of the same file (parallel decode chunks,
/// padding samples) start from it instead of analysing again, which decodes the stream's first frames (12 ms
/// of CPU per open for 1080p H.264, and a fresh frame pool). Immutable; thread-safe.
// Unchecked: it owns FFmpeg codec parameters (a C struct), never written after init.
public final class StreamAnalysis: @unchecked Sendable {
    public let path: String
    public let info: VideoStreamInfo
    let streamIndex: Int32
    /// A copy of the stream's parameters after analysis.
    let parameters: UnsafeMutablePointer<AVCodecParameters>

    init(path: String, info: VideoStreamInfo, streamIndex: Int32,
         parameters source: UnsafePointer<AVCodecParameters>) throws {
        guard let copy = avcodec_parameters_alloc() else {
            throw MediaError.outOfMemory("avcodec_parameters_alloc")
        }
        parameters = copy
        self.path = path
        self.info = info
        self.streamIndex = streamIndex
        try check("avcodec_parameters_copy", avcodec_parameters_copy(copy, source))
    }

    deinit {
        var toFree: UnsafeMutablePointer<AVCodecParameters>? = parameters
        avcodec_parameters_free(&toFree)
    }
}

/// Owns an opened container (AVFormatContext) and the index of its best video stream. Not thread-safe: use one
/// per thread (parallel chunks each open their own).
public final class MediaFile {
    /// A local path, or a remote input's name (`RemoteInput`): never a URL's query string.
    public let path: String
    /// What FFmpeg reads the input through (`OpenedInput`). Released after the container is closed: the container
    /// reads through its readers until then.
    private let input: OpenedInput
    private var isDASH: Bool { input.isDASH }
    /// A DASH representation's segments as a playlist FFmpeg reads from memory (see `SegmentedPlaylist`).
    var segmentedPlaylist: SegmentedPlaylist? { input.segmentedPlaylist }
    /// Packets read ahead of the next (`opened(_:at:...)`), handed out before any more are read.
    var packetsReadAhead: [Packet] = []
    /// For segments of a playlist opened alone (`MediaFile.part`), which they are.
    let part: PlaylistPart?
    /// Ticks added to every packet's timestamps (see `MediaFile.part`).
    private var timeOffset: Int64 = 0
    /// For a DASH period's segments, the stream times it shows (`SegmentedPlaylist.periods`): frames after are not
    /// shown, and one before shows from its start.
    var presentationWindow: Range<Double>?
    /// Video packets the demuxer has given.
    private var packetsRead = 0
    let context: UnsafeMutablePointer<AVFormatContext>
    let videoStreamIndex: Int32
    private let packet = Packet()
    /// The stream's analysis: this open's own, or the one it was given.
    public private(set) var analysis: StreamAnalysis!
    /// The rendition this open picked (see `pickRendition`).
    private var rendition: Rendition?
    /// Why renditions of a multivariant playlist were left out: their playlists could not be read.
    private var skippedRenditions: [InputError] = []

    /// Frames larger than this many pixels are refused before anything of their size is allocated
    /// (`--max-pixels`): 8192x8192 by default.
    public static let defaultMaxPixels = 8192 * 8192

    /// Opens `path` and finds its video stream; errors are InputError (user-facing) or MediaError.
    /// - Parameter analysis: an earlier open's analysis of this file, used instead of analysing again when the
    ///   container has a header that lists the same stream (not for headerless ones such as MPEG-TS, whose
    ///   streams appear as packets are read).
    /// - Parameter rendition: for a multivariant HLS playlist or DASH manifest, which rendition to read (the
    ///   highest when nil); a later open given `analysis` reads the same one.
    public convenience init(path: String, maxPixels: Int = MediaFile.defaultMaxPixels,
                            analysis known: StreamAnalysis? = nil, rendition request: RenditionRequest? = nil) throws {
        try self.init(path: path, maxPixels: maxPixels, analysis: known, rendition: request, part: nil)
    }

    /// Opens `path`, or with `part`, some segments of its media playlist (see `opened(_:at:...)`).
    init(path: String, maxPixels: Int, analysis known: StreamAnalysis?, rendition request: RenditionRequest?,
         part: PlaylistPart?) throws {
        self.path = path
        self.part = part
        FFmpegLog.configured
        if part == nil, !RemoteInput.isRemote(path) { try OpenedInput.checkNotAPipe(path) }
        // FFmpeg would fail on DRM with a key or decryption error that does not say why, and reload a live
        // playlist for as long as it grows (first opens only).
        if known == nil, PlaylistScan.isPlaylist(path), let refusal = PlaylistScan.refusal(path) { throw refusal }
        input = try part.map { try OpenedInput(part: $0) }
            ?? OpenedInput(path: path, request: request, known: known)
        rendition = input.rendition
        skippedRenditions = input.takeSkippedRenditions()
        let opened = input.context
        context = opened
        if let known, let (index, parameters) = MediaFile.stream(known, in: opened, path: path, isPart: part != nil) {
            videoStreamIndex = index
            // After a discontinuity, an initialization section of its own (fragmented MP4) may change the codec's
            // parameters; MPEG-TS segments carry theirs in the stream.
            let ownParameters = part.map { $0.playlist.playlist.run(of: 0).upperBound <= $0.segments.lowerBound } == true
                && parameters.pointee.extradata_size > 0 && parameters.pointee.width > 0
            // Every stored property is set, so deinit closes the context when this throws.
            if !ownParameters { try check("avcodec_parameters_copy", avcodec_parameters_copy(parameters, known.parameters)) }
            analysis = known
        } else {
            // Analysed once (a second avformat_find_stream_info on an HLS playlist crashes FFmpeg 5.1).
            var analysed: Int32?
            let analyse = { analysed = analysed ?? MediaFile.findStreamInfo(opened, maxPixels: maxPixels) }
            let picked: (stream: Int32, rendition: Rendition)?
            do {
                picked = try MediaFile.pickRendition(in: opened, known: part == nil ? known : nil, path: path,
                                                     request: request, skipped: skippedRenditions, analyse: analyse)
            } catch {
                var toClose: UnsafeMutablePointer<AVFormatContext>? = opened
                avformat_close_input(&toClose)
                throw error
            }
            rendition = picked?.rendition ?? rendition
            analyse()
            let infoCode = analysed!
            var bestStream = picked?.stream ?? Self.playedVideoStream(opened) ?? av_find_best_stream(opened, AVMEDIA_TYPE_VIDEO, -1, -1, nil, 0)
            // FFmpeg picks an attached picture (a music file's cover art) when there is no other video: a still
            // with a 90000-fps time base, not the file's video.
            if bestStream >= 0, opened.pointee.streams[Int(bestStream)]!.pointee.disposition & AV_DISPOSITION_ATTACHED_PIC != 0 {
                bestStream = -1
            }
            guard bestStream >= 0 else {
                // videoStreamIndex is unset, so deinit won't run: close here.
                var toClose: UnsafeMutablePointer<AVFormatContext>? = opened
                avformat_close_input(&toClose)
                // A ladder none of whose renditions' playlists could be read.
                try input.throwNestedFailure()
                if let first = skippedRenditions.first { throw first }
                if infoCode < 0 { throw InputError.notAVideo(MediaError.ffmpeg("avformat_find_stream_info", infoCode).message) }
                throw InputError.noVideoStream
            }
            videoStreamIndex = bestStream
        }
        let parameters = opened.pointee.streams[Int(videoStreamIndex)]!.pointee.codecpar!
        if Int(parameters.pointee.width) * Int(parameters.pointee.height) > maxPixels {
            throw InputError.tooLarge(width: Int(parameters.pointee.width), height: Int(parameters.pointee.height),
                                      maxPixels: maxPixels)
        }
        if analysis == nil {
            // Part of a playlist keeps the whole one's analysis: its start and stream index are the input's. An
            // input analysed again (an HLS playlist, whose streams FFmpeg finds as it reads) keeps what the first
            // open learnt of it (a stitched programme's picture, `FrameReader.programmeGeometry`).
            let info = known.flatMap { $0.path == path ? $0.info : nil } ?? analysedInfo
            analysis = try (part != nil ? known : nil) ?? StreamAnalysis(path: path, info: info, streamIndex: videoStreamIndex,
                                                                          parameters: parameters)
        }
        for index in 0..<Int(opened.pointee.nb_streams) where index != Int(videoStreamIndex) {
            opened.pointee.streams[index]!.pointee.discard = AVDISCARD_ALL
        }
        // MPEG-PS and MPEG-TS need not give every frame a presentation time (FFmpeg's PS muxer leaves it out where
        // a frame starts inside a packet). FFmpeg then works it out from the next reference frame's decode time;
        // left to the decoder's guess, a keyframe decoded alone after a seek had none, and showed at time 0.
        if !hasIndex { opened.pointee.flags |= AVFMT_FLAG_GENPTS }
    }

    /// The parameters of `known`'s stream in a freshly opened `context`, when the container lists its streams in a
    /// header and that stream is the same codec; nil when the file must be analysed again.
    /// For part of a playlist (`isPart`: the streams of one rendition, which the hls demuxer made from its first
    /// segment, MPEG-TS ones too), the first video stream.
    private static func stream(_ known: StreamAnalysis, in context: UnsafeMutablePointer<AVFormatContext>, path: String,
                               isPart: Bool) -> (Int32, UnsafeMutablePointer<AVCodecParameters>)? {
        guard known.path == path, isPart || context.pointee.ctx_flags & AVFMTCTX_NOHEADER == 0 else { return nil }
        let index = isPart ? av_find_best_stream(context, AVMEDIA_TYPE_VIDEO, -1, -1, nil, 0) : known.streamIndex
        guard index >= 0, index < context.pointee.nb_streams,
              let parameters = context.pointee.streams[Int(index)]?.pointee.codecpar,
              parameters.pointee.codec_type == AVMEDIA_TYPE_VIDEO,
              parameters.pointee.codec_id == known.parameters.pointee.codec_id else { return nil }
        return (index, parameters)
    }

    deinit {
        var toClose: UnsafeMutablePointer<AVFormatContext>? = context
        avformat_close_input(&toClose)
    }

    /// avformat_find_stream_info decodes a little of every stream; its decoders get the same pixel limit, so a
    /// crafted header can't make them allocate a giant frame. A container's colour tags, which the analysis
    /// overwrites with the bitstream's (unspecified where it says nothing), stand where the bitstream's are
    /// unspecified (`ColorTags`).
    private static func findStreamInfo(_ context: UnsafeMutablePointer<AVFormatContext>, maxPixels: Int) -> Int32 {
        let count = Int(context.pointee.nb_streams)
        var options = [OpaquePointer?](repeating: nil, count: max(1, count))
        for index in 0..<count { av_dict_set(&options[index], "max_pixels", String(maxPixels), 0) }
        defer { for index in 0..<count { av_dict_free(&options[index]) } }
        let containerTags = (0..<count).map { ColorTags(context.pointee.streams[$0]!.pointee.codecpar!.pointee) }
        let code = options.withUnsafeMutableBufferPointer { avformat_find_stream_info(context, $0.baseAddress) }
        for (index, container) in containerTags.enumerated() where index < Int(context.pointee.nb_streams) {
            let parameters = context.pointee.streams[index]!.pointee.codecpar!
            ColorTags(parameters.pointee).filled(from: container).write(to: parameters)
        }
        return code
    }

    var stream: UnsafeMutablePointer<AVStream> { context.pointee.streams[Int(videoStreamIndex)]! }
    var timeBase: AVRational { stream.pointee.time_base }

    func seconds(_ timestamp: Int64) -> Double {
        Double(timestamp) * Double(timeBase.num) / Double(timeBase.den)
    }

    /// `seconds` in the stream's time base, with half a microsecond of slack: a time summed in floating point (a
    /// start of 1.44 s plus a cue of 3 s) lands a hair below the tick it names, which would find the keyframe before.
    func timestamp(_ seconds: Double) -> Int64 {
        Int64(((seconds + 5e-7) * Double(timeBase.den) / Double(timeBase.num)).rounded(.down))
    }

    /// The stream's facts, as the file's first open analysed them.
    public var info: VideoStreamInfo { analysis.info }

    private var analysedInfo: VideoStreamInfo {
        let parameters = stream.pointee.codecpar!.pointee
        let codecName = avcodec_get_name(parameters.codec_id).map { String(cString: $0) } ?? "unknown"
        let format = AVPixelFormat(rawValue: parameters.format)
        let pixelFormatName = av_get_pix_fmt_name(format).map { String(cString: $0) } ?? "unknown"
        var sar = parameters.sample_aspect_ratio
        if sar.num <= 0 || sar.den <= 0 { sar = stream.pointee.sample_aspect_ratio }
        // Neither says (0:1, FFmpeg's "unknown"): square, as players show it.
        if sar.num <= 0 || sar.den <= 0 { sar = AVRational(num: 1, den: 1) }
        let geometry = DisplayGeometry(
            codedSize: PixelSize(width: Int(parameters.width), height: Int(parameters.height)),
            sampleAspectRatio: SampleAspectRatio(Int(sar.num), Int(sar.den)),
            transform: displayTransform)
        let rate = stream.pointee.avg_frame_rate.den > 0 && stream.pointee.avg_frame_rate.num > 0
            ? stream.pointee.avg_frame_rate : stream.pointee.r_frame_rate
        let frameRate = rate.den > 0 && rate.num > 0 ? Double(rate.num) / Double(rate.den) : nil
        let color = FrameColor.describe(space: parameters.color_space, range: parameters.color_range,
                                        transfer: parameters.color_trc, primaries: parameters.color_primaries,
                                        location: parameters.chroma_location, pixelFormat: format,
                                        height: Int(parameters.height), peakLuminance: peakLuminance)
        let start = stream.pointee.start_time == framefarm_av_nopts_value() ? 0 : seconds(stream.pointee.start_time)
        return VideoStreamInfo(
            containerName: isDASH ? "dash" : String(cString: context.pointee.iformat.pointee.name),
            codecName: codecName, pixelFormatName: pixelFormatName, geometry: geometry,
            frameRate: frameRate, durationSeconds: videoDuration(videoStart: start), startSeconds: start, color: color,
            bitRate: parameters.bit_rate > 0 ? Int(parameters.bit_rate) : nil,
            interlaced: parameters.field_order == AV_FIELD_UNKNOWN ? nil : parameters.field_order != AV_FIELD_PROGRESSIVE,
            codecProfile: avcodec_profile_name(parameters.codec_id, parameters.profile).map { String(cString: $0) },
            codecLevel: Self.level(parameters.level, codec: parameters.codec_id),
            codecTag: Self.fourCharacterCode(parameters.codec_tag),
            // An RGB picture (GIF, PNG, RGB codecs) has no matrix, and untagged it is sRGB to every player and
            // browser: nothing is guessed.
            untaggedColor: color.matrix == .rgb ? []
                : [("matrix", parameters.color_space == AVCOL_SPC_UNSPECIFIED),
                   ("primaries", parameters.color_primaries == AVCOL_PRI_UNSPECIFIED),
                   ("transfer", parameters.color_trc == AVCOL_TRC_UNSPECIFIED)].filter(\.1).map(\.0),
            fileFormat: fileFormat, rendition: rendition, leadSeconds: leadSeconds(videoStart: start),
            skippedRenditions: skippedRenditions.map(\.description), audioTracks: audioTracks)
    }

    /// Of several video streams, the one players show: the first flagged default (an MP4 track enabled), else the
    /// first, cover art aside. FFmpeg's pick is the one with the most bits, which no player shows first. Nil with
    /// one video stream or none (FFmpeg's pick then).
    private static func playedVideoStream(_ context: UnsafeMutablePointer<AVFormatContext>) -> Int32? {
        let streams = (0..<Int(context.pointee.nb_streams)).map { context.pointee.streams[$0]!.pointee }
        let videos = streams.indices.filter { index in
            let stream = streams[index]
            return stream.codecpar.pointee.codec_type == AVMEDIA_TYPE_VIDEO && stream.codecpar.pointee.width > 0
                && stream.disposition & AV_DISPOSITION_ATTACHED_PIC == 0
        }
        guard videos.count > 1 else { return nil }
        return Int32(videos.first { streams[$0].disposition & AV_DISPOSITION_DEFAULT != 0 } ?? videos[0])
    }

    /// See `VideoStreamInfo.leadSeconds`: from the file's start, its earliest stream's first timestamp, as
    /// `ffmpeg -ss` counts (a recording's clock, 10 s say, is no lead; nor is an MP4 edit list's empty start where
    /// every stream has it).
    private func leadSeconds(videoStart: Double) -> Double {
        let demuxer = String(cString: context.pointee.iformat.pointee.name)
        guard !isDASH, demuxer != "hls" else { return 0 }
        let fileStart = context.pointee.start_time
        guard fileStart != framefarm_av_nopts_value() else { return 0 }
        return max(0, videoStart - Double(fileStart) / Double(AV_TIME_BASE))
    }

    /// `level` as the codec's specification writes it: H.264 and VP9 store ten times it, HEVC thirty times
    /// (general_level_idc), AV1 an index (seq_level_idx 13 is level 5.1).
    private static func level(_ level: Int32, codec: AVCodecID) -> Double? {
        guard level > 0, level != FF_LEVEL_UNKNOWN else { return nil }
        switch codec {
        case AV_CODEC_ID_H264, AV_CODEC_ID_VP9: return Double(level) / 10
        case AV_CODEC_ID_HEVC: return (Double(level) / 30 * 10).rounded() / 10
        case AV_CODEC_ID_AV1: return Double(2 + level / 4) + Double(level % 4) / 10
        default: return nil
        }
    }

    /// A container's codec tag as its four characters, when they are printable.
    static func fourCharacterCode(_ tag: UInt32) -> String? {
        let bytes = (0..<4).map { UInt8((tag >> (8 * $0)) & 0xFF) }
        guard tag != 0, bytes.allSatisfy({ (0x20...0x7E).contains($0) }) else { return nil }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// See `VideoStreamInfo.fileFormat`. FFmpeg reads MP4 and QuickTime with one demuxer, and Matroska and WebM
    /// with another: the major brand and the name tell them apart.
    private var fileFormat: String {
        if isDASH { return "dash" }
        let demuxer = String(cString: context.pointee.iformat.pointee.name)
        if demuxer.hasPrefix("mov,") {
            let brand = av_dict_get(context.pointee.metadata, "major_brand", nil, 0).map { String(cString: $0.pointee.value) }
            return brand?.trimmingCharacters(in: .whitespaces) == "qt" ? "mov" : "mp4"
        }
        if demuxer.hasPrefix("matroska") { return path.lowercased().hasSuffix(".webm") ? "webm" : "matroska" }
        return demuxer.split(separator: ",").first.map(String.init) ?? demuxer
    }

    /// The video's duration from the stream, else from the container's less what comes before the video's first
    /// frame (at `videoStart`); nil when neither knows (see `scanDuration`).
    private func videoDuration(videoStart: Double) -> Double? {
        if stream.pointee.duration > 0, stream.pointee.duration != framefarm_av_nopts_value() {
            return seconds(stream.pointee.duration)
        }
        guard context.pointee.duration > 0, context.pointee.duration != framefarm_av_nopts_value() else { return nil }
        let duration = Double(context.pointee.duration) / Double(AV_TIME_BASE)
        // Matroska's Duration is where the segment's timeline ends, and that timeline starts at 0 whatever the
        // first timestamp: a recording that kept its start of 10 s says 20 s for 10 s of video. Another container's
        // runs from its earliest stream's start: the audio's, when it starts first.
        let before = fileFormat == "matroska" || fileFormat == "webm" ? max(0, videoStart) : leadSeconds(videoStart: videoStart)
        return max(0, duration - before)
    }

    /// HDR peak from the container's metadata (MP4 `clli`/`mdcv`, Matroska's colour elements).
    private var peakLuminance: Double? {
        // The side data's bytes when they are at least a `T`.
        func sideData<T>(_ type: AVPacketSideDataType, as _: T.Type) -> UnsafeRawPointer? {
            var size = 0
            guard let data = framefarm_stream_side_data(stream, type, &size), size >= MemoryLayout<T>.size else { return nil }
            return UnsafeRawPointer(data)
        }
        return FrameColor.peakLuminance(
            contentLight: sideData(AV_PKT_DATA_CONTENT_LIGHT_LEVEL, as: AVContentLightMetadata.self),
            mastering: sideData(AV_PKT_DATA_MASTERING_DISPLAY_METADATA, as: AVMasteringDisplayMetadata.self))
    }

    private var displayTransform: DisplayTransform {
        var size: Int = 0
        guard let data = framefarm_stream_side_data(stream, AV_PKT_DATA_DISPLAYMATRIX, &size), size >= 36 else {
            return .identity
        }
        var matrix = [Int32](UnsafeRawBufferPointer(start: data, count: 36).bindMemory(to: Int32.self))
        // A negative determinant of the 2x2 part means the matrix mirrors the picture.
        let mirrored = Double(matrix[0]) * Double(matrix[4]) - Double(matrix[1]) * Double(matrix[3]) < 0
        guard mirrored else {
            let counterClockwise = av_display_rotation_get(matrix)
            return counterClockwise.isFinite ? DisplayTransform(rotation: Int((-counterClockwise).rounded())) : .identity
        }
        // A mirroring matrix is a turn followed by a flip (as ffmpeg's autorotate reads it). Taking the flip off
        // leaves the turn, clockwise by -get; flipping after turning by a is mirroring first, then turning by -a.
        av_display_matrix_flip(&matrix, 1, 0)
        let counterClockwise = av_display_rotation_get(matrix)
        guard counterClockwise.isFinite else { return .identity }
        return DisplayTransform(rotation: Int(counterClockwise.rounded()), mirrored: true)
    }

    /// Reads the next packet of the video stream; nil at end of file. A file's read errors are taken as its end (a
    /// truncated file still gives what it has); a remote input's connection failing for good throws rather than
    /// leave a track silently short.
    func readVideoPacket() throws -> Packet? {
        if !packetsReadAhead.isEmpty { return packetsReadAhead.removeFirst() }
        while true {
            packet.unreference()
            let code = av_read_frame(context, packet.pointer)
            // A segment skipped would leave its part of the video showing the frame before it.
            try input.throwNestedFailure()
            if code < 0 {
                if let failure = input.remoteReader?.failure { throw failure }
                // Segments after a discontinuity that hold no video FFmpeg can read (MPEG-TS under an earlier
                // fragmented-MP4 `#EXT-X-MAP`) would leave the frame before them on screen.
                if let part, packetsRead == 0 { throw part.failure("no video could be read from it") }
                return nil
            }
            guard packet.streamIndex == videoStreamIndex else { continue }
            packetsRead += 1
            if timeOffset != 0 { packet.shiftTimestamps(by: timeOffset) }
            return packet
        }
    }

    /// Moves every packet's timestamps, those read ahead and those still to be read, `seconds` later.
    func shiftTimestamps(by seconds: Double) {
        let ticks = Int64((seconds * Double(timeBase.den) / Double(timeBase.num)).rounded())
        guard ticks != 0 else { return }
        timeOffset += ticks
        for packet in packetsReadAhead { packet.shiftTimestamps(by: ticks) }
    }

    /// Seeks so that the next packet read is the keyframe at or before `seconds`.
    func seek(toSeconds seconds: Double) throws {
        try check("av_seek_frame", av_seek_frame(context, videoStreamIndex, timestamp(seconds), AVSEEK_FLAG_BACKWARD))
    }
}
