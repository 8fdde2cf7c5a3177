import Foundation
import FrameFarmCore

/// Reads an HLS playlist (and the rendition playlists a multivariant one lists) or a DASH manifest before FFmpeg
/// opens it, for the DRM it declares (`StreamProtection`): FFmpeg would fail on such a stream with a key or
/// decryption error that does not say why.
enum PlaylistScan {
    /// Playlists and manifests are text of a few kilobytes to a few megabytes (a long video's segments, each with
    /// its own signed URL); one larger than this is not read.
    static let largestText = 16 << 20

    /// Whether `path` (a file or a remote input's name) names a playlist or manifest by its extension.
    static func isPlaylist(_ path: String) -> Bool {
        let lowered = path.lowercased()
        return lowered.hasSuffix(".m3u8") || lowered.hasSuffix(".m3u") || lowered.hasSuffix(".mpd")
    }

    /// Why FrameFarm cannot read the stream `path` or one of its rendition playlists describes: the DRM system
    /// one declares, or a live stream (FFmpeg would reload a live playlist for as long as it grows); nil when
    /// neither, or when they cannot be read here (FFmpeg then says what is wrong).
    static func refusal(_ path: String) -> InputError? {
        guard let (text, base) = self.text(path) else { return nil }
        if let refusal = refusal(inText: text) { return refusal }
        for variant in variants(in: text) {
            guard let nested = self.text(resolve(variant.address, against: base), within: base)?.text else { continue }
            if let refusal = refusal(inText: nested) { return refusal }
        }
        return nil
    }

    /// A multivariant playlist's variants in order: each `#EXT-X-STREAM-INF` tag and the address after it.
    static func variants(in text: String) -> [(tag: String, address: String)] {
        var variants: [(tag: String, address: String)] = []
        var tag: String?
        for line in text.split(whereSeparator: \.isNewline).map({ $0.trimmingCharacters(in: .whitespaces) }) {
            if line.hasPrefix("#EXT-X-STREAM-INF") {
                tag = line
            } else if let open = tag, !line.isEmpty, !line.hasPrefix("#") {
                variants.append((open, line))
                tag = nil
            }
        }
        return variants
    }

    /// Why FrameFarm cannot read the stream a playlist's or manifest's `text` describes (see `refusal(_:)`).
    static func refusal(inText text: String) -> InputError? {
        // FFmpeg's hls demuxer does not know the playlist behind the mark, which it would call invalid data.
        if text.unicodeScalars.first == "\u{FEFF}", text.unicodeScalars.dropFirst().starts(with: "#EXTM3U".unicodeScalars) {
            return .unreadablePlaylist("it starts with a byte-order mark, which RFC 8216 forbids; save it as UTF-8 without one")
        }
        if let system = StreamProtection.drm(in: text) { return .drmProtected(system) }
        // A media playlist (it lists segments) that is still growing; a DASH manifest of a live presentation.
        let liveHLS = text.contains("#EXTINF") && !text.contains("#EXT-X-ENDLIST")
            && !text.contains("#EXT-X-PLAYLIST-TYPE:VOD")
        let liveDASH = text.contains("<MPD") && (text.contains("type=\"dynamic\"") || text.contains("type='dynamic'"))
        return liveHLS || liveDASH ? .livePlaylist : nil
    }

    /// `reference` as a path or URL name, relative to the playlist at `base`.
    static func resolve(_ reference: String, against base: String) -> String {
        if RemoteInput.isRemote(reference) { return reference }
        if reference.hasPrefix("/") { return RemoteInput.isRemote(base) ? origin(of: base) + reference : reference }
        guard let slash = base.lastIndex(of: "/") else { return reference }
        return String(base[...slash]) + reference
    }

    /// An HLS playlist's `text` with every address it names (its segments', variants', and those of `URI="..."`
    /// attributes) resolved against `base`: for a playlist read at one address and given to FFmpeg under another.
    static func absolutized(_ text: String, against base: String) -> String {
        text.split(separator: "\n", omittingEmptySubsequences: false).map { line -> String in
            let trimmed = line.trimmingCharacters(in: .whitespacesAndNewlines)
            guard !trimmed.isEmpty else { return String(line) }
            guard trimmed.hasPrefix("#") else { return resolve(trimmed, against: base) }
            guard let address = uriAttribute(in: trimmed) else { return String(line) }
            return String(trimmed[..<address.lowerBound]) + resolve(String(trimmed[address]), against: base)
                + trimmed[address.upperBound...]
        }.joined(separator: "\n")
    }

    /// Where the address of a tag's `URI="..."` attribute lies in `line` (`EXT-X-KEY`, `EXT-X-MAP`, `EXT-X-MEDIA`).
    static func uriAttribute(in line: String) -> Range<String.Index>? {
        guard let open = line.range(of: "URI=\""), let close = line[open.upperBound...].firstIndex(of: "\"") else { return nil }
        return open.upperBound..<close
    }

    private static func origin(of name: String) -> String {
        guard let schemeEnd = name.range(of: "://"),
              let pathStart = name[schemeEnd.upperBound...].firstIndex(of: "/") else { return name }
        return String(name[..<pathStart])
    }

    /// The text of the playlist at `path`, and what its addresses are relative to (where a remote one's redirects
    /// led, else `path`); a remote one named by `parent` takes its query, as `RemoteReader`'s nested opener gives it.
    /// Nil when it cannot be read, or is larger than `largestText`.
    static func text(_ path: String, within parent: String? = nil) -> (text: String, base: String)? {
        let remote = RemoteInput.isRemote(path)
        let reader = remote ? try? RemoteReader(name: parent.map { RemoteInput.registerNested(path, within: $0) } ?? path) : nil
        guard !remote || reader != nil, let data = read(path, reader: reader), data.count <= largestText else { return nil }
        return (String(decoding: data, as: UTF8.self), reader?.base ?? path)
    }

    /// Up to one byte more than `largestText` of `path`, through `reader` when remote; nil when nothing could be read.
    static func read(_ path: String, reader: RemoteReader?) -> Data? {
        if let reader { return reader.readAll(limit: largestText + 1) }
        guard let handle = FileHandle(forReadingAtPath: ForeignNames.openable(path)) else { return nil }
        defer { try? handle.close() }
        return try? handle.read(upToCount: largestText + 1)
    }
}
