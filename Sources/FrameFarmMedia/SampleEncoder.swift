import CFFmpeg
import Foundation
import FrameFarmCore

/// Owns the muxer, encoder and frame used to write one sample video. Not thread-safe.
final class SampleEncoder {
    private let options: SampleOptions
    private let output: UnsafeMutablePointer<AVFormatContext>
    private let codec: UnsafeMutablePointer<AVCodecContext>
    private let stream: UnsafeMutablePointer<AVStream>
    private let frame: UnsafeMutablePointer<AVFrame>
    private let packet = Packet()
    private let pattern: SamplePattern
    private var frames: SampleFrames { SampleFrames(pattern: pattern, options: options) }
    private let pixelFormat: AVPixelFormat

    init(path: String, finalPath: String, options: SampleOptions) throws {
        FFmpegLog.configured
        self.options = options
        guard options.size.width >= 1, options.size.height >= 1, options.durationSeconds >= 0 else {
            throw MediaError(call: "sample", code: .invalidArgument, message: "size must be at least 1x1 and duration non-negative")
        }
        var context: UnsafeMutablePointer<AVFormatContext>?
        // The muxer is chosen by the final name's extension (the temporary name ends in .tmp).
        try check("avformat_alloc_output_context2", avformat_alloc_output_context2(&context, nil, nil, finalPath))
        output = context!
        // The data goes to the temporary name, and muxers that reopen their output (the mov muxer moving its index
        // first) reopen `url`.
        av_free(output.pointee.url)
        output.pointee.url = av_strdup(path)
        let encoder = try SampleEncoder.findEncoder(options.encoder)
        guard let codecContext = avcodec_alloc_context3(encoder), let newStream = avformat_new_stream(output, nil),
              let newFrame = av_frame_alloc() else {
            throw MediaError.outOfMemory("avcodec_alloc_context3")
        }
        codec = codecContext
        stream = newStream
        frame = newFrame
        pixelFormat = try SampleEncoder.choosePixelFormat(options.pixelFormat, encoder: encoder)
        let descriptor = av_pix_fmt_desc_get(pixelFormat)!.pointee
        pattern = SamplePattern(size: options.size, content: options.contentRect,
                                chromaSubsamplingX: 1 << Int(descriptor.log2_chroma_w),
                                chromaSubsamplingY: 1 << Int(descriptor.log2_chroma_h))
        try configure(path: path)
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
    }

    private static func findEncoder(_ name: String?) throws -> UnsafePointer<AVCodec> {
        if let name {
            guard let encoder = avcodec_find_encoder_by_name(name) else {
                throw MediaError(call: "avcodec_find_encoder_by_name", code: .invalidArgument, message: "no encoder named \(name)")
            }
            return encoder
        }
        return avcodec_find_encoder_by_name("libx264") ?? avcodec_find_encoder(AV_CODEC_ID_MPEG4)!
    }

    private static func choosePixelFormat(_ name: String?, encoder: UnsafePointer<AVCodec>) throws -> AVPixelFormat {
        var supported: [AVPixelFormat] = []
        if var list = framefarm_encoder_pixel_formats(encoder) {
            while list.pointee != AV_PIX_FMT_NONE {
                supported.append(list.pointee)
                list += 1
            }
        }
        guard let name else { return supported.first ?? AV_PIX_FMT_YUV420P }
        let format = av_get_pix_fmt(name)
        guard format != AV_PIX_FMT_NONE, supported.isEmpty || supported.contains(format) else {
            let names = supported.compactMap { av_get_pix_fmt_name($0).map { String(cString: $0) } }
            throw MediaError(call: "sample", code: .invalidArgument,
                             message: "encoder \(String(cString: encoder.pointee.name)) can't write \(name) (it takes \(names.joined(separator: ", ")))")
        }
        return format
    }

    private var isVariableFrameRate: Bool { options.variableFrameRate }
    private var frameDuration: Double { Double(options.frameRate.denominator) / Double(options.frameRate.numerator) }

    private func configure(path: String) throws {
        let rate = AVRational(num: Int32(options.frameRate.numerator), den: Int32(options.frameRate.denominator))
        // VFR needs a fine time base; CFR uses exactly one tick per frame.
        let timeBase = isVariableFrameRate ? AVRational(num: 1, den: 90_000) : AVRational(num: rate.den, den: rate.num)
        codec.pointee.width = Int32(options.size.width)
        codec.pointee.height = Int32(options.size.height)
        codec.pointee.pix_fmt = pixelFormat
        codec.pointee.time_base = timeBase
        codec.pointee.framerate = rate
        codec.pointee.sample_aspect_ratio = AVRational(num: Int32(options.sampleAspectRatio.numerator),
                                                        den: Int32(options.sampleAspectRatio.denominator))
        codec.pointee.color_range = pixelFormatIsFullRange ? AVCOL_RANGE_JPEG : AVCOL_RANGE_MPEG
        codec.pointee.colorspace = options.size.height >= 720 ? AVCOL_SPC_BT709 : AVCOL_SPC_SMPTE170M
        codec.pointee.color_primaries = options.size.height >= 720 ? AVCOL_PRI_BT709 : AVCOL_PRI_SMPTE170M
        codec.pointee.color_trc = options.size.height >= 720 ? AVCOL_TRC_BT709 : AVCOL_TRC_SMPTE170M
        if let transfer = options.hdrTransfer {
            guard transfer.isHDR else {
                throw MediaError(call: "sample", code: .invalidArgument, message: "HDR transfer must be pq or hlg, not \(transfer.rawValue)")
            }
            codec.pointee.colorspace = AVCOL_SPC_BT2020_NCL
            codec.pointee.color_primaries = AVCOL_PRI_BT2020
            codec.pointee.color_trc = transfer == .pq ? AVCOL_TRC_SMPTE2084 : AVCOL_TRC_ARIB_STD_B67
        }
        if let interval = options.keyframeIntervalSeconds {
            let frames = max(1, Int32((interval * Double(rate.num) / Double(rate.den)).rounded()))
            codec.pointee.gop_size = frames
            codec.pointee.keyint_min = frames
        }
        if let bFrames = options.bFrames { codec.pointee.max_b_frames = Int32(bFrames) }
        if options.interlaced {
            codec.pointee.flags |= AV_CODEC_FLAG_INTERLACED_DCT | AV_CODEC_FLAG_INTERLACED_ME
            codec.pointee.field_order = AV_FIELD_TT
        }
        if output.pointee.oformat.pointee.flags & AVFMT_GLOBALHEADER != 0 {
            codec.pointee.flags |= AV_CODEC_FLAG_GLOBAL_HEADER
        }
        let encoderName = String(cString: codec.pointee.codec.pointee.name)
        if encoderName.hasPrefix("libx26") {
            av_opt_set(codec.pointee.priv_data, "preset", options.preset, 0)
            av_opt_set(codec.pointee.priv_data, "crf", "23", 0)
            // x265 prints its banner and statistics on stderr whatever FFmpeg's log level; a fixed keyframe
            // interval means no extra keyframes at scene cuts. Each encoder takes its own parameter option.
            var parameters = encoderName == "libx265" ? ["log-level=error"] : []
            if options.keyframeIntervalSeconds != nil { parameters.append("scenecut=0") }
            if !parameters.isEmpty {
                av_opt_set(codec.pointee.priv_data, encoderName == "libx265" ? "x265-params" : "x264-params",
                           parameters.joined(separator: ":"), 0)
            }
        } else {
            codec.pointee.bit_rate = Int64(options.size.area) * 4
            codec.pointee.qmax = 10
        }
        try check("avcodec_open2", avcodec_open2(codec, nil, nil))
        try check("avcodec_parameters_from_context", avcodec_parameters_from_context(stream.pointee.codecpar, codec))
        stream.pointee.time_base = timeBase
        stream.pointee.avg_frame_rate = rate
        stream.pointee.sample_aspect_ratio = codec.pointee.sample_aspect_ratio
        if options.rotation % 360 != 0 || options.mirrored {
            guard let data = framefarm_stream_new_side_data(stream, AV_PKT_DATA_DISPLAYMATRIX, 36) else {
                throw MediaError.outOfMemory("av_stream_new_side_data")
            }
            let matrix = UnsafeMutableRawPointer(data).assumingMemoryBound(to: Int32.self)
            // av_display_rotation_set(a) makes av_display_rotation_get return -a, which readers (ffmpeg's
            // autorotate and MediaFile) take as a clockwise turn by a. av_display_matrix_flip acts after the
            // matrix's rotation, and mirroring then turning by r is turning by -r then mirroring.
            av_display_rotation_set(matrix, Double(options.mirrored ? -options.rotation : options.rotation))
            if options.mirrored { av_display_matrix_flip(matrix, 1, 0) }
        }
        if let peak = options.hdrPeakLuminance {
            let size = MemoryLayout<AVContentLightMetadata>.size
            guard let data = framefarm_stream_new_side_data(stream, AV_PKT_DATA_CONTENT_LIGHT_LEVEL, size) else {
                throw MediaError.outOfMemory("av_stream_new_side_data")
            }
            let light = UnsafeMutableRawPointer(data).assumingMemoryBound(to: AVContentLightMetadata.self)
            light.pointee.MaxCLL = UInt32(peak)
            light.pointee.MaxFALL = UInt32(peak / 4)
        }
        if output.pointee.oformat.pointee.flags & AVFMT_NOFILE == 0 {
            try check("avio_open", avio_open(&output.pointee.pb, path, AVIO_FLAG_WRITE))
        }
        var muxerOptions: OpaquePointer?
        defer { av_dict_free(&muxerOptions) }
        // The mov muxer moves the index to the front when it finishes (other muxers ignore the flag).
        if options.indexFirst { av_dict_set(&muxerOptions, "movflags", "+faststart", 0) }
        try check("avformat_write_header", avformat_write_header(output, &muxerOptions))
        frame.pointee.format = pixelFormat.rawValue
        frame.pointee.width = codec.pointee.width
        frame.pointee.height = codec.pointee.height
        try check("av_frame_get_buffer", av_frame_get_buffer(frame, 0))
    }

    private var pixelFormatIsFullRange: Bool {
        [AV_PIX_FMT_YUVJ420P, AV_PIX_FMT_YUVJ422P, AV_PIX_FMT_YUVJ444P].contains(pixelFormat)
    }

    func encodeAll(progress: ((Double) -> Void)?) throws {
        let times = frameTimes()
        let ticksPerSecond = Double(codec.pointee.time_base.den) / Double(codec.pointee.time_base.num)
        // Drawing a frame costs more than x264's veryfast encode of it, so frames are drawn a batch ahead on
        // every core; the encoder still gets them one by one, in order.
        let batchSize = min(16, max(1, ProcessInfo.processInfo.activeProcessorCount))
        for batchStart in stride(from: 0, to: times.count, by: batchSize) {
            let batch = batchStart..<min(batchStart + batchSize, times.count)
            let drawn = Concurrent.map(count: batch.count) { [frames] offset in
                frames.planes(index: batch.lowerBound + offset, time: times[batch.lowerBound + offset])
            }
            for (offset, picture) in drawn.enumerated() {
                let index = batch.lowerBound + offset
                try check("av_frame_make_writable", av_frame_make_writable(frame))
                fill(with: picture)
                if options.interlaced {
                    framefarm_frame_mark_interlaced_top_field_first(frame)
                }
                frame.pointee.pts = Int64(((times[index] + options.startSeconds) * ticksPerSecond).rounded())
                try send(frame)
                progress?(Double(index + 1) / Double(times.count))
            }
        }
        try send(nil)
        try check("av_write_trailer", av_write_trailer(output))
    }

    /// The presentation time of every frame: one at 0, then every frame that starts before the duration ends.
    /// Variable-frame-rate samples cycle their frame durations through 1, 0.5 and 1.5 frame periods.
    private func frameTimes() -> [Double] {
        var times = [0.0]
        while true {
            let index = times.count - 1
            let next = isVariableFrameRate
                ? times[index] + frameDuration * [1.0, 0.5, 1.5][index % 3] : Double(index + 1) * frameDuration
            guard next < options.durationSeconds else { return times }
            times.append(next)
        }
    }

    /// Copies 8-bit planes into the AVFrame, widening to the pixel format's depth; full-range formats get their
    /// limited-range values expanded.
    private func fill(with planes: SamplePattern.Planes) {
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
                    let width = plane == 0 ? options.size.width : (options.size.width + (1 << chromaShift.0) - 1) >> chromaShift.0
                    let height = plane == 0 ? options.size.height : (options.size.height + (1 << chromaShift.1) - 1) >> chromaShift.1
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

/// What each frame of a sample shows. Values only, so frames are drawn on several threads at once.
struct SampleFrames: Sendable {
    let pattern: SamplePattern
    let options: SampleOptions

    /// Frame `index`'s planes; an interlaced sample takes its bottom field from half a frame later.
    func planes(index: Int, time: Double) -> SamplePattern.Planes {
        let planes = draw(index: index, time: time)
        guard options.interlaced else { return planes }
        let frameDuration = Double(options.frameRate.denominator) / Double(options.frameRate.numerator)
        return pattern.interlace(top: planes, bottom: draw(index: index, time: time + frameDuration / 2))
    }

    private func draw(index: Int, time: Double) -> SamplePattern.Planes {
        let brightness: Double
        if time < options.blackLeadSeconds {
            brightness = 0
        } else if options.fadeInSeconds > 0, time < options.blackLeadSeconds + options.fadeInSeconds {
            brightness = (time - options.blackLeadSeconds) / options.fadeInSeconds
        } else {
            brightness = 1
        }
        return pattern.draw(index: options.firstFrameNumber + index, time: time, brightness: brightness,
                            blurred: options.blurredRange?.contains(time) ?? false)
    }
}
