import CFFmpeg
import Foundation

/// FFmpeg's own log is silenced: FrameFarm reports problems itself, one line per file. Set
/// `FRAMEFARM_FFMPEG_LOG=warning` (or error, info, debug) to see FFmpeg's messages while investigating a file.
enum FFmpegLog {
    static let configured: Void = {
        let levels = ["quiet": AV_LOG_QUIET, "error": AV_LOG_ERROR, "warning": AV_LOG_WARNING,
                      "info": AV_LOG_INFO, "debug": AV_LOG_DEBUG]
        let requested = ProcessInfo.processInfo.environment["FRAMEFARM_FFMPEG_LOG"] ?? "quiet"
        av_log_set_level(levels[requested.lowercased()] ?? AV_LOG_QUIET)
    }()
}
