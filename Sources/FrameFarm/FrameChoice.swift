/// Which frame a preview (or poster) shows: `--at 12.5`, `--at 25%` or `--at poster`.
public enum FrameChoice: Sendable, Equatable, CustomStringConvertible {
    case seconds(Double)
    case percent(Double)
    case poster

    public init(parsing text: String) throws {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        if trimmed == "poster" || trimmed == "auto" {
            self = .poster
        } else if trimmed.hasSuffix("%"), let value = Double(trimmed.dropLast()), (0...100).contains(value) {
            self = .percent(value)
        } else if let value = Double(trimmed), value >= 0, value.isFinite {
            self = .seconds(value)
        } else {
            throw ValueParseError(kind: "frame time", value: text, expected: "seconds (12.5), a percentage (25%) or poster")
        }
    }

    public var description: String {
        switch self {
        case .seconds(let seconds): "\(seconds)"
        case .percent(let percent): "\(percent)%"
        case .poster: "poster"
        }
    }

    /// Seconds from the start of the video. A time past the end is clamped to the last frame (documented in
    /// the README), so `--at 999` on a short clip shows its end rather than failing.
    func offset(duration: Double, posterOffset: () throws -> Double) rethrows -> Double {
        switch self {
        case .seconds(let seconds): min(seconds, max(0, duration))
        case .percent(let percent): duration * percent / 100
        case .poster: try posterOffset()
        }
    }
}
