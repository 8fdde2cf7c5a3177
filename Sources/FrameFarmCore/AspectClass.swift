/// Aspect classes of video and the policies that pick fit or fill for `--modes auto`.

import Foundation

/// A video's shape class, from the long side over the short side of its display size.
public enum AspectClass: String, Codable, Sendable, CaseIterable {
    /// Below 2:1 (4:3, 16:9, 1.85:1).
    case standard
    /// 2:1 through 2.40:1 (Univisium, 2.20:1, scope 2.35/2.39/2.40:1).
    case wide
    /// Above 2.40:1 (2.76:1 Ultra Panavision, 32:9).
    case ultraWide = "ultra-wide"

    /// Slack on both thresholds for encoded sizes that round the nominal ratio: a 1920-wide scope picture whose
    /// height is rounded to a multiple of 8 (1920x796 = 2.412) is still 2.40:1, and 1920x962 (1.996) is 2:1.
    public static let tolerance = 0.0125

    /// Classifies a long-side / short-side ratio (a ratio below 1 is inverted first).
    public init(ratio: Double) {
        let longOverShort = ratio < 1 && ratio > 0 ? 1 / ratio : ratio
        if longOverShort < 2.0 - Self.tolerance {
            self = .standard
        } else if longOverShort <= 2.40 + Self.tolerance {
            self = .wide
        } else {
            self = .ultraWide
        }
    }

    /// Classifies a display size.
    public init(displaySize: PixelSize) {
        self.init(ratio: displaySize.longToShortRatio)
    }
}

extension PixelSize {
    /// Long side over short side (at least 1); 0 for an empty size.
    public var longToShortRatio: Double {
        let long = max(width, height), short = min(width, height)
        return short <= 0 ? 0 : Double(long) / Double(short)
    }
}

/// How `--modes auto` picks fit or fill for a video on a screen (`--policy hig|max-crop:P`).
public enum ModePolicy: RawRepresentable, Codable, Sendable, Hashable, CustomStringConvertible {
    /// What system players do (Human Interface Guidelines): fill wide video, fit standard and ultra-wide video,
    /// and fit video whose orientation differs from the screen's.
    case hig
    /// What a custom player should do: fill unless filling would crop more than `percent` of the picture area.
    case maxCrop(percent: Double)

    private static let expected = "hig or max-crop:P with P a percentage from 0 to 100"

    /// Parses `hig` or `max-crop:P`.
    public init(parsing text: String) throws {
        guard let policy = ModePolicy(rawValue: text.trimmingCharacters(in: .whitespaces)) else {
            throw ValueParseError(kind: "mode policy", value: text, expected: Self.expected)
        }
        self = policy
    }

    public init?(rawValue: String) {
        if rawValue == "hig" {
            self = .hig
            return
        }
        let prefix = "max-crop:"
        guard rawValue.hasPrefix(prefix), let percent = Double(rawValue.dropFirst(prefix.count)),
              percent.isFinite, (0...100).contains(percent) else { return nil }
        self = .maxCrop(percent: percent)
    }

    public var rawValue: String {
        switch self {
        case .hig: "hig"
        case .maxCrop(let percent): "max-crop:" + formatPercent(percent)
        }
    }

    public var description: String { rawValue }

    /// Fit or fill for `content` (display size) on `screen` (pixels, already oriented).
    public func mode(content: PixelSize, screen: PixelSize) -> ViewingMode {
        switch self {
        case .hig:
            if content.orientation != screen.orientation { return .fit }
            return AspectClass(displaySize: content) == .wide ? .fill : .fit
        case .maxCrop(let percent):
            let cropped = Placement.fillCroppedFraction(content: content, screen: screen).area
            // The slack lets max-crop:25 accept a crop that is 25% up to floating-point noise.
            return cropped * 100 <= percent + 1e-9 ? .fill : .fit
        }
    }
}

private func formatPercent(_ value: Double) -> String {
    value == value.rounded() && abs(value) < 1e15 ? String(Int(value)) : String(value)
}
