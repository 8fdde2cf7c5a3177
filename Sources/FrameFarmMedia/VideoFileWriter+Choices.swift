import CFFmpeg
import FrameFarmCore

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
        if encoding.level != nil, !["libx264", "libx265"].contains(name) {
            return "a level is set for libx264 and libx265 only, not \(name)"
        }
        let pixelFormat: AVPixelFormat
        do {
            pixelFormat = try choosePixelFormat(encoding.pixelFormat, encoder: encoder)
        } catch {
            return (error as? MediaError)?.message ?? "\(error)"
        }
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
}
