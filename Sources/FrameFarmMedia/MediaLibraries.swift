import CFFmpeg

/// The FFmpeg libraries this process runs with (which may differ from those it was built against).
public enum MediaLibraries {
    /// "FFmpeg 5.1.6-0+deb12u1 (libavformat 59.27.100, libavcodec 59.37.100, libavutil 57.28.100, libswscale 6.7.100)".
    public static var description: String {
        func version(_ name: String, _ packed: UInt32) -> String {
            "\(name) \(packed >> 16).\((packed >> 8) & 0xFF).\(packed & 0xFF)"
        }
        let libraries = [version("libavformat", avformat_version()), version("libavcodec", avcodec_version()),
                         version("libavutil", avutil_version()), version("libswscale", swscale_version())]
        return "FFmpeg \(String(cString: av_version_info())) (\(libraries.joined(separator: ", ")))"
    }
}
