import Foundation

/// DRM that a streaming playlist declares: content FrameFarm cannot decrypt, named so its failure says why.
/// Clear streams and HLS AES-128 (or SAMPLE-AES) with a plain key (`KEYFORMAT="identity"` or none), which FFmpeg
/// decrypts with the key the playlist points to, are not DRM.
public enum StreamProtection {
    /// The DRM system an HLS playlist's `#EXT-X-KEY` / `#EXT-X-SESSION-KEY` lines or a DASH manifest's
    /// `<ContentProtection>` elements declare, or nil when they declare none.
    public static func drm(in text: String) -> String? {
        if text.hasPrefix("#EXTM3U") { return hlsDRM(text) }
        if text.contains("<MPD") { return dashDRM(text) }
        return nil
    }

    private static func hlsDRM(_ text: String) -> String? {
        for line in text.split(whereSeparator: \.isNewline) {
            guard line.hasPrefix("#EXT-X-KEY:") || line.hasPrefix("#EXT-X-SESSION-KEY:") else { continue }
            let attributes = attributes(of: line[line.index(after: line.firstIndex(of: ":")!)...])
            let method = attributes["METHOD"] ?? "NONE"
            let format = attributes["KEYFORMAT"] ?? "identity"
            let uri = attributes["URI"] ?? ""
            if method == "NONE" { continue }
            if uri.lowercased().hasPrefix("skd://") || format == "com.apple.streamingkeydelivery" { return "FairPlay" }
            if format != "identity" { return system(named: format) }
        }
        return nil
    }

    private static func dashDRM(_ text: String) -> String? {
        guard text.contains("ContentProtection") else { return nil }
        let lowered = text.lowercased()
        for (uuid, name) in systems where lowered.contains(uuid) { return name }
        return "Common Encryption (a ContentProtection element)"
    }

    /// DRM systems by their DASH-IF system ids, as KEYFORMAT and schemeIdUri give them.
    private static let systems = [("edef8ba9-79d6-4ace-a3c8-27dcd51d21ed", "Widevine"),
                                  ("9a04f079-9840-4286-ab92-e65be0885f95", "PlayReady"),
                                  ("94ce86fb-07ff-4f43-adb8-93d2fa968ca2", "FairPlay")]

    private static func system(named format: String) -> String {
        let lowered = format.lowercased()
        if let known = systems.first(where: { lowered.contains($0.0) }) { return known.1 }
        if lowered.contains("playready") { return "PlayReady" }
        return "KEYFORMAT \"\(format)\""
    }

    /// `NAME=value` pairs of an HLS attribute list; quoted values may hold commas.
    private static func attributes(of list: Substring) -> [String: String] {
        var result: [String: String] = [:]
        var rest = list[...]
        while let equals = rest.firstIndex(of: "=") {
            let name = rest[..<equals].trimmingCharacters(in: .whitespaces)
            var value = rest[rest.index(after: equals)...]
            let end: Substring.Index
            if value.first == "\"" {
                value = value.dropFirst()
                end = value.firstIndex(of: "\"") ?? value.endIndex
                result[name] = String(value[..<end])
                rest = value[end...].drop { $0 != "," }.dropFirst()
            } else {
                end = value.firstIndex(of: ",") ?? value.endIndex
                result[name] = String(value[..<end])
                rest = value[end...].dropFirst()
            }
        }
        return result
    }
}
