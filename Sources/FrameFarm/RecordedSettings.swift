import Foundation
import FrameFarmCore

/// A setting as a manifest section's `settings` records it: one string that parses back to the same value, so
/// manifest.json stays readable (and its bytes stay what they were) while the settings themselves are typed.
public protocol SettingText: Hashable, Sendable {
    init(settingText text: String) throws
    var settingText: String { get }
}

/// A typed setting stored as its `settingText`.
@propertyWrapper
public struct Setting<Value: SettingText>: Codable, Hashable, Sendable {
    public var wrappedValue: Value

    public init(wrappedValue: Value) { self.wrappedValue = wrappedValue }

    public init(from decoder: any Decoder) throws {
        wrappedValue = try Value(settingText: decoder.singleValueContainer().decode(String.self))
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(wrappedValue.settingText)
    }
}

/// A job's settings to and from its manifest section's `settings` object.
enum SettingsRecord {
    static func record<Settings: Encodable>(_ settings: Settings) -> [String: String] {
        // Every field is a `Setting`, which encodes as a string: the round trip cannot fail.
        try! JSONDecoder().decode([String: String].self, from: JSONEncoder().encode(settings))
    }

    /// nil when the record cannot be read as `Settings` (a key missing, written by an older FrameFarm): those
    /// outputs are redone.
    static func read<Settings: Decodable>(_ type: Settings.Type, from record: [String: String]) -> Settings? {
        guard let data = try? JSONEncoder().encode(record) else { return nil }
        return try? JSONDecoder().decode(type, from: data)
    }
}

/// `--remove-padding auto|force|off`: which of the bars baked into the picture outputs leave out.
public enum PaddingRemoval: String, SettingText, CaseIterable {
    /// The bars proven (`Padding.contentRect`).
    case auto
    /// The likely bars too (`Padding.likelyContentRect`).
    case force
    /// None: the whole coded frame.
    case off
}

/// A yes-or-no setting, recorded `on` or `off` (`linearLight`).
public enum OnOff: String, SettingText {
    case on, off

    public init(_ isOn: Bool) { self = isOn ? .on : .off }
}

/// The sprite sheet grid asked for and the longest side a sheet may have, recorded `10x10`, or `10x10 within 2048`
/// when the limit is not the default (so records written before the limit existed read as the default).
public struct SheetGrid: SettingText {
    public var columns: Int
    public var rows: Int
    public var maxSheetSide: Int

    public init(columns: Int, rows: Int, maxSheetSide: Int = ThumbnailOptions.defaultMaxSheetSide) {
        self.columns = columns
        self.rows = rows
        self.maxSheetSide = maxSheetSide
    }

    public init(settingText text: String) throws {
        let words = text.split(separator: " ")
        let parts = words.first?.split(separator: "x").compactMap { Int($0) } ?? []
        let limit = words.count == 3 && words[1] == "within" ? Int(words[2]) : words.count == 1 ? ThumbnailOptions.defaultMaxSheetSide : nil
        guard parts.count == 2, let limit else {
            throw ValueParseError(kind: "grid", value: text, expected: "COLUMNSxROWS, optionally 'within PIXELS'")
        }
        self.init(columns: parts[0], rows: parts[1], maxSheetSide: limit)
    }

    public var settingText: String {
        "\(columns)x\(rows)" + (maxSheetSide == ThumbnailOptions.defaultMaxSheetSide ? "" : " within \(maxSheetSide)")
    }
}

extension SettingText where Self: RawRepresentable, RawValue == String {
    public init(settingText text: String) throws {
        guard let value = Self(rawValue: text) else {
            throw ValueParseError(kind: "setting", value: text, expected: "a value of \(Self.self)")
        }
        self = value
    }

    public var settingText: String { rawValue }
}

extension Int: SettingText {
    public init(settingText text: String) throws {
        guard let value = Int(text) else { throw ValueParseError(kind: "setting", value: text, expected: "an integer") }
        self = value
    }

    public var settingText: String { String(self) }
}

extension String: SettingText {
    public init(settingText text: String) { self = text }
    public var settingText: String { self }
}

/// Comma-separated, in order.
extension Array: SettingText where Element: SettingText {
    public init(settingText text: String) throws {
        self = try text.split(separator: ",").map { try Element(settingText: String($0)) }
    }

    public var settingText: String { map(\.settingText).joined(separator: ",") }
}

/// Comma-separated, sorted: the same set is always the same text.
extension Set: SettingText where Element: SettingText {
    public init(settingText text: String) throws { self = Set(try [Element](settingText: text)) }
    public var settingText: String { map(\.settingText).sorted().joined(separator: ",") }
}

/// `auto` for nil: left to each input.
extension Optional: SettingText where Wrapped: SettingText {
    public init(settingText text: String) throws { self = text == "auto" ? nil : try Wrapped(settingText: text) }
    public var settingText: String { map(\.settingText) ?? "auto" }
}

extension ImageFormat: SettingText {}
extension ResamplingFilter: SettingText {}
extension Orientation: SettingText {}
extension FitRegion: SettingText {}
extension ModePolicy: SettingText {}
extension SeekMode: SettingText {}
extension ThumbnailManifest: SettingText {}
extension PreviewOverlay: SettingText {}

extension FrameChoice: SettingText {
    public init(settingText text: String) throws { try self.init(parsing: text) }
    public var settingText: String { description }
}

extension ModeSelection: SettingText {
    public init(settingText text: String) throws { try self.init(parsing: text) }
    public var settingText: String { description }
}

/// `interval 10.0` or `count 100`.
extension ThumbnailSpacing: SettingText {
    public init(settingText text: String) throws {
        let parts = text.split(separator: " ")
        switch (parts.first, parts.count == 2 ? parts.last : nil) {
        case ("interval"?, let value?) where Double(value) != nil: self = .interval(Double(value)!)
        case ("count"?, let value?) where Int(value) != nil: self = .count(Int(value)!)
        default: throw ValueParseError(kind: "spacing", value: text, expected: "interval SECONDS or count N")
        }
    }

    public var settingText: String {
        switch self {
        case .interval(let seconds): "interval \(seconds)"
        case .count(let count): "count \(count)"
        }
    }
}
