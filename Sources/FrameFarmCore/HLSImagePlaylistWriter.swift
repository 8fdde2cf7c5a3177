/// The HLS image media playlist of a thumbnail track (Roku/Apple "HLS Image Media Playlists" v0.4:
/// `EXT-X-IMAGES-ONLY`, one segment per sprite sheet with its `EXT-X-TILES`).

/// Writes `thumbnails.m3u8` and the multivariant playlist line that points at it. Pure; thread-safe.
public enum HLSImagePlaylistWriter {
    /// The image media playlist. Each sheet's `EXT-X-TILES` gives the tile size, that sheet's own layout (a cut
    /// last sheet says so) and the per-thumbnail duration; `EXTINF` is the time the sheet covers.
    public static func playlist(for track: ThumbnailTrack, baseURI: String = "") -> String {
        var lines = [
            "#EXTM3U",
            "#EXT-X-VERSION:7",
            "#EXT-X-TARGETDURATION:\(targetDuration(track.sheets.map(\.duration)))",
            // 1 like the spec's examples, and so segment numbers match the sheet file numbers.
            "#EXT-X-MEDIA-SEQUENCE:1",
            "#EXT-X-PLAYLIST-TYPE:VOD",
            "#EXT-X-IMAGES-ONLY",
        ]
        let tileDuration = TimeFormatting.decimalSeconds(track.interval)
        for sheet in track.sheets {
            lines.append("#EXT-X-TILES:RESOLUTION=\(track.tileSize),LAYOUT=\(sheet.columns)x\(sheet.rows),"
                + "DURATION=\(tileDuration)")
            lines.append("#EXTINF:\(TimeFormatting.decimalSeconds(sheet.duration)),")
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

    /// EXT-X-TARGETDURATION: the longest segment duration, as written (to the millisecond), rounded up.
    static func targetDuration(_ durations: [Double]) -> Int {
        let longest = durations.map(TimeFormatting.milliseconds).max() ?? 0
        return max(1, (longest + 999) / 1000)
    }
}
