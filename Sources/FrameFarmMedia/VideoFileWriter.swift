import CFFmpeg
import Foundation
import FrameFarmCore

/// One picture as 8-bit limited-range Y, Cb and Cr planes, rows packed; chroma at the writer's subsampling.
public struct YCbCrPlanes: Sendable {
    public var luma: [UInt8]
    public var cb: [UInt8]
    public var cr: [UInt8]

    public init(luma: [UInt8], cb: [UInt8], cr: [UInt8]) {
        self.luma = luma
        self.cb = cb
        self.cr = cr
    }
}

/// Encodes pictures with libavcodec and muxes them with libavformat (no ffmpeg CLI needed); the container follows
/// the final name's extension. Owns the muxer, encoder and frame. Not thread-safe.
public final class VideoFileWriter {
    private let encoding: VideoEncoding
    private let output: UnsafeMutablePointer<AVFormatContext>
    private let codec: UnsafeMutablePointer<AVCodecContext>
    private let stream: UnsafeMutablePointer<AVStream>
    private let frame: UnsafeMutablePointer<AVFrame>
    private let packet = Packet()
    private let pixelFormat: AVPixelFormat
    /// The HLS muxer's key info file (`hlsKey`): read at every segment, so kept until the writer goes.
    private var keyInfoPath: String?
    /// The tags `encoding.colorTagsInContainerOnly` writes in the container, the encoder's left unspecified.
    private var containerTags: ColorTags?
    /// Luma pixels per chroma sample, across and down (2, 2 for 4:2:0).
    public let chromaSubsampling: (x: Int, y: Int)

    /// Writes to `path` (a temporary name, say) a file whose container follows `finalPath`'s extension.
    public init(path: String, finalPath: String, encoding: VideoEncoding) throws {
        FFmpegLog.configured
        self.encoding = encoding
        guard encoding.size.width >= 1, encoding.size.height >= 1 else {
            throw MediaError(call: "VideoFileWriter", code: .invalidArgument, message: "size must be at least 1x1")
        }
        var context: UnsafeMutablePointer<AVFormatContext>?
        // The muxer is chosen by the final name's extension (the temporary name ends in .tmp).
        try check("avformat_alloc_output_context2", avformat_alloc_output_context2(&context, nil, nil, finalPath))
        output = context!
        // The data goes to the temporary name, and muxers that reopen their output (the mov muxer moving its index
        // first) reopen `url`.
        av_free(output.pointee.url)
        output.pointee.url = av_strdup(path)
        let encoder = try Self.findEncoder(encoding.encoder, container: output.pointee.oformat,
                                           fragmented: encoding.fragmentedMP4Segments)
        guard let codecContext = avcodec_alloc_context3(encoder), let newStream = avformat_new_stream(output, nil),
              let newFrame = av_frame_alloc() else {
            throw MediaError.outOfMemory("avcodec_alloc_context3")
        }
        codec = codecContext
        stream = newStream
        frame = newFrame
        pixelFormat = try Self.choosePixelFormat(encoding.pixelFormat, encoder: encoder)
        let descriptor = av_pix_fmt_desc_get(pixelFormat)!.pointee
        chromaSubsampling = (1 << Int(descriptor.log2_chroma_w), 1 << Int(descriptor.log2_chroma_h))
        try configureCodec()
        try check("avcodec_open2", avcodec_open2(codec, nil, nil))
        try configureStream()
        try writeHeader(path: path, finalPath: finalPath)
    }

    deinit {
        var frameToFree: UnsafeMutablePointer<AVFrame>? = frame
        av_frame_free(&frameToFree)
        var codecToFree: UnsafeMutablePointer<AVCodecContext>? = codec
        avcodec_free_context(&codecToFree)
        if output.pointee.pb != nil, output.pointee.oformat.pointee.flags & AVFMT_NOFILE == 0 {
            avio_closep(&output.pointee.pb)
        }
        avformat_free_context(output)
        if let keyInfoPath { try? FileManager.default.removeItem(atPath: keyInfoPath) }
    }

    /// Encodes `picture`, shown at `seconds` (before `startSeconds` is added); pictures come in display order.
    public func write(_ picture: YCbCrPlanes, at seconds: Double) throws {
        try check("av_frame_make_writable", av_frame_make_writable(frame))
        fill(with: picture)
        if encoding.interlaced && encoding.fieldsFlagged { framefarm_frame_mark_interlaced_top_field_first(frame) }
        let ticksPerSecond = Double(timeBase.den) / Double(timeBase.num)
        frame.pointee.pts = Int64(((seconds + encoding.startSeconds) * ticksPerSecond).rounded())
        try send(frame)
    }

    /// Drains the encoder and writes the container's trailer; the file is complete after it.
    public func finish() throws {
        try send(nil)
        try check("av_write_trailer", av_write_trailer(output))
    }

    private var rate: AVRational {
        AVRational(num: Int32(encoding.frameRate.numerator), den: Int32(encoding.frameRate.denominator))
    }

    /// VFR needs a fine time base; CFR uses exactly one tick per frame.
    private var timeBase: AVRational {
        encoding.variableFrameRate ? AVRational(num: 1, den: 90_000) : AVRational(num: rate.den, den: rate.num)
    }

    private func configureCodec() throws {
        codec.pointee.time_base = timeBase
        codec.pointee.width = Int32(encoding.size.width)
        codec.pointee.height = Int32(encoding.size.height)
        codec.pointee.pix_fmt = pixelFormat
        codec.pointee.framerate = rate
        codec.pointee.sample_aspect_ratio = AVRational(num: Int32(encoding.sampleAspectRatio.numerator),
                                                        den: Int32(encoding.sampleAspectRatio.denominator))
        try configureColor()
        moveColorTagsToContainer()
        if let interval = encoding.keyframeIntervalSeconds {
            let frames = max(1, Int32((interval * Double(rate.num) / Double(rate.den)).rounded()))
            codec.pointee.gop_size = frames
            codec.pointee.keyint_min = frames
        }
        if let bFrames = encoding.bFrames { codec.pointee.max_b_frames = Int32(bFrames) }
        if let level = encoding.level { codec.pointee.level = Int32((level * 10).rounded()) }
        if encoding.interlaced && encoding.fieldsFlagged {
            codec.pointee.flags |= AV_CODEC_FLAG_INTERLACED_DCT | AV_CODEC_FLAG_INTERLACED_ME
            codec.pointee.field_order = AV_FIELD_TT
        }
        if output.pointee.oformat.pointee.flags & AVFMT_GLOBALHEADER != 0 && !carriesHeadersInBand {
            codec.pointee.flags |= AV_CODEC_FLAG_GLOBAL_HEADER
        }
        configureEncoderOptions()
    }

    /// HLS segments in MPEG-TS are each read alone, so each needs the codec's headers. The muxer repeats a global
    /// header at every keyframe for H.264 and HEVC only; other encoders (MPEG-4 Part 2) must write theirs in the
    /// stream, which they do without the global-header flag (with it, every segment was undecodable).
    private var carriesHeadersInBand: Bool {
        String(cString: output.pointee.oformat.pointee.name) == "hls" && !encoding.fragmentedMP4Segments
            && ![AV_CODEC_ID_H264, AV_CODEC_ID_HEVC].contains(codec.pointee.codec_id)
    }

    /// BT.709 from 720 lines up, SMPTE 170M below, or the HDR tags asked for.
    private func configureColor() throws {
        let high = encoding.size.height >= 720
        codec.pointee.color_range = pixelFormatIsFullRange ? AVCOL_RANGE_JPEG : AVCOL_RANGE_MPEG
        codec.pointee.colorspace = high ? AVCOL_SPC_BT709 : AVCOL_SPC_SMPTE170M
        codec.pointee.color_primaries = high ? AVCOL_PRI_BT709 : AVCOL_PRI_SMPTE170M
        codec.pointee.color_trc = high ? AVCOL_TRC_BT709 : AVCOL_TRC_SMPTE170M
        if !encoding.colorTagged {
            codec.pointee.colorspace = AVCOL_SPC_UNSPECIFIED
            codec.pointee.color_primaries = AVCOL_PRI_UNSPECIFIED
            codec.pointee.color_trc = AVCOL_TRC_UNSPECIFIED
        }
        guard let transfer = encoding.hdrTransfer else { return }
        guard transfer.isHDR else {
            throw MediaError(call: "VideoFileWriter", code: .invalidArgument,
                             message: "HDR transfer must be pq or hlg, not \(transfer.rawValue)")
        }
        codec.pointee.colorspace = AVCOL_SPC_BT2020_NCL
        codec.pointee.color_primaries = AVCOL_PRI_BT2020
        codec.pointee.color_trc = transfer == .pq ? AVCOL_TRC_SMPTE2084 : AVCOL_TRC_ARIB_STD_B67
    }

    /// With `encoding.colorTagsInContainerOnly`, moves the colour tags from the encoder to `containerTags`.
    private func moveColorTagsToContainer() {
        guard encoding.colorTagsInContainerOnly else { return }
        var parameters = AVCodecParameters()
        (parameters.color_space, parameters.color_primaries, parameters.color_trc, parameters.color_range)
            = (codec.pointee.colorspace, codec.pointee.color_primaries, codec.pointee.color_trc, codec.pointee.color_range)
        containerTags = ColorTags(parameters)
        codec.pointee.colorspace = AVCOL_SPC_UNSPECIFIED
        codec.pointee.color_primaries = AVCOL_PRI_UNSPECIFIED
        codec.pointee.color_trc = AVCOL_TRC_UNSPECIFIED
    }

    private func configureEncoderOptions() {
        let encoderName = String(cString: codec.pointee.codec.pointee.name)
        guard encoderName.hasPrefix("libx26") else {
            codec.pointee.bit_rate = Int64(encoding.size.area) * 4
            codec.pointee.qmax = 10
            return
        }
        av_opt_set(codec.pointee.priv_data, "preset", encoding.preset, 0)
        av_opt_set(codec.pointee.priv_data, "crf", "23", 0)
        // x265 prints its banner and statistics on stderr whatever FFmpeg's log level; a fixed keyframe
        // interval means no extra keyframes at scene cuts. Each encoder takes its own parameter option.
        var parameters = encoderName == "libx265" ? ["log-level=error"] : []
        // x265 takes no `level` from FFmpeg: its own parameter (it wrote level 2 whatever was asked).
        if encoderName == "libx265", let level = encoding.level { parameters.append(String(format: "level-idc=%g", level)) }
        if encoding.keyframeIntervalSeconds != nil { parameters.append("scenecut=0") }
        if !encoding.adaptiveBFrames { parameters.append("b-adapt=0") }
        if encoding.hdrPeakInStream, encoderName == "libx265", let peak = encoding.hdrPeakLuminance {
            parameters += ["hdr10=1", "max-cll=\(peak),\(peak / 4)"]
        }
        if !parameters.isEmpty {
            av_opt_set(codec.pointee.priv_data, encoderName == "libx265" ? "x265-params" : "x264-params",
                       parameters.joined(separator: ":"), 0)
        }
    }

    /// Time base, rate, aspect ratio, and the side data: display matrix and content light level.
    private func configureStream() throws {
        try check("avcodec_parameters_from_context", avcodec_parameters_from_context(stream.pointee.codecpar, codec))
        containerTags?.write(to: stream.pointee.codecpar)
        stream.pointee.time_base = timeBase
        stream.pointee.avg_frame_rate = rate
        if let tag = encoding.codecTag {
            guard tag.utf8.count == 4 else {
                throw MediaError(call: "VideoFileWriter", code: .invalidArgument, message: "a codec tag has four characters, not \(tag)")
            }
            stream.pointee.codecpar.pointee.codec_tag = tag.utf8.reversed().reduce(0) { $0 << 8 | UInt32($1) }
        }
        stream.pointee.sample_aspect_ratio = codec.pointee.sample_aspect_ratio
        if encoding.rotation % 360 != 0 || encoding.mirrored {
            guard let data = framefarm_stream_new_side_data(stream, AV_PKT_DATA_DISPLAYMATRIX, 36) else {
                throw MediaError.outOfMemory("av_stream_new_side_data")
            }
            let matrix = UnsafeMutableRawPointer(data).assumingMemoryBound(to: Int32.self)
            // av_display_rotation_set(a) makes av_display_rotation_get return -a, which readers (ffmpeg's
            // autorotate and MediaFile) take as a clockwise turn by a. av_display_matrix_flip acts after the
            // matrix's rotation, and mirroring then turning by r is turning by -r then mirroring.
            av_display_rotation_set(matrix, Double(encoding.mirrored ? -encoding.rotation : encoding.rotation))
            if encoding.mirrored { av_display_matrix_flip(matrix, 1, 0) }
        }
        if let peak = encoding.hdrPeakLuminance, !encoding.hdrPeakInStream {
            let size = MemoryLayout<AVContentLightMetadata>.size
            guard let data = framefarm_stream_new_side_data(stream, AV_PKT_DATA_CONTENT_LIGHT_LEVEL, size) else {
                throw MediaError.outOfMemory("av_stream_new_side_data")
            }
            let light = UnsafeMutableRawPointer(data).assumingMemoryBound(to: AVContentLightMetadata.self)
            light.pointee.MaxCLL = UInt32(peak)
            light.pointee.MaxFALL = UInt32(peak / 4)
        }
    }

    private func writeHeader(path: String, finalPath: String) throws {
        if output.pointee.oformat.pointee.flags & AVFMT_NOFILE == 0 {
            try check("avio_open", avio_open(&output.pointee.pb, path, AVIO_FLAG_WRITE))
        }
        var muxerOptions: OpaquePointer?
        defer { av_dict_free(&muxerOptions) }
        // The mov muxer moves the index to the front when it finishes (other muxers ignore the flag).
        if encoding.indexFirst { av_dict_set(&muxerOptions, "movflags", "+faststart", 0) }
        if encoding.liveStream { av_dict_set(&muxerOptions, "live", "1", 0) }
        if String(cString: output.pointee.oformat.pointee.name) == "hls" {
            // A video-on-demand playlist whose segments sit beside it, named after its final name (the muxer would
            // name them after the temporary one), each starting on a keyframe.
            let final = URL(fileURLWithPath: finalPath)
            let stem = final.deletingPathExtension().lastPathComponent
            let folder = final.deletingLastPathComponent()
            let fragmented = encoding.fragmentedMP4Segments
            av_dict_set(&muxerOptions, "hls_segment_filename",
                        folder.appendingPathComponent(stem + (fragmented ? "-%03d.m4s" : "-%03d.ts")).path, 0)
            if fragmented {
                av_dict_set(&muxerOptions, "hls_segment_type", "fmp4", 0)
                av_dict_set(&muxerOptions, "hls_fmp4_init_filename", stem + "-init.mp4", 0)
            }
            if let key = encoding.hlsKey {
                guard key.count == 16 else {
                    throw MediaError(call: "VideoFileWriter", code: .invalidArgument, message: "an AES-128 key has 16 bytes")
                }
                let keyFile = folder.appendingPathComponent(stem + ".key").path
                try Data(key).write(to: URL(fileURLWithPath: keyFile))
                // The URI the playlist gives, then where the muxer reads the key.
                let info = path + ".keyinfo"
                try (stem + ".key\n" + keyFile + "\n").write(toFile: info, atomically: true, encoding: .utf8)
                keyInfoPath = info
                av_dict_set(&muxerOptions, "hls_key_info_file", info, 0)
            }
            av_dict_set(&muxerOptions, "hls_playlist_type", "vod", 0)
            av_dict_set(&muxerOptions, "hls_time", String(encoding.keyframeIntervalSeconds ?? 2), 0)
        }
        try check("avformat_write_header", avformat_write_header(output, &muxerOptions))
        frame.pointee.format = pixelFormat.rawValue
        frame.pointee.width = codec.pointee.width
        frame.pointee.height = codec.pointee.height
        try check("av_frame_get_buffer", av_frame_get_buffer(frame, 0))
    }

    private var pixelFormatIsFullRange: Bool {
        [AV_PIX_FMT_YUVJ420P, AV_PIX_FMT_YUVJ422P, AV_PIX_FMT_YUVJ444P].contains(pixelFormat)
    }

    /// Copies 8-bit planes into the AVFrame, widening to the pixel format's depth; full-range formats get their
    /// limited-range values expanded.
    private func fill(with planes: YCbCrPlanes) {
        let descriptor = av_pix_fmt_desc_get(pixelFormat)!.pointee
        let depth = Int(descriptor.comp.0.depth)
        let fullRange = pixelFormatIsFullRange
        let sources = [planes.luma, planes.cb, planes.cr]
        let planeCount = descriptor.nb_components == 1 ? 1 : 3
        let chromaShift = (Int(descriptor.log2_chroma_w), Int(descriptor.log2_chroma_h))
        withUnsafeMutablePointer(to: &frame.pointee.data) { dataTuple in
            withUnsafePointer(to: frame.pointee.linesize) { strideTuple in
                let data = UnsafeMutableRawPointer(dataTuple).assumingMemoryBound(to: UnsafeMutablePointer<UInt8>?.self)
                let strides = UnsafeRawPointer(strideTuple).assumingMemoryBound(to: Int32.self)
                for plane in 0..<planeCount {
                    let width = plane == 0 ? encoding.size.width : (encoding.size.width + (1 << chromaShift.0) - 1) >> chromaShift.0
                    let height = plane == 0 ? encoding.size.height : (encoding.size.height + (1 << chromaShift.1) - 1) >> chromaShift.1
                    let source = sources[plane]
                    let base = data[plane]!
                    let stride = Int(strides[plane])
                    if depth == 8, !fullRange {
                        source.withUnsafeBufferPointer { source in
                            for y in 0..<height { (base + y * stride).update(from: source.baseAddress! + y * width, count: width) }
                        }
                        continue
                    }
                    for y in 0..<height {
                        for x in 0..<width {
                            var value = Int(source[y * width + x])
                            if fullRange {
                                value = plane == 0 ? (value - 16) * 255 / 219 : 128 + (value - 128) * 255 / 224
                                value = min(255, max(0, value))
                            }
                            if depth > 8 {
                                let row = UnsafeMutableRawPointer(base + y * stride).assumingMemoryBound(to: UInt16.self)
                                row[x] = UInt16(value << (depth - 8))
                            } else {
                                base[y * stride + x] = UInt8(value)
                            }
                        }
                    }
                }
            }
        }
    }

    private func send(_ frame: UnsafeMutablePointer<AVFrame>?) throws {
        try check("avcodec_send_frame", avcodec_send_frame(codec, frame))
        while true {
            let step = try CodecStep.of("avcodec_receive_packet", avcodec_receive_packet(codec, packet.pointer))
            guard step == .ready else { return }
            av_packet_rescale_ts(packet.pointer, codec.pointee.time_base, stream.pointee.time_base)
            packet.pointer.pointee.stream_index = stream.pointee.index
            try check("av_interleaved_write_frame", av_interleaved_write_frame(output, packet.pointer))
        }
    }
}
