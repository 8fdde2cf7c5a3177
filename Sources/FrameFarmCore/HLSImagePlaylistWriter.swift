/// The HLS image media playlist of a thumbnail track (Roku/Apple "HLS Image Media Playlists" v0.4:
/// `EXT-X-IMAGES-ONLY`, one segment per sprite sheet with its `EXT-X-TILES`).

/// Writes `thumbnails.m3u8` and the multivariant playlist line that points at it. Pure; thread-safe.
public enum HLSImagePlaylistWriter {
    /// The image media playlist. Each sheet's `EXT-X-TILES` gives the tile size, that sheet's own layout (a cut
    /// last sheet says so) and the per-thumbnail duration; `EXTINF` is the time the sheet covers (`decimalSpan`).
    /// `DURATION` is the interval, to the microsecond, raised where needed so that the sheet's tiles cover its
    /// `EXTINF`: a player taking `offset / DURATION` as the tile never lands past the layout (an interval of
    /// 0.3333 s written 0.333 put 6.999 s of a 7x3 sheet at tile 21).
    public static func playlist(for track: ThumbnailTrack, baseURI: String = "") -> String {
        var lines = [
            "#EXTM3U",
            "#EXT-X-VERSION:7",
            "#EXT-X-TARGETDURATION:\(targetDuration(track.sheets.map { ($0.startTime, $0.endTime) }))",
            // 1 like the spec's examples, and so segment numbers match the sheet file numbers.
            "#EXT-X-MEDIA-SEQUENCE:1",
            "#EXT-X-PLAYLIST-TYPE:VOD",
            "#EXT-X-IMAGES-ONLY",
        ]
        for sheet in track.sheets {
            let covered = Double(TimeFormatting.millisecondSpan(from: sheet.startTime, to: sheet.endTime)) / 1000
            let tileDuration = max(track.interval, covered / Double(sheet.thumbnailRange.count))
            lines.append("#EXT-X-TILES:RESOLUTION=\(track.tileSize),LAYOUT=\(sheet.columns)x\(sheet.rows),"
                + "DURATION=\(TimeFormatting.microsecondsUp(tileDuration))")
            lines.append("#EXTINF:\(TimeFormatting.decimalSpan(from: sheet.startTime, to: sheet.endTime)),")
            lines.append(baseURI + sheet.fileName)
        }
        lines.append("#EXT-X-ENDLIST")
        return lines.joined(separator: "\n") + "\n"
    }

    /// `#EXT-X-IMAGE-STREAM-INF` for the multivariant playlist. RESOLUTION is the tile (thumbnail) size, as in the
    /// spec's examples; `bandwidth` is the peak bits/s (see `ThumbnailTrack.peakBandwidth`).
    public static func imageStreamInfLine(for track: ThumbnailTrack, bandwidth: Int,
                                          uri: String = "thumbnails.m3u8") -> String {
        "#EXT-X-IMAGE-STREAM-INF:BANDWIDTH=\(bandwidth),RESOLUTION=\(track.tileSize),"
            + "CODECS=\"\(track.format.rawValue)\",URI=\"\(uri)\""
    }

    /// The peak segment bit rate RFC 8216 (4.1) gives `BANDWIDTH`: the largest bit rate of any run of consecutive
    /// segments lasting 0.5 to 1.5 times the target duration (that of `targetDuration`, as the playlist writes it).
    /// Each segment alone would make a short last one (a sheet of one tile, 0.02 s of a clip) the peak, some 50
    /// times what a player fetches in a target duration. A playlist shorter than half the target (at least 1 s)
    /// has no such run: its rate is that of the whole (0 would tell a player the track costs nothing).
    public static func peakBandwidth(_ segments: [(start: Double, end: Double, bytes: Int)]) -> Int {
        let target = Double(targetDuration(segments.map { ($0.start, $0.end) }))
        let shortest = 0.5 * target - 1e-9, longest = 1.5 * target + 1e-9
        // At least a millisecond each, as written.
        func seconds(_ segment: (start: Double, end: Double, bytes: Int)) -> Double { max(segment.end - segment.start, 0.001) }
        var peak = 0.0
        for start in segments.indices {
            var bytes = 0, runSeconds = 0.0
            for segment in segments[start...] {
                (bytes, runSeconds) = (bytes + segment.bytes, runSeconds + seconds(segment))
                if runSeconds > longest { break }
                if runSeconds >= shortest { peak = max(peak, Double(bytes * 8) / runSeconds) }
            }
        }
        let whole = segments.reduce(0.0) { $0 + seconds($1) }
        if whole < shortest, whole > 0 { peak = Double(segments.reduce(0) { $0 + $1.bytes } * 8) / whole }
        return Int(peak.rounded(.up))
    }

    /// EXT-X-TARGETDURATION: the longest segment duration (start and end), as written (`decimalSpan`), rounded up.
    static func targetDuration(_ segments: [(start: Double, end: Double)]) -> Int {
        let longest = segments.map { TimeFormatting.millisecondSpan(from: $0.start, to: $0.end) }.max() ?? 0
        return max(1, (longest + 999) / 1000)
    }
}
