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
            encoder = try findEncoder(encoding.encoder, container: container)
        } catch {
            return "no encoder named \(encoding.encoder ?? "")"
        }
        let name = String(cString: encoder.pointee.name), codec = String(cString: avcodec_get_name(encoder.pointee.id))
        let containerName = String(cString: container.pointee.name)
        // 1: the muxer takes it; 0: it does not; below 0: it does not say (then FFmpeg's refusal stands).
        if avformat_query_codec(container, encoder.pointee.id, FF_COMPLIANCE_NORMAL) == 0 {
            return "\(name) writes \(codec), which \(containerName) files do not take: choose another encoder or extension"
        }
        let pixelFormat: AVPixelFormat
        do {
            pixelFormat = try choosePixelFormat(encoding.pixelFormat, encoder: encoder)
        } catch {
            return "\(error)"
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
}
