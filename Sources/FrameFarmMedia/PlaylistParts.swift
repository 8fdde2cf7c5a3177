import Foundation
import FrameFarmCore

/// The files a local HLS playlist is made of, for a re-run to tell whether the video changed: a segment can be
/// replaced (a packager run again on one part, a corrected segment copied in) behind a playlist left as it was.
public enum PlaylistParts {
    /// One line per file the playlist at `path` names (segments, keys, `EXT-X-MAP` sections; a multivariant
    /// playlist's variants and rendition playlists, and the files those name): its address, size and modification
    /// time. Nil for a remote playlist, a DASH manifest, or a playlist that cannot be read. Files only: a
    /// 2-hour playlist's 1,800 segments cost 1,800 `stat` calls.
    public static func listing(_ path: String) -> String? {
        let lowered = path.lowercased()
        guard !RemoteInput.isRemote(path), lowered.hasSuffix(".m3u8") || lowered.hasSuffix(".m3u"),
              let (text, _) = PlaylistScan.text(path) else { return nil }
        var lines: [String] = []
        for address in addresses(in: text) {
            let file = PlaylistScan.resolve(address, against: path)
            guard !RemoteInput.isRemote(file) else { continue }
            lines.append(address + " " + describe(file))
            let nested = file.lowercased()
            if nested.hasSuffix(".m3u8") || nested.hasSuffix(".m3u"), let (inner, _) = PlaylistScan.text(file) {
                for innerAddress in addresses(in: inner) {
                    let innerFile = PlaylistScan.resolve(innerAddress, against: file)
                    if !RemoteInput.isRemote(innerFile) { lines.append(address + " " + innerAddress + " " + describe(innerFile)) }
                }
            }
        }
        return lines.joined(separator: "\n")
    }

    /// Every address in a playlist's text: the lines that are not tags, and `URI="..."` attributes.
    private static func addresses(in text: String) -> [String] {
        text.split(whereSeparator: \.isNewline).compactMap { line -> String? in
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if trimmed.isEmpty { return nil }
            guard trimmed.hasPrefix("#") else { return trimmed }
            return PlaylistScan.uriAttribute(in: trimmed).map { String(trimmed[$0]) }
        }
    }

    /// "size seconds.nanoseconds" of the file an address names, read as a browser reads a playlist from disk
    /// (`%20` a space, a query not part of the name) when the address itself is not a file; "-" when neither is.
    private static func describe(_ file: String) -> String {
        var status = stat()
        let withoutQuery = String(file.prefix { $0 != "?" && $0 != "#" })
        for candidate in [file, withoutQuery.removingPercentEncoding ?? withoutQuery]
        where stat(ForeignNames.openable(candidate), &status) == 0 {
            return "\(status.st_size) \(status.st_mtim.tv_sec).\(status.st_mtim.tv_nsec)"
        }
        return "-"
    }
}
