/// The viewing modes a player offers, where fit is confined, and the CLI spellings of both.

import Foundation

/// How a player maps a video's picture onto its screen; the cases mirror AVLayerVideoGravity.
public enum ViewingMode: String, Codable, Sendable, CaseIterable {
    /// `resizeAspect`: the whole picture, aspect kept, centred, with bars where the shapes differ.
    case fit
    /// `resizeAspectFill`: the picture covers the whole screen, aspect kept, centred, edges cropped.
    case fill
    /// `resize`: the whole picture onto the whole screen, aspect distorted.
    case stretch

    /// Parses `fit`, `fill` or `stretch`.
    public init(parsing text: String) throws {
        self = try parseKeyword(text, as: Self.self, kind: "viewing mode")
    }
}

/// The rect that `fit` fits the picture into (`--fit-within screen|safe-area`). Fill and stretch always use the
/// whole screen.
public enum FitRegion: String, Codable, Sendable, CaseIterable {
    case screen
    case safeArea = "safe-area"

    /// Parses `screen` or `safe-area`.
    public init(parsing text: String) throws {
        self = try parseKeyword(text, as: Self.self, kind: "fit region")
    }
}

/// Which way up a screen or a picture is. A square counts as landscape.
public enum Orientation: String, Codable, Sendable, CaseIterable {
    case landscape, portrait

    /// Parses `landscape` or `portrait`.
    public init(parsing text: String) throws {
        self = try parseKeyword(text, as: Self.self, kind: "orientation")
    }

    /// Parses `--orientations`: `both`, or orientations comma-separated, each once; never an empty list.
    public static func parseList(_ text: String) throws -> [Orientation] {
        if text == "both" { return allCases }
        let list = try text.split(separator: ",", omittingEmptySubsequences: false).map { item in
            do { return try Orientation(parsing: String(item)) } catch {
                // `both` stands alone, but the message names it, as the help does.
                throw ValueParseError(kind: "orientations", value: text, expected: "both, or landscape and portrait comma-separated")
            }
        }
        guard Set(list).count == list.count else {
            throw ValueParseError(kind: "orientations", value: text, expected: "each orientation once")
        }
        return list
    }
}

extension PixelSize {
    /// Landscape when at least as wide as tall.
    public var orientation: Orientation { width >= height ? .landscape : .portrait }

    /// This size turned to `orientation` (its long side horizontal for landscape).
    public func oriented(_ orientation: Orientation) -> PixelSize {
        self.orientation == orientation || width == height ? self : transposed
    }
}

/// One entry of `--modes`: a fixed mode, or `auto`, which a `ModePolicy` resolves per video and screen.
public enum ModeChoice: RawRepresentable, Codable, Sendable, Hashable, CustomStringConvertible {
    case mode(ViewingMode)
    case auto

    public init?(rawValue: String) {
        if rawValue == "auto" {
            self = .auto
        } else if let mode = ViewingMode(rawValue: rawValue) {
            self = .mode(mode)
        } else {
            return nil
        }
    }

    public var rawValue: String {
        switch self {
        case .mode(let mode): mode.rawValue
        case .auto: "auto"
        }
    }

    public var description: String { rawValue }

    /// The concrete mode for `content` (display size) on `screen` (pixels, already oriented).
    public func resolved(content: PixelSize, screen: PixelSize, policy: ModePolicy) -> ViewingMode {
        switch self {
        case .mode(let mode): mode
        case .auto: policy.mode(content: content, screen: screen)
        }
    }
}

/// The parsed `--modes` list, e.g. `fit,fill,auto`: order kept, duplicates dropped, never empty.
public struct ModeSelection: Codable, Sendable, Hashable, CustomStringConvertible {
    public private(set) var choices: [ModeChoice]

    /// What `--modes` means when not given.
    public static let standard = ModeSelection(uncheckedChoices: [.mode(.fit), .mode(.fill)])

    private init(uncheckedChoices: [ModeChoice]) {
        choices = uncheckedChoices
    }

    /// Parses a comma-separated list of `fit`, `fill`, `stretch` and `auto`.
    public init(parsing text: String) throws {
        let expected = "a comma-separated list of fit, fill, stretch, auto"
        var choices: [ModeChoice] = []
        for item in text.split(separator: ",", omittingEmptySubsequences: false) {
            let name = item.trimmingCharacters(in: .whitespaces)
            guard let choice = ModeChoice(rawValue: name) else {
                throw ValueParseError(kind: "mode list", value: text, expected: expected)
            }
            if !choices.contains(choice) { choices.append(choice) }
        }
        guard !choices.isEmpty else { throw ValueParseError(kind: "mode list", value: text, expected: expected) }
        self.choices = choices
    }

    public var description: String { choices.map(\.rawValue).joined(separator: ",") }
}

/// A command-line value that does not parse; its description is the one line the user sees.
public struct ValueParseError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What was being parsed ("viewing mode", "mode policy").
    public var kind: String
    public var value: String
    public var expected: String

    public init(kind: String, value: String, expected: String) {
        self.kind = kind
        self.value = value
        self.expected = expected
    }

    public var description: String { "invalid \(kind) '\(value)': expected \(expected)" }
}

func parseKeyword<T: RawRepresentable & CaseIterable>(_ text: String, as type: T.Type, kind: String) throws -> T
where T.RawValue == String {
    if let value = T(rawValue: text.trimmingCharacters(in: .whitespaces)) { return value }
    let names = T.allCases.map(\.rawValue).joined(separator: ", ")
    throw ValueParseError(kind: kind, value: text, expected: "one of \(names)")
}
