import Foundation

/// An HLS media playlist's segments (RFC 8216 section 4.3.2), read so that the playlist can be opened again from
/// one of them: `text(from:)` is the same playlist without the segments before it. FrameFarm seeks in playlists
/// that way: FFmpeg 5.1's hls demuxer seeks fragmented-MP4 segments to garbage, and MPEG-TS ones imprecisely.
public struct HLSMediaPlaylist: Sendable {
    public struct Segment: Sendable {
        /// `#EXTINF` seconds.
        public var duration: Double
        /// Lines of the text from the first after the previous segment's address to this segment's address.
        var lines: Range<Int>
        /// The `#EXT-X-BYTERANGE` sub-range, when it has one: bytes from `offset`.
        var byteRange: (length: Int, offset: Int)?
        /// Whether `#EXT-X-DISCONTINUITY` precedes it: from here on the timestamps may start again and the codec's
        /// parameters change (an advertisement stitched in, a programme joined to another).
        public var startsDiscontinuity = false
    }

    public let segments: [Segment]
    private let lines: [String]
    private let mediaSequence: Int

    /// Tags that describe the one segment they precede; every other tag applies to the playlist or, like
    /// `#EXT-X-KEY` and `#EXT-X-MAP`, to every segment after it, and is kept when earlier segments are left out.
    private static func describesOneSegment(_ tag: String) -> Bool {
        tag == "#EXT-X-DISCONTINUITY" || tag == "#EXT-X-GAP"
            || ["#EXTINF:", "#EXT-X-BYTERANGE:", "#EXT-X-PROGRAM-DATE-TIME:", "#EXT-X-BITRATE:"].contains(where: tag.hasPrefix)
    }

    /// Nil when `text` is not a media playlist (no `#EXTM3U` header, no segment, or a multivariant playlist).
    public init?(_ text: String) {
        let lines = text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline)
            .map { $0.trimmingCharacters(in: .whitespaces) }
        guard lines.first == "#EXTM3U", !text.contains("#EXT-X-STREAM-INF") else { return nil }
        var segments: [Segment] = []
        var duration: Double?, range: (length: Int, offset: Int)?, nextOffset = 0, blockStart = 1
        var sequence = 0, discontinuity = false
        for (index, line) in lines.enumerated() {
            if line == "#EXT-X-DISCONTINUITY" {
                discontinuity = true
            } else if line.hasPrefix("#EXTINF:") {
                duration = Double(line.dropFirst(8).prefix { $0 != "," }.trimmingCharacters(in: .whitespaces))
            } else if line.hasPrefix("#EXT-X-BYTERANGE:") {
                let parts = line.dropFirst(17).split(separator: "@")
                guard let length = parts.first.flatMap({ Int($0) }) else { return nil }
                // Without an offset, the range follows the previous segment's.
                range = (length, parts.count > 1 ? Int(parts[1]) ?? nextOffset : nextOffset)
            } else if line.hasPrefix("#EXT-X-MEDIA-SEQUENCE:") {
                sequence = Int(line.dropFirst(22)) ?? 0
            } else if !line.isEmpty, !line.hasPrefix("#") {
                segments.append(Segment(duration: duration ?? 0, lines: blockStart..<(index + 1), byteRange: range,
                                        startsDiscontinuity: discontinuity && !segments.isEmpty))
                if let range { nextOffset = range.offset + range.length }
                duration = nil
                range = nil
                discontinuity = false
                blockStart = index + 1
            }
        }
        guard !segments.isEmpty else { return nil }
        self.lines = lines
        self.segments = segments
        self.mediaSequence = sequence
    }

    /// The segment that holds stream time `seconds`, the first segment starting at `firstStart`, by the segments'
    /// declared durations: the last one that starts at or before it (the first, for a time before the stream).
    public func segment(holding seconds: Double, firstStart: Double) -> Int {
        var start = firstStart
        for (index, segment) in segments.enumerated() {
            start += segment.duration
            // A microsecond of slack absorbs rounded durations.
            if start > seconds + 1e-6 { return index }
        }
        return segments.count - 1
    }

    /// When segment `index` starts by the declared durations, the first segment starting at `firstStart`.
    public func start(of index: Int, firstStart: Double) -> Double {
        firstStart + segments.prefix(index).reduce(0) { $0 + $1.duration }
    }

    /// The segments between the discontinuities around segment `index`: those that share its timeline.
    public func run(of index: Int) -> Range<Int> {
        var lower = index, upper = index + 1
        while lower > 0, !segments[lower].startsDiscontinuity { lower -= 1 }
        while upper < segments.count, !segments[upper].startsDiscontinuity { upper += 1 }
        return lower..<upper
    }

    /// Whether a discontinuity divides the segments.
    public var hasDiscontinuities: Bool { segments.contains(where: \.startsDiscontinuity) }

    /// The run (`run(of:)`) of the most seconds, the first of those that tie: a stitched programme's, between its
    /// advertisements.
    public var longestRun: Range<Int> {
        var longest = 0..<0, longestSeconds = -1.0, start = 0
        while start < segments.count {
            let run = run(of: start), seconds = segments[run].reduce(0) { $0 + $1.duration }
            if seconds > longestSeconds { (longest, longestSeconds) = (run, seconds) }
            start = run.upperBound
        }
        return longest
    }

    /// Segment `index`'s address as the playlist writes it.
    public func address(of index: Int) -> String { lines[segments[index].lines.upperBound - 1] }

    /// The longest declared duration.
    public var longestDuration: Double { segments.map(\.duration).max() ?? 0 }

    /// The playlist of segments `first` up to `end` (all the rest when nil): the segments before them left out,
    /// with the tags that still apply to the rest (keys, initialization sections), its media sequence number (an
    /// AES-128 segment's default IV) and its byte range made explicit; the segments after them left out with
    /// their tags.
    public func text(from first: Int, to end: Int? = nil) -> String {
        let end = end ?? segments.count
        guard first > 0 || end < segments.count else { return lines.joined(separator: "\n") }
        var kept: [String] = []
        let dropped = segments[0].lines.lowerBound..<segments[first].lines.lowerBound
        let droppedAfter = end < segments.count ? segments[end].lines.lowerBound..<segments[segments.count - 1].lines.upperBound : 0..<0
        var sequenceWritten = false
        for (index, line) in lines.enumerated() {
            if droppedAfter.contains(index) { continue }
            if dropped.contains(index), !line.hasPrefix("#") || Self.describesOneSegment(line) { continue }
            if line.hasPrefix("#EXT-X-MEDIA-SEQUENCE:") {
                kept.append("#EXT-X-MEDIA-SEQUENCE:\(mediaSequence + first)")
                sequenceWritten = true
            } else if line.hasPrefix("#EXT-X-BYTERANGE:"), segments[first].lines.contains(index),
                      let range = segments[first].byteRange {
                kept.append("#EXT-X-BYTERANGE:\(range.length)@\(range.offset)")
            } else {
                kept.append(line)
            }
        }
        if !sequenceWritten { kept.insert("#EXT-X-MEDIA-SEQUENCE:\(mediaSequence + first)", at: 1) }
        return kept.joined(separator: "\n")
    }
}
