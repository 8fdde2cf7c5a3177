import CFFmpeg
import FrameFarmCore

extension LintVocabulary {
    /// FFmpeg's codec and profile names (those `probe` reports) and its codecs' media types, and the container
    /// names `probe` gives as `fileFormat` or FFmpeg's demuxer names.
    public static let ffmpeg = LintVocabulary(profiles: { codec in
        guard let descriptor = avcodec_descriptor_get_by_name(codec) else { return nil }
        var names: [String] = []
        var profile = descriptor.pointee.profiles
        while let current = profile, current.pointee.profile != FF_PROFILE_UNKNOWN {
            if let name = current.pointee.name { names.append(String(cString: name)) }
            profile = current + 1
        }
        return names
    }, isFileFormat: { format in
        ["mp4", "mov", "mpegts", "webm", "matroska"].contains(format) || av_find_input_format(format) != nil
    }, isAudio: { codec in
        switch avcodec_descriptor_get_by_name(codec)?.pointee.type {
        case AVMEDIA_TYPE_AUDIO: true
        case AVMEDIA_TYPE_VIDEO: false
        default: nil
        }
    })
}
