import Foundation
import FrameFarmCore

/// Reads box headers of ISO BMFF (MP4) files without interpreting payloads. Pure; thread-safe.
enum MP4Boxes {
    /// The header at `offset` as written: its type, the size it claims (the 64-bit `largesize` when the 32-bit
    /// size is 1; 0 means "to the end") and the header's own length; nil when it does not fit before `limit`.
    private static func fields(in data: Data, at offset: Int, limit: Int)
        -> (type: String, claimedSize: UInt64, headerSize: Int)? {
        guard limit - offset >= 8 else { return nil }
        let size32 = readUInt32(data, offset)
        let type = String(decoding: data[(data.startIndex + offset + 4)..<(data.startIndex + offset + 8)],
                          as: UTF8.self)
        guard size32 == 1 else { return (type, UInt64(size32), 8) }
        guard limit - offset >= 16 else { return nil }
        return (type, UInt64(readUInt32(data, offset + 8)) << 32 | UInt64(readUInt32(data, offset + 12)), 16)
    }

    /// Whether the file at `path` is an MP4 or MOV cut short before its index was written: it opens with a box
    /// such files open with ('ftyp', or 'wide', 'free' or 'mdat' in QuickTime files older than 'ftyp') and holds
    /// media data ('mdat') but no 'moov' box at its top level. That is what an interrupted recording or copy
    /// leaves, since muxers write the index last unless asked to move it to the front. Reads box headers only.
    static func isCutShortBeforeIndex(path: String) -> Bool {
        let types = topLevelTypes(path: path)
        let openings: Set = ["ftyp", "wide", "free", "skip", "mdat"]
        return types.first.map(openings.contains) == true && types.contains("mdat") && !types.contains("moov")
    }

    /// Whether the index ('moov') of the MP4 or MOV at `path` comes before its media data ('mdat'), so a player
    /// reading it over http starts at once; nil when the file has not both at its top level.
    /// An http(s) input's box headers are read in range requests, one per box up to the first of the two (the
    /// index of an index-last file is one request at its end).
    static func isIndexFirst(path: String) -> Bool? {
        let types: [String]
        if RemoteInput.isRemote(path) {
            guard let reader = try? RemoteReader(name: path), reader.peek(8) != nil, let size = reader.size else { return nil }
            types = topLevelTypes(bytes: UInt64(size), until: ["moov", "mdat"]) { reader.peek(16, at: Int($0)) }
        } else {
            types = topLevelTypes(path: path)
        }
        guard let index = types.firstIndex(of: "moov"), let media = types.firstIndex(of: "mdat") else { return nil }
        return index < media
    }

    /// The boxes a fragmented-MP4 segment or initialization segment opens with.
    static let segmentOpenings: Set = ["styp", "moof", "sidx", "emsg", "prft", "ftyp", "free"]

    /// Why a fragmented-MP4 segment (or initialization segment) of `size` bytes, whose first bytes are `head`, is
    /// cut short: a top-level box whose header lies in `head` runs past its end. Nil when none does, or when `head`
    /// does not open with a box such segments open with (an MPEG-TS segment).
    static func cutShortSegment(head: Data, size: Int) -> String? {
        guard let first = fields(in: head, at: 0, limit: head.count), segmentOpenings.contains(first.type) else { return nil }
        var offset = 0
        while offset < size, let box = fields(in: head, at: offset, limit: min(head.count, size)) {
            // 0 is "to the end of the file"; below the header's own length is not a box.
            guard box.claimedSize >= UInt64(box.headerSize) else { return nil }
            let end = UInt64(offset) + box.claimedSize
            if end > UInt64(size) {
                return "it is cut short: its '\(box.type)' box needs \(end) bytes, the file has \(size)"
            }
            offset = Int(end)
        }
        return nil
    }

    /// The types of the boxes at the top level of the file at `path`, in order (box headers only).
    private static func topLevelTypes(path: String) -> [String] {
        guard let handle = FileHandle(forReadingAtPath: ForeignNames.openable(path)) else { return [] }
        defer { try? handle.close() }
        guard let fileBytes = try? handle.seekToEnd() else { return [] }
        return topLevelTypes(bytes: fileBytes) { offset in
            guard (try? handle.seek(toOffset: offset)) != nil else { return nil }
            return try? handle.read(upToCount: 16)
        }
    }

    /// The types of the top-level boxes of `bytes` bytes whose headers `header(offset)` gives, stopping once every
    /// type of `until` is found.
    private static func topLevelTypes(bytes: UInt64, until wanted: Set<String> = [],
                                      header: (UInt64) -> Data?) -> [String] {
        var types: [String] = []
        var offset: UInt64 = 0
        while offset + 8 <= bytes, types.count < 10_000, wanted.isEmpty || !wanted.isSubset(of: types) {
            guard let data = header(offset), let box = fields(in: data, at: 0, limit: data.count) else { break }
            types.append(box.type)
            // 0 is "to the end of the file"; below 8 is not a box.
            guard box.claimedSize >= 8 else { break }
            offset += box.claimedSize
        }
        return types
    }

    private static func readUInt32(_ data: Data, _ offset: Int) -> UInt32 {
        let start = data.startIndex + offset
        return data[start..<(start + 4)].reduce(0) { $0 << 8 | UInt32($1) }
    }
}
