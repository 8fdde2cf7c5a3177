import Foundation

/// The built-in rule sets of `lint --profile` (docs/lint.md gives each one's thresholds and sources).
public enum LintProfile: String, Sendable, CaseIterable {
    /// Thresholds for video that is scrubbed and shown on phones and TVs.
    case `default`
    /// Apple's HLS Authoring Specification: a keyframe every 2 s, and one in every 6-s segment at the least;
    /// H.264 up to High 4.2 in MP4 or MPEG-TS, HEVC up to Main 10 5.0 in MP4 as 'hvc1'; 60 fps at most.
    case appleHLS = "apple-hls"
    /// What every major browser plays from a `<video>` element: H.264 (8-bit 4:2:0 profiles) in MP4, VP9 and
    /// AV1 in WebM or MP4, with an MP4's index first so playback starts before the download ends.
    case web

    public var settings: LintSettings {
        var settings = LintSettings()
        switch self {
        case .default: break
        case .appleHLS:
            settings.keyframeWarningSeconds = 2
            settings.keyframeErrorSeconds = 6
            settings.disabled.subtract([.codec, .container, .audioCodec, .frameRate])
            // HDR as HDR10, HLG or Dolby Vision, all HEVC (1.7).
            settings.codecs = ["h264": CodecLimits(profiles: Self.h264Profiles, maxLevel: 4.2, hdr: false),
                               "hevc": CodecLimits(profiles: ["Main", "Main 10"], maxLevel: 5.0)]
            settings.containers = ["h264": ["mp4", "mpegts"], "hevc": ["mp4"]]
            settings.sampleEntries = ["hevc": ["hvc1"]]
            settings.maxFrameRate = 60
            // Audio (2.2, 2.5): AAC-LC, HE-AAC v1 and v2, Apple Lossless, FLAC, AC-3 and E-AC-3. xHE-AAC, also
            // listed, has a profile FFmpeg 5.1 does not name: its streams have none, and pass.
            settings.audioCodecs = ["aac": Self.aacProfiles, "alac": [], "flac": [], "ac3": [], "eac3": []]
        case .web:
            settings.disabled.subtract([.codec, .container, .audioCodec])
            // HDR in VP9 profile 2 and AV1, as browsers play it (MDN's web video codec guide).
            settings.codecs = ["h264": CodecLimits(profiles: Self.h264Profiles, hdr: false),
                               "vp9": CodecLimits(profiles: ["Profile 0", "Profile 2"]),
                               "av1": CodecLimits(profiles: ["Main"])]
            settings.containers = ["h264": ["mp4"], "vp9": ["webm", "mp4"], "av1": ["mp4", "webm"]]
            settings.indexFirst = true
            // Audio every major browser plays (MDN's web audio codec guide): Vorbis is not played by Safari, PCM
            // only from WAV files, AC-3 and E-AC-3 only by Safari and Edge.
            settings.audioCodecs = ["aac": Self.aacProfiles, "mp3": [], "opus": [], "flac": []]
        }
        return settings
    }

    /// H.264's profiles up to High, as FFmpeg names them (Extended, High 10, 4:2:2 and 4:4:4 are left out).
    private static let h264Profiles = ["Constrained Baseline", "Baseline", "Main", "High"]

    /// AAC's profiles both targets play, as FFmpeg names them: LC and HE-AAC v1 and v2 (not Main, LTP, LD or ELD).
    private static let aacProfiles = ["LC", "HE-AAC", "HE-AACv2"]

    /// The levels each codec's specification defines, as `probe` writes them (H.264 Annex A, HEVC Annex A, VP9's
    /// and AV1's level tables); FrameFarm reads no other codec's level.
    public static let levels: [String: [Double]] = [
        "h264": [1, 1.1, 1.2, 1.3, 2, 2.1, 2.2, 3, 3.1, 3.2, 4, 4.1, 4.2, 5, 5.1, 5.2, 6, 6.1, 6.2],
        "hevc": [1, 2, 2.1, 3, 3.1, 4, 4.1, 5, 5.1, 5.2, 6, 6.1, 6.2],
        "vp9": [1, 1.1, 2, 2.1, 3, 3.1, 4, 4.1, 5, 5.1, 5.2, 6, 6.1, 6.2],
        "av1": (2...7).flatMap { major in (0...3).map { Double(major) + Double($0) / 10 } },
    ]
}

/// A policy file that cannot be used: the message names the file, the line and the rule.
public struct LintPolicyError: Error, CustomStringConvertible, Sendable, Equatable {
    public let description: String
}

/// The names a policy file's `codec` and `container` limits may use: FFmpeg's, which FrameFarmCore does not link
/// (`LintVocabulary.ffmpeg`, in FrameFarmMedia, gives them).
public struct LintVocabulary: Sendable {
    /// The profiles FFmpeg names for `codec` (empty where it names none); nil when FFmpeg has no codec of that name.
    public var profiles: @Sendable (String) -> [String]?
    /// Whether a container may be called this (`probe`'s `fileFormat`).
    public var isFileFormat: @Sendable (String) -> Bool

    /// Whether a codec is one of audio (true) or of video (false); nil for other codecs (subtitles, data).
    public var isAudio: @Sendable (String) -> Bool?
    /// Whether it takes every name (`anything`): then no profile is unknown either.
    let takesAnything: Bool

    public init(profiles: @escaping @Sendable (String) -> [String]?, isFileFormat: @escaping @Sendable (String) -> Bool,
                isAudio: @escaping @Sendable (String) -> Bool?) {
        self.init(profiles: profiles, isFileFormat: isFileFormat, isAudio: isAudio, takesAnything: false)
    }

    private init(profiles: @escaping @Sendable (String) -> [String]?, isFileFormat: @escaping @Sendable (String) -> Bool,
                 isAudio: @escaping @Sendable (String) -> Bool?, takesAnything: Bool) {
        self.profiles = profiles
        self.isFileFormat = isFileFormat
        self.isAudio = isAudio
        self.takesAnything = takesAnything
    }

    /// Takes every name (where FFmpeg is not at hand).
    public static let anything = LintVocabulary(profiles: { _ in [] }, isFileFormat: { _ in true }, isAudio: { _ in nil },
                                                takesAnything: true)
}

/// A lint policy file: JSON, `{"profile": NAME, "rules": {RULE: {"enabled": Bool, "severity": S, thresholds...}}}`.
/// Every key is optional; what a file leaves out keeps its profile's value (`default` when it names none). The
/// thresholds a rule takes: `keyframe-interval` `warningSeconds`, `errorSeconds` (its severity follows them, so it
/// takes no `severity`); `fill-crops-too-much` `percent`, `devices` (ids or groups of the device catalog);
/// `too-short-for-track` `intervalSeconds`; `variable-frame-rate` `irregularPercent`; `codec` `allowed`
/// (`{CODEC: {"profiles": [...], "maxLevel": N, "hdr": Bool}}`); `container` `containers` (`{CODEC: [FORMAT...]}`),
/// `sampleEntries` (`{CODEC: [TAG...]}`) and `indexFirst`; `audio-codec` `codecs` (`{CODEC: [PROFILE...]}`, an
/// empty list for any profile); `frame-rate` `max`. An unknown rule, key or value (a
/// codec, profile or container `vocabulary` does not know) is an error, never ignored; so are `codec`, `container`
/// and `frame-rate` enabled with no limits (they would pass everything) or given limits without being enabled
/// where they are off (they would not run).
public enum LintPolicy {
    /// The settings `text`, read from `file`, describes; `profile` is the base when the file names none.
    public static func settings(parsing text: String, file: String, profile: LintProfile? = nil,
                                catalog: DeviceCatalog = .builtIn,
                                vocabulary: LintVocabulary = .anything) throws(LintPolicyError) -> LintSettings {
        func fail(_ message: String, near key: String? = nil) -> LintPolicyError {
            let line = key.flatMap { text.range(of: "\"\($0)\"") }.map { text[..<$0.lowerBound].filter { $0 == "\n" }.count + 1 }
            return LintPolicyError(description: "\(file)\(line.map { ":\($0)" } ?? ""): \(message)")
        }
        do { try StrictJSON.check(Array(text.utf8)) } catch {
            throw LintPolicyError(description: "\(file):\(error.line): not valid JSON: column \(error.column): \(error.reason)")
        }
        guard case .object(let root)? = try? JSONDecoder().decode(JSONValue.self, from: Data(text.utf8)) else {
            throw fail("not a JSON object")
        }
        for key in root.keys.sorted() where key != "profile" && key != "rules" {
            throw fail("unknown key \"\(key)\" (a policy has \"profile\" and \"rules\")", near: key)
        }
        var base = profile
        if let value = root["profile"] {
            guard case .string(let name) = value, let named = LintProfile(rawValue: name) else {
                throw fail("unknown profile (\(LintProfile.allCases.map(\.rawValue).joined(separator: ", ")))", near: "profile")
            }
            if let profile, profile != named {
                throw fail("the file's profile \(named.rawValue) differs from --profile \(profile.rawValue)", near: "profile")
            }
            base = named
        }
        var settings = (base ?? .default).settings
        guard case .object(let rules) = root["rules"] ?? .object([:]) else {
            throw fail("\"rules\" must be an object of rule ids", near: "rules")
        }
        for (id, value) in rules.sorted(by: { $0.key < $1.key }) {
            guard let rule = LintRule(rawValue: id) else { throw fail("unknown rule \"\(id)\"", near: id) }
            guard case .object(let fields) = value else { throw fail("rule \"\(id)\" must be an object", near: id) }
            do {
                try apply(fields, to: rule, in: &settings, catalog: catalog)
                try checkNames(of: rule, in: settings, vocabulary: vocabulary)
                try checkLimits(of: rule, in: settings, given: fields)
            } catch {
                throw fail("rule \"\(id)\": \(error.description)", near: id)
            }
        }
        return settings
    }

    /// The codecs, profiles and containers of `rule`'s limits are names `vocabulary` knows: a misspelt one would
    /// fail every input with a finding that names the misspelling as what the target plays.
    private static func checkNames(of rule: LintRule, in settings: LintSettings,
                                   vocabulary: LintVocabulary) throws(LintPolicyError) {
        func profiles(_ codec: String) throws(LintPolicyError) -> [String] {
            guard let known = vocabulary.profiles(codec) else {
                throw LintPolicyError(description: "unknown codec \"\(codec)\" (codecs go by FFmpeg's names, as probe gives "
                                      + "them: h264, hevc, vp9, av1, ...)")
            }
            return known
        }
        switch rule {
        case .codec, .audioCodec:
            let named = rule == .codec ? settings.codecs.mapValues(\.profiles) : settings.audioCodecs
            for (codec, listed) in named.sorted(by: { $0.key < $1.key }) {
                let known = try profiles(codec)
                // A video codec among audio ones (or the other way) is read by no stream, so every one fails.
                if let isAudio = vocabulary.isAudio(codec), isAudio != (rule == .audioCodec) {
                    throw LintPolicyError(description: "\(codec) is \(isAudio ? "an audio" : "a video") codec; \(rule.rawValue) "
                                          + "names \(rule == .audioCodec ? "audio codecs (aac, opus, mp3, ...)" : "video codecs (h264, hevc, vp9, av1, ...)")")
                }
                if !vocabulary.takesAnything, let unknown = listed.first(where: { !known.contains($0) }) {
                    // A profile of a codec that has none would be read by no stream, which would then pass.
                    let names = known.isEmpty ? "FFmpeg names no \(codec) profiles: give an empty list"
                        : "FFmpeg names \(codec)'s " + known.joined(separator: ", ")
                    throw LintPolicyError(description: "unknown \(codec) profile \"\(unknown)\" (\(names))")
                }
            }
        case .container:
            for codec in Set(settings.containers.keys).union(settings.sampleEntries.keys).sorted() { _ = try profiles(codec) }
            for format in settings.containers.values.joined() where !vocabulary.isFileFormat(format) {
                throw LintPolicyError(description: "unknown container \"\(format)\" (mp4, mov, mpegts, webm, matroska, or "
                                      + "another of probe's fileFormat names)")
            }
            for entry in settings.sampleEntries.values.joined() where entry.utf8.count != 4 {
                throw LintPolicyError(description: "sample entry \"\(entry)\" is not a four-character code (hvc1, avc1, ...)")
            }
        default: break
        }
    }

    /// `codec`, `container`, `audio-codec` and `frame-rate` judge by the limits given them: enabled with none, they would pass
    /// every input; given some without being enabled where they are off, they would not run.
    private static func checkLimits(of rule: LintRule, in settings: LintSettings,
                                    given fields: [String: JSONValue]) throws(LintPolicyError) {
        let limited: Bool
        switch rule {
        case .codec: limited = !settings.codecs.isEmpty
        case .container: limited = !settings.containers.isEmpty || !settings.sampleEntries.isEmpty || settings.indexFirst
        case .audioCodec: limited = !settings.audioCodecs.isEmpty
        case .frameRate: limited = settings.maxFrameRate != nil
        default: return
        }
        let enabled = !settings.disabled.contains(rule)
        if enabled, !limited {
            let keys = switch rule {
            case .codec: "allowed"
            case .container: "containers, sampleEntries or indexFirst"
            case .audioCodec: "codecs"
            default: "max"
            }
            throw LintPolicyError(description: "enabled with no limits, it would pass every input: give \(keys)")
        }
        if !enabled, limited, fields["enabled"] == nil, fields.keys.contains(where: { $0 != "severity" }) {
            throw LintPolicyError(description: "limits given to a disabled rule, which does not run: add \"enabled\": true")
        }
    }

    /// `settings` as a policy file (every rule, with its state, severity and thresholds), the form
    /// `lint --print-profile` prints and `--policy-file` reads back to the same settings.
    public static func document(_ settings: LintSettings, profile: LintProfile) -> String {
        var rules: [String: Any] = [:]
        for rule in LintRule.allCases {
            var fields: [String: Any] = ["enabled": !settings.disabled.contains(rule)]
            if rule != .keyframeInterval { fields["severity"] = (settings.severities[rule] ?? rule.defaultSeverity).rawValue }
            switch rule {
            case .keyframeInterval:
                fields["warningSeconds"] = settings.keyframeWarningSeconds
                fields["errorSeconds"] = settings.keyframeErrorSeconds
            case .fillCropsTooMuch:
                fields["percent"] = settings.fillCropPercent
                fields["devices"] = settings.fillScreens.map(\.name)
            case .tooShortForTrack: fields["intervalSeconds"] = settings.trackIntervalSeconds
            case .variableFrameRate: fields["irregularPercent"] = settings.variableFramePercent
            case .codec:
                fields["allowed"] = settings.codecs.mapValues { limits -> [String: Any] in
                    var entry: [String: Any] = ["profiles": limits.profiles, "hdr": limits.hdr]
                    if let level = limits.maxLevel { entry["maxLevel"] = level }
                    return entry
                }
            case .container:
                fields["containers"] = settings.containers
                fields["sampleEntries"] = settings.sampleEntries
                fields["indexFirst"] = settings.indexFirst
            case .audioCodec: fields["codecs"] = settings.audioCodecs
            case .frameRate: if let rate = settings.maxFrameRate { fields["max"] = rate }
            default: break
            }
            rules[rule.rawValue] = fields
        }
        let data = try! JSONSerialization.data(withJSONObject: ["profile": profile.rawValue, "rules": rules],
                                               options: [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes])
        return String(decoding: data, as: UTF8.self) + "\n"
    }

    private static func apply(_ fields: [String: JSONValue], to rule: LintRule, in settings: inout LintSettings,
                              catalog: DeviceCatalog) throws(LintPolicyError) {
        func number(_ key: String, _ range: ClosedRange<Double>) throws(LintPolicyError) -> Double? {
            guard let value = fields[key] else { return nil }
            guard case .number(let number) = value, range.contains(number) else {
                throw LintPolicyError(description: "\(key) must be a number from \(range.lowerBound) to \(range.upperBound)")
            }
            return number
        }
        let thresholds: Set<String> = switch rule {
        case .keyframeInterval: ["warningSeconds", "errorSeconds"]
        case .fillCropsTooMuch: ["percent", "devices"]
        case .tooShortForTrack: ["intervalSeconds"]
        case .variableFrameRate: ["irregularPercent"]
        case .codec: ["allowed"]
        case .container: ["containers", "sampleEntries", "indexFirst"]
        case .audioCodec: ["codecs"]
        case .frameRate: ["max"]
        default: []
        }
        let allowed = thresholds.union(rule == .keyframeInterval ? ["enabled"] : ["enabled", "severity"])
        if let unknown = fields.keys.sorted().first(where: { !allowed.contains($0) }) {
            throw LintPolicyError(description: "unknown key \"\(unknown)\" (it takes \(allowed.sorted().joined(separator: ", ")))")
        }
        if let value = fields["enabled"] {
            guard case .bool(let enabled) = value else { throw LintPolicyError(description: "enabled must be true or false") }
            if enabled { settings.disabled.remove(rule) } else { settings.disabled.insert(rule) }
        }
        if let value = fields["severity"] {
            guard case .string(let name) = value, let severity = LintSeverity(rawValue: name) else {
                throw LintPolicyError(description: "severity must be info, warning or error")
            }
            // Kept only where it differs, so a printed profile reads back to the same settings.
            settings.severities[rule] = severity == rule.defaultSeverity ? nil : severity
        }
        settings.keyframeWarningSeconds = try number("warningSeconds", 0...86_400) ?? settings.keyframeWarningSeconds
        settings.keyframeErrorSeconds = try number("errorSeconds", 0...86_400) ?? settings.keyframeErrorSeconds
        if settings.keyframeWarningSeconds > settings.keyframeErrorSeconds {
            throw LintPolicyError(description: "warningSeconds must not be above errorSeconds")
        }
        settings.fillCropPercent = try number("percent", 0...100) ?? settings.fillCropPercent
        settings.trackIntervalSeconds = try number("intervalSeconds", 0.001...86_400) ?? settings.trackIntervalSeconds
        settings.variableFramePercent = try number("irregularPercent", 0...100) ?? settings.variableFramePercent
        settings.maxFrameRate = try number("max", 1...1000) ?? settings.maxFrameRate
        if let value = fields["indexFirst"] {
            guard case .bool(let first) = value else { throw LintPolicyError(description: "indexFirst must be true or false") }
            settings.indexFirst = first
        }
        if let value = fields["containers"] { settings.containers = try lists(value, named: "containers") }
        if let value = fields["sampleEntries"] { settings.sampleEntries = try lists(value, named: "sampleEntries") }
        if let value = fields["codecs"] { settings.audioCodecs = try lists(value, named: "codecs") }
        if let value = fields["allowed"] {
            guard case .object(let codecs) = value else {
                throw LintPolicyError(description: "allowed must be an object of codecs, {\"h264\": {\"profiles\": [...], \"maxLevel\": 4.2}}")
            }
            var limits: [String: CodecLimits] = [:]
            for (codec, entry) in codecs {
                guard case .object(let keys) = entry, keys.keys.allSatisfy(["profiles", "maxLevel", "hdr"].contains) else {
                    throw LintPolicyError(description: "allowed \"\(codec)\" takes profiles, maxLevel and hdr")
                }
                var codecLimits = CodecLimits()
                if let hdr = keys["hdr"] {
                    guard case .bool(let plays) = hdr else { throw LintPolicyError(description: "allowed \"\(codec)\" hdr must be true or false") }
                    codecLimits.hdr = plays
                }
                if let profiles = keys["profiles"] { codecLimits.profiles = try strings(profiles, named: "allowed \"\(codec)\" profiles") }
                if let level = keys["maxLevel"] {
                    guard let known = LintProfile.levels[codec] else {
                        throw LintPolicyError(description: "allowed \"\(codec)\" maxLevel: levels are read for "
                                              + LintProfile.levels.keys.sorted().joined(separator: ", ") + " only")
                    }
                    // 4.7 would be taken as "up to 4.2" without a word.
                    guard case .number(let number) = level, known.contains(where: { abs($0 - number) < 1e-9 }) else {
                        throw LintPolicyError(description: "allowed \"\(codec)\" maxLevel must be one of \(codec)'s "
                                              + "levels: " + known.map { String(format: "%g", $0) }.joined(separator: ", "))
                    }
                    codecLimits.maxLevel = number
                }
                limits[codec] = codecLimits
            }
            settings.codecs = limits
        }
        if let value = fields["devices"] {
            guard case .array(let items) = value, !items.isEmpty,
                  case let ids = items.compactMap({ if case .string(let id) = $0 { id } else { nil } }),
                  ids.count == items.count else {
                throw LintPolicyError(description: "devices must be a list of device ids or groups")
            }
            do {
                settings.fillScreens = try catalog.select(ids.joined(separator: ",")).map(LintScreen.init(device:))
            } catch {
                throw LintPolicyError(description: "devices: \(error)")
            }
        }
    }
}

/// A list of strings from a policy file.
private func strings(_ value: JSONValue, named name: String) throws(LintPolicyError) -> [String] {
    guard case .array(let items) = value,
          case let texts = items.compactMap({ if case .string(let text) = $0 { text } else { nil } }), texts.count == items.count else {
        throw LintPolicyError(description: "\(name) must be a list of strings")
    }
    return texts
}

/// An object of string lists from a policy file, `{CODEC: [...]}`.
private func lists(_ value: JSONValue, named name: String) throws(LintPolicyError) -> [String: [String]] {
    guard case .object(let entries) = value else { throw LintPolicyError(description: "\(name) must be an object of codecs") }
    var result: [String: [String]] = [:]
    for (key, list) in entries { result[key] = try strings(list, named: "\(name) \"\(key)\"") }
    return result
}

/// A JSON value as a policy file holds it: booleans and numbers kept apart (JSONSerialization reads 0 and 1 as
/// booleans too).
private enum JSONValue: Decodable {
    case bool(Bool), number(Double), string(String), array([JSONValue]), object([String: JSONValue]), null

    init(from decoder: Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let value = try? container.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try? container.decode(Double.self) {
            self = .number(value)
        } else if let value = try? container.decode(String.self) {
            self = .string(value)
        } else if let value = try? container.decode([JSONValue].self) {
            self = .array(value)
        } else {
            self = .object(try container.decode([String: JSONValue].self))
        }
    }
}
