import CFFmpeg
import Glibc

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
        if level != .quiet { framefarm_log_set_sink(printRedacted) }
    }

    /// Prints FFmpeg's lines with any URL's query string taken out: FFmpeg's http client logs its requests (at
    /// debug level), and a presigned URL's signature must not reach a log (`RemoteInput`).
    private static let printRedacted: framefarm_log_sink = { line in
        guard let line else { return }
        let text = Array(redacted(String(cString: line)).utf8)
        _ = text.withUnsafeBytes { write(STDERR_FILENO, $0.baseAddress, $0.count) }
    }

    /// `text` with every http(s) URL and every request path (`GET /clip.mp4?sig=...`) cut at its query, and the
    /// values of the user's `--header`s (FFmpeg's debug log prints each request whole) replaced.
    static func redacted(_ text: String) -> String {
        var result = "", rest = Substring(text)
        func isDelimiter(_ character: Character) -> Bool { character.isWhitespace || character == "'" || character == "\"" }
        while let start = rest.firstIndex(where: { $0 == "/" || $0 == "h" || $0 == "H" }) {
            let startsToken = start == rest.startIndex || isDelimiter(rest[rest.index(before: start)])
            let token = rest[start...].prefix { !isDelimiter($0) }
            let isURL = RemoteInput.isRemote(String(token))
            result += rest[..<start]
            if startsToken, isURL || token.first == "/", let query = token.firstIndex(where: { $0 == "?" || $0 == "#" }) {
                result += isURL ? Substring(RemoteInput.name(of: String(token))) : token[..<query]
                rest = rest[token.endIndex...]
            } else {
                result += rest[start...start]
                rest = rest[rest.index(after: start)...]
            }
        }
        result += rest
        for header in RemoteInput.settings.headers {
            guard let colon = header.firstIndex(of: ":") else { continue }
            let value = header[header.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            if !value.isEmpty { result = result.replacingOccurrences(of: value, with: "(redacted)") }
        }
        return result
    }
}
