import CFFmpeg
import FrameFarmCore

/// What the writer chooses where it is not told (the encoder, the pixel format), and what it refuses before
/// anything is written.
extension VideoFileWriter {
    /// Why `encoding` cannot be written to `finalPath`, in words that name the setting to change; nil when
    /// FFmpeg takes it. FFmpeg's own refusals come later, half-way into writing, and name nothing ("Generic error
    /// in an external library" for an odd size in x264, "Invalid argument" for H.264 in WebM).
    public static func refusal(of encoding: VideoEncoding, finalPath: String) -> String? {
        guard let container = av_guess_format(nil, finalPath, nil) else {
            return "no container FFmpeg writes is named by the extension of \(finalPath) (mp4, mov, mkv, webm, ts, m3u8, y4m ...)"
        }
        let encoder: UnsafePointer<AVCodec>
        do {
            encoder = try findEncoder(encoding.encoder, container: container, fragmented: encoding.fragmentedMP4Segments)
        } catch {
            return "no encoder named \(encoding.encoder ?? "")"
        }
        let name = String(cString: encoder.pointee.name), codec = String(cString: avcodec_get_name(encoder.pointee.id))
        let containerName = String(cString: container.pointee.name)
        if containerName == "image2" {
            return "\(finalPath) names a still image: a sample is a video (mp4, mov, mkv, webm, ts, gif ...)"
        }
        if carries(container, encoder.pointee.id, fragmented: encoding.fragmentedMP4Segments) == false {
            return "\(name) writes \(codec), which \(containerName) files do not take: choose another encoder or extension"
        }
        // Y4M and other raw containers hold pictures, not a codec's packets.
        let own = container.pointee.video_codec
        if [AV_CODEC_ID_RAWVIDEO, AV_CODEC_ID_WRAPPED_AVFRAME].contains(own), encoder.pointee.id != own {
            return "\(containerName) files hold raw pictures, not \(codec): leave the encoder out"
        }
        if let tag = encoding.codecTag, tag.utf8.count == 4, let tags = container.pointee.codec_tag {
            let value = tag.utf8.reversed().reduce(0) { $0 << 8 | UInt32($1) }
            let named = av_codec_get_id(tags, value)
            if named != AV_CODEC_ID_NONE, named != encoder.pointee.id {
                return "the tag \(tag) names \(String(cString: avcodec_get_name(named))), not \(codec)"
            }
        }
        if encoding.level != nil, !["libx264", "libx265"].contains(name) {
            return "a level is set for libx264 and libx265 only, not \(name)"
        }
        let pixelFormat: AVPixelFormat
        do {
            pixelFormat = try choosePixelFormat(encoding.pixelFormat, encoder: encoder)
        } catch {
            return (error as? MediaError)?.message ?? "\(error)"
        }
        return x26xRefusal(of: encoding, encoder: name, codec: codec, pixelFormat: pixelFormat)
    }

    /// What x264 and x265 refuse: presets they do not have, sizes in part chroma samples, levels that do not
    /// exist.
    private static func x26xRefusal(of encoding: VideoEncoding, encoder name: String, codec: String,
                                    pixelFormat: AVPixelFormat) -> String? {
        guard ["libx264", "libx265"].contains(name) else { return nil }
        let presets = ["ultrafast", "superfast", "veryfast", "faster", "fast", "medium", "slow", "slower", "veryslow", "placebo"]
        if !presets.contains(encoding.preset) {
            return "\(name) has no preset \(encoding.preset) (\(presets.joined(separator: ", ")))"
        }
        let descriptor = av_pix_fmt_desc_get(pixelFormat)!.pointee
        let (across, down) = (1 << Int(descriptor.log2_chroma_w), 1 << Int(descriptor.log2_chroma_h))
        let size = encoding.size
        if size.width % across != 0 || size.height % down != 0 {
            return "\(name) needs the size in whole chroma samples of \(String(cString: descriptor.name)): "
                + "\(size.width)x\(size.height) is odd (ffv1 takes any size)"
        }
        // Each field of an interlaced frame is a picture of its own, of half the rows.
        if encoding.interlaced, size.height % (2 * down) != 0 {
            return "interlaced \(String(cString: descriptor.name)) needs a height in whole chroma rows of each field, "
                + "a multiple of \(2 * down): not \(size.height)"
        }
        if let level = encoding.level, let known = LintProfile.levels[codec], !known.contains(where: { abs($0 - level) < 1e-9 }) {
            return "\(codec) has no level \(String(format: "%g", level)) (" + known.map { String(format: "%g", $0) }.joined(separator: ", ") + ")"
        }
        return nil
    }

    /// MPEG-TS and MPEG-PS (and HLS's TS segments) carry the codecs their stream types name, and write any other
    /// as a data stream no player reads (FFmpeg's muxers do not say so: they take anything).
    private static let streamTypedCodecs: [String: [AVCodecID]] = [
        "mpegts": [AV_CODEC_ID_MPEG1VIDEO, AV_CODEC_ID_MPEG2VIDEO, AV_CODEC_ID_MPEG4, AV_CODEC_ID_H264, AV_CODEC_ID_HEVC,
                   AV_CODEC_ID_CAVS, AV_CODEC_ID_DIRAC, AV_CODEC_ID_VC1],
        "mpeg": [AV_CODEC_ID_MPEG1VIDEO, AV_CODEC_ID_MPEG2VIDEO, AV_CODEC_ID_MPEG4, AV_CODEC_ID_H264],
    ]

    /// Whether `container` carries `codec` as video: for the stream-typed ones, their list, else what its muxer
    /// says; nil where it does not say. HLS's segments are MPEG-TS, or MP4 when `fragmented`.
    static func carries(_ container: UnsafePointer<AVOutputFormat>, _ codec: AVCodecID, fragmented: Bool) -> Bool? {
        var name = String(cString: container.pointee.name)
        var muxer = container
        if name == "hls" {
            name = fragmented ? "mp4" : "mpegts"
            guard let segments = av_guess_format(name, nil, nil) else { return nil }
            muxer = segments
        }
        let typed = ["vob": "mpeg", "dvd": "mpeg", "svcd": "mpeg", "vcd": "mpeg"][name] ?? name
        if let codecs = streamTypedCodecs[typed] { return codecs.contains(codec) }
        let answer = avformat_query_codec(muxer, codec, FF_COMPLIANCE_NORMAL)
        return answer < 0 ? nil : answer == 1
    }

    /// The encoder named, else x264 where the container takes H.264 (MPEG-4 Part 2 without x264), else the
    /// container's own (VP9 for WebM, raw pictures for Y4M, GIF's).
    static func findEncoder(_ name: String?, container: UnsafePointer<AVOutputFormat>,
                            fragmented: Bool) throws -> UnsafePointer<AVCodec> {
        if let name {
            guard let encoder = avcodec_find_encoder_by_name(name) else {
                throw MediaError(call: "avcodec_find_encoder_by_name", code: .invalidArgument, message: "no encoder named \(name)")
            }
            return encoder
        }
        if carries(container, AV_CODEC_ID_H264, fragmented: fragmented) != true,
           let own = avcodec_find_encoder(container.pointee.video_codec) {
            return own
        }
        return avcodec_find_encoder_by_name("libx264") ?? avcodec_find_encoder(AV_CODEC_ID_MPEG4)!
    }

    /// The pixel format named, else the encoder's first that `fill` draws.
    static func choosePixelFormat(_ name: String?, encoder: UnsafePointer<AVCodec>) throws -> AVPixelFormat {
        var supported: [AVPixelFormat] = []
        if var list = framefarm_encoder_pixel_formats(encoder) {
            while list.pointee != AV_PIX_FMT_NONE {
                supported.append(list.pointee)
                list += 1
            }
        }
        let drawn = supported.filter(isDrawn), encoderName = String(cString: encoder.pointee.name)
        func names(_ formats: [AVPixelFormat]) -> String {
            formats.compactMap { av_get_pix_fmt_name($0).map { String(cString: $0) } }.joined(separator: ", ")
        }
        func refused(_ message: String) -> MediaError { MediaError(call: "VideoFileWriter", code: .invalidArgument, message: message) }
        guard let name else {
            guard let first = supported.isEmpty ? AV_PIX_FMT_YUV420P : drawn.first else {
                throw refused("\(encoderName) takes only pictures FrameFarm does not draw (\(names(supported))): "
                              + "it draws planar Y'CbCr and grey")
            }
            return first
        }
        let format = av_get_pix_fmt(name)
        guard format != AV_PIX_FMT_NONE, supported.isEmpty || supported.contains(format) else {
            throw refused("encoder \(encoderName) can't write \(name) (it takes \(names(drawn.isEmpty ? supported : drawn)))")
        }
        guard isDrawn(format) else {
            throw refused("\(name) is not drawn: FrameFarm draws planar Y'CbCr and grey, 8 to 16 bits, without alpha "
                          + "(yuv420p, yuv422p10le, yuv444p, gray ...)")
        }
        return format
    }

    /// Whether `fill` writes `format`: one plane per component (Y'CbCr or grey), little-endian samples of 8 to 16
    /// bits in the low bits, no alpha. Semi-planar (nv12), packed, RGB and paletted formats are not drawn.
    private static func isDrawn(_ format: AVPixelFormat) -> Bool {
        guard let descriptor = av_pix_fmt_desc_get(format)?.pointee else { return false }
        let excluded = AV_PIX_FMT_FLAG_RGB | AV_PIX_FMT_FLAG_PAL | AV_PIX_FMT_FLAG_BITSTREAM | AV_PIX_FMT_FLAG_HWACCEL
            | AV_PIX_FMT_FLAG_BE | AV_PIX_FMT_FLAG_ALPHA | AV_PIX_FMT_FLAG_FLOAT
        guard descriptor.flags & UInt64(excluded) == 0, [1, 3].contains(descriptor.nb_components) else { return false }
        return withUnsafeBytes(of: descriptor.comp) { raw in
            raw.bindMemory(to: AVComponentDescriptor.self).prefix(Int(descriptor.nb_components)).enumerated().allSatisfy { index, component in
                component.plane == index && component.offset == 0 && component.shift == 0
                    && component.step == (component.depth > 8 ? 2 : 1)
            }
        }
    }
}
