/// Times as manifests spell them. Every writer rounds instants to the millisecond through here so the same instant
/// is spelled the same way in every file; only a tile's duration may be spelled to the microsecond.

/// Formats seconds for WebVTT, HLS and DASH. Pure functions; thread-safe.
public enum TimeFormatting {
    /// Seconds rounded to the nearest millisecond (never truncated), clamped at 0.
    public static func milliseconds(_ seconds: Double) -> Int {
        seconds.isFinite && seconds > 0 ? Int((seconds * 1000).rounded()) : 0
    }

    /// WebVTT timestamp `HH:MM:SS.mmm` (hours grow past two digits when needed).
    public static func webVTT(_ seconds: Double) -> String {
        let total = milliseconds(seconds)
        let hours = total / 3_600_000, minutes = total / 60_000 % 60, wholeSeconds = total / 1000 % 60
        return "\(padded(hours, 2)):\(padded(minutes, 2)):\(padded(wholeSeconds, 2)).\(padded(total % 1000, 3))"
    }

    /// Decimal seconds with exactly three decimals, as HLS `EXTINF` and `DURATION` use: `9.500`.
    public static func decimalSeconds(_ seconds: Double) -> String { decimal(milliseconds: milliseconds(seconds)) }

    /// The time from `start` to `end` with each rounded to the millisecond as a WebVTT cue rounds it, as `EXTINF`
    /// uses it: segments so spelled add up to the last end exactly (each rounded alone, a 0.3333-s interval
    /// written 0.333 lost 54 ms over a minute), and start where the cues of the same times start.
    public static func decimalSpan(from start: Double, to end: Double) -> String {
        decimal(milliseconds: millisecondSpan(from: start, to: end))
    }

    /// The milliseconds `decimalSpan` spells.
    public static func millisecondSpan(from start: Double, to end: Double) -> Int {
        max(0, milliseconds(end) - milliseconds(start))
    }

    /// Seconds rounded up to the microsecond, with three decimals at least and six at most: `0.3333`, `10.000`.
    public static func microsecondsUp(_ seconds: Double) -> String {
        let total = seconds.isFinite && seconds > 0 ? Int((seconds * 1_000_000 - 1e-6).rounded(.up)) : 0
        var decimals = padded(total % 1_000_000, 6)
        while decimals.count > 3, decimals.hasSuffix("0") { decimals.removeLast() }
        return "\(total / 1_000_000).\(decimals)"
    }

    private static func decimal(milliseconds total: Int) -> String { "\(total / 1000).\(padded(total % 1000, 3))" }

    /// An xs:duration in seconds, trailing zeros dropped: `PT600S`, `PT9.5S`.
    public static func xsDuration(_ seconds: Double) -> String {
        var text = decimalSeconds(seconds)
        while text.hasSuffix("0") { text.removeLast() }
        if text.hasSuffix(".") { text.removeLast() }
        return "PT\(text)S"
    }

    private static func padded(_ value: Int, _ digits: Int) -> String {
        let text = String(value)
        return text.count >= digits ? text : String(repeating: "0", count: digits - text.count) + text
    }
}
