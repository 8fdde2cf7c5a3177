/// Strict parsers for the manifests the writers produce, written from the specs' grammars (not from the writers).

import Foundation

struct ParseFailure: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

/// A WebVTT cue: times in milliseconds and its one payload line.
struct VTTCue {
    var start: Int
    var end: Int
    var payload: String
}

/// `HH:MM:SS.mmm` (hours two or more digits) to milliseconds.
func parseVTTTime(_ text: Substring) throws -> Int {
    let parts = text.split(separator: ":", omittingEmptySubsequences: false)
    guard parts.count == 3, parts[0].count >= 2, parts[1].count == 2, parts[2].count == 6,
          parts[2].dropFirst(2).first == ".", let hours = Int(parts[0]), let minutes = Int(parts[1]),
          let seconds = Int(parts[2].prefix(2)), let millis = Int(parts[2].suffix(3)),
          parts.allSatisfy({ $0.allSatisfy { $0.isASCII && ($0.isNumber || $0 == ".") } }),
          minutes < 60, seconds < 60 else { throw ParseFailure("bad WebVTT time '\(text)'") }
    return ((hours * 60 + minutes) * 60 + seconds) * 1000 + millis
}

/// Parses a WebVTT file whose cues have no identifiers and exactly one payload line.
func parseWebVTT(_ text: String) throws -> [VTTCue] {
    var lines = text.components(separatedBy: "\n")[...]
    guard lines.popFirst() == "WEBVTT", lines.popFirst() == "" else { throw ParseFailure("bad WebVTT header") }
    var cues: [VTTCue] = []
    while let timing = lines.popFirst(), !timing.isEmpty {
        let times = timing.components(separatedBy: " --> ")
        guard times.count == 2, let payload = lines.popFirst(), !payload.isEmpty, lines.popFirst() == "" else {
            throw ParseFailure("bad cue at '\(timing)'")
        }
        cues.append(VTTCue(start: try parseVTTTime(times[0][...]), end: try parseVTTTime(times[1][...]),
                           payload: payload))
    }
    guard lines.isEmpty else { throw ParseFailure("text after the last cue") }
    return cues
}

/// One playlist line: a tag with its value, or a URI.
enum M3ULine: Equatable {
    case tag(name: String, value: String?)
    case uri(String)
}

func parseM3U(_ text: String) throws -> [M3ULine] {
    guard text.hasSuffix("\n") else { throw ParseFailure("playlist must end with a newline") }
    return try text.dropLast().components(separatedBy: "\n").map { line in
        guard !line.isEmpty, !line.contains("\r") else { throw ParseFailure("empty or CR line") }
        guard line.hasPrefix("#") else { return .uri(line) }
        guard line.hasPrefix("#EXT") else { throw ParseFailure("comment line '\(line)'") }
        let name = line.prefix { $0 != ":" }
        guard name.dropFirst().allSatisfy({ $0.isUppercase || $0.isNumber || $0 == "-" }) else {
            throw ParseFailure("bad tag name '\(name)'")
        }
        return .tag(name: String(name), value: name.count == line.count ? nil : String(line.dropFirst(name.count + 1)))
    }
}

/// RFC 8216 attribute list: `NAME=value` pairs, values quoted strings, decimals, resolutions or enumerations.
func parseAttributes(_ text: String) throws -> [String: String] {
    var result: [String: String] = [:]
    var rest = text[...]
    while !rest.isEmpty {
        let name = rest.prefix { $0 != "=" }
        guard !name.isEmpty, name.allSatisfy({ $0.isUppercase || $0.isNumber || $0 == "-" }),
              name.count < rest.count else { throw ParseFailure("bad attribute name in '\(text)'") }
        rest = rest.dropFirst(name.count + 1)
        let value: Substring
        if rest.first == "\"" {
            guard let close = rest.dropFirst().firstIndex(of: "\"") else { throw ParseFailure("open quote") }
            value = rest[...close]
        } else {
            value = rest.prefix { $0 != "," }
            guard !value.isEmpty, value.allSatisfy({ $0.isLetter || $0.isNumber || "-.x".contains($0) }) else {
                throw ParseFailure("bad attribute value in '\(text)'")
            }
        }
        guard result.updateValue(String(value), forKey: String(name)) == nil else {
            throw ParseFailure("duplicate attribute \(name)")
        }
        rest = rest.dropFirst(value.count)
        if !rest.isEmpty {
            guard rest.first == ",", rest.count > 1 else { throw ParseFailure("bad separator in '\(text)'") }
            rest = rest.dropFirst()
        }
    }
    return result
}

/// `EXTINF` value `<decimal>,` (no title) in milliseconds, requiring three decimals.
func parseExtinf(_ value: String?) throws -> Int {
    guard let value, value.hasSuffix(","), let millis = parseDecimalMilliseconds(String(value.dropLast())) else {
        throw ParseFailure("bad EXTINF '\(value ?? "")'")
    }
    return millis
}

/// `12.345` to 12345; nil unless exactly three decimals.
func parseDecimalMilliseconds(_ text: String) -> Int? {
    let parts = text.split(separator: ".", omittingEmptySubsequences: false)
    guard parts.count == 2, parts[1].count == 3, let whole = Int(parts[0]), let fraction = Int(parts[1]),
          whole >= 0, fraction >= 0 else { return nil }
    return whole * 1000 + fraction
}
