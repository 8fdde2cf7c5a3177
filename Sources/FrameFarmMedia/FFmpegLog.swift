import CFFmpeg

/// How much of FFmpeg's own log reaches stderr. Quiet by default: FrameFarm reports problems itself, one line per
/// file; `warning` (or error, info, debug) shows FFmpeg's messages while investigating a file.
public enum FFmpegLogLevel: String, Sendable, Hashable, CaseIterable {
    case quiet, error, warning, info, debug

    var avLevel: Int32 {
        switch self {
        case .quiet: AV_LOG_QUIET
        case .error: AV_LOG_ERROR
        case .warning: AV_LOG_WARNING
        case .info: AV_LOG_INFO
        case .debug: AV_LOG_DEBUG
        }
    }
}

/// FFmpeg's log level is process-wide: quiet from the first use of FFmpeg, unless `set` chose another.
public enum FFmpegLog {
    static let configured: Void = av_log_set_level(AV_LOG_QUIET)

    /// Sets the level for the whole process (FFmpeg has one); the executables call it at start.
    public static func set(_ level: FFmpegLogLevel) {
        configured
        av_log_set_level(level.avLevel)
    }
}
