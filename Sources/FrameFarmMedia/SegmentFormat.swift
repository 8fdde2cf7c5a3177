import Foundation

/// Whether what a playlist names opens as the things playlists name do, read from its first bytes before FFmpeg
/// opens it. FFmpeg's hls demuxer reads a segment of other bytes (an error page a server sent with status 200, a
/// text file) as holding nothing and goes on to the next, so the frames after it would stand in for its part of
/// the video without a word.
enum SegmentFormat {
    /// The formats a segment may be in, as messages name them.
    static let names = "MPEG-TS, MP4, WebM, AAC, MP3, AC-3"

    /// Why the segment (or initialization section, AES-128 key or rendition playlist) of `size` bytes (nil when
    /// unknown), whose first bytes are `head`, cannot be read: in no format segments come in, or a fragmented-MP4
    /// one cut short. Nil when it may be read.
    static func problem(head: Data, size: Int?) -> String? {
        let bytes = [UInt8](head.prefix(256))
        if bytes.isEmpty, size ?? 0 == 0 { return "file is empty (0 bytes)" }
        guard isRecognised(bytes, size: size) else {
            return "it is not in a format segments come in (\(names)): it begins \(opening(bytes))"
        }
        return size.flatMap { MP4Boxes.cutShortSegment(head: head, size: $0) }
    }

    private static func isRecognised(_ bytes: [UInt8], size: Int?) -> Bool {
        // An AES-128 key is 16 bytes of anything.
        if (size ?? bytes.count) == 16 { return true }
        let text = bytes.starts(with: [0xEF, 0xBB, 0xBF]) ? Array(bytes.dropFirst(3)) : bytes
        if text.starts(with: Array("#EXTM3U".utf8)) || text.starts(with: Array("WEBVTT".utf8)) { return true }
        guard bytes.count >= 4 else { return false }
        // MPEG-TS packets of 188 bytes, each opening with its sync byte.
        let mpegTS = bytes[0] == 0x47 && (bytes.count <= 188 || bytes[188] == 0x47)
        // Matroska/WebM: the EBML header, or a Segment, Cluster or Cues element (a WebM media segment opens with its
        // Cluster).
        let ebml = [[0x1A, 0x45, 0xDF, 0xA3], [0x18, 0x53, 0x80, 0x67], [0x1F, 0x43, 0xB6, 0x75], [0x1C, 0x53, 0xBB, 0x6B]]
            .contains { bytes.starts(with: $0) }
        // Packed audio: an ID3 tag (HLS's timestamp), or an ADTS/MPEG audio or AC-3 sync word.
        let audio = bytes.starts(with: Array("ID3".utf8)) || (bytes[0] == 0xFF && bytes[1] & 0xE0 == 0xE0)
            || bytes.starts(with: [0x0B, 0x77])
        return mpegTS || ebml || audio || isBox(bytes, size: size)
    }

    /// Whether `bytes` open with an ISO BMFF box header: a type such segments open with, or another of four letters or
    /// digits whose size fits in the file (the first bytes of a text rarely do both).
    private static func isBox(_ bytes: [UInt8], size: Int?) -> Bool {
        guard bytes.count >= 8 else { return false }
        let type = String(decoding: bytes[4..<8], as: UTF8.self)
        // A segment's opening box, or one a whole MP4 named as a segment opens with.
        if MP4Boxes.segmentOpenings.union(["skip", "moov", "mdat"]).contains(type) { return true }
        let letterOrDigit = { (byte: UInt8) in (0x30...0x39).contains(byte) || (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte) }
        guard bytes[4..<8].allSatisfy(letterOrDigit) else { return false }
        let claimed = bytes[0..<4].reduce(0) { $0 << 8 | Int($1) }
        return claimed == 0 || claimed == 1 || (claimed >= 8 && claimed <= (size ?? Int.max))
    }

    /// The first bytes as a person can read them: the text up to its first line's end, or in hex.
    private static func opening(_ bytes: [UInt8]) -> String {
        let line = bytes.prefix { $0 != 0x0A && $0 != 0x0D }.prefix(40)
        if !line.isEmpty, line.allSatisfy({ (0x20..<0x7F).contains($0) || $0 == 0x09 }) {
            return "\"" + String(decoding: line, as: UTF8.self) + (line.count == 40 ? "…" : "") + "\""
        }
        return bytes.prefix(8).map { String(format: "%02X", $0) }.joined(separator: " ")
    }
}
