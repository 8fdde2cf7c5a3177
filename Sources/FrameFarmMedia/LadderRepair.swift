import Foundation
import FrameFarmCore

/// A multivariant HLS playlist some of whose renditions cannot be read past their playlist (a first segment
/// missing, or no media, an initialization section gone): FFmpeg's hls demuxer opens every rendition's first
/// segment and fails the whole input on one, where a player leaves that rendition out and plays the others.
/// FrameFarm does as players do: the ladder is opened again without the renditions that fail alone, each named
/// among the renditions skipped (`VideoStreamInfo.skippedRenditions`).
enum LadderRepair {
    struct Ladder: Sendable {
        /// The multivariant playlist without the renditions left out, its addresses made absolute.
        let text: String
        /// What the original's addresses were relative to (where a remote one's redirects led).
        let base: String
        /// Why each was left out.
        let skipped: [InputError]
    }

    /// By the playlist's path or name: every later open of the same input (parallel decoding) reads the same ladder.
    private static let ladders = Locked<[String: Ladder]>([:])

    /// The ladder `repaired` made for `path`, if it made one.
    static func known(_ path: String) -> Ladder? { ladders.withLock { $0[path] } }

    /// The multivariant playlist at `path` without its renditions that cannot be opened alone; nil when it is not
    /// one, when every rendition opens alone (the failure lies elsewhere: an audio rendition, the playlist), or when
    /// none does (nothing is left to read).
    static func repaired(_ path: String) -> Ladder? {
        if let ladder = known(path) { return ladder }
        guard let (text, base) = PlaylistScan.text(path) else { return nil }
        let variants = PlaylistScan.variants(in: text)
        let addresses = Set(variants.map(\.address))
        guard addresses.count > 1 else { return nil }
        var broken: [String: InputError] = [:]
        for address in addresses.sorted() {
            let resolved = PlaylistScan.resolve(address, against: base)
            let name = RemoteInput.isRemote(resolved) ? RemoteInput.registerNested(resolved, within: base) : resolved
            do {
                // Its first segment is read with its first packet (FFmpeg opens the playlist without it).
                guard try MediaFile(path: name).readVideoPacket() != nil else { throw InputError.noVideoStream }
            } catch {
                broken[address] = .renditionFailed(rendition: address, reason: "\(error)")
            }
        }
        guard !broken.isEmpty, broken.count < addresses.count else { return nil }
        let ladder = Ladder(text: PlaylistScan.absolutized(without(Set(broken.keys), in: text), against: base), base: base,
                            skipped: variants.compactMap { broken.removeValue(forKey: $0.address) })
        ladders.withLock { $0[path] = ladder }
        return ladder
    }

    /// `text` without the `#EXT-X-STREAM-INF` tags of `addresses` and the addresses after them.
    private static func without(_ addresses: Set<String>, in text: String) -> String {
        var kept: [Substring] = [], pendingTag: Substring?
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            let trimmed = line.trimmingCharacters(in: .whitespacesAndNewlines)
            if trimmed.hasPrefix("#EXT-X-STREAM-INF") {
                pendingTag = line
            } else if let tag = pendingTag, !trimmed.isEmpty, !trimmed.hasPrefix("#") {
                if !addresses.contains(trimmed) { kept += [tag, line] }
                pendingTag = nil
            } else {
                kept.append(line)
            }
        }
        return kept.joined(separator: "\n")
    }
}
