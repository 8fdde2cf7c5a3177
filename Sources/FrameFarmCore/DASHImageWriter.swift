/// The DASH thumbnail track: an image adaptation set per DASH-IF IOP "Thumbnail images" (`thumbnail_tile`).

/// Writes `thumbnails.mpd`, or the adaptation set alone for an MPD written elsewhere. Pure; thread-safe.
///
/// DASH-IF describes every segment by one grid: the Representation's `width`/`height` are the full grid
/// (`ThumbnailTrack.gridSize`), `@value` is `CxR`, and each segment lasts `columns * rows * interval`, over
/// which its tiles are spread evenly. The last sheet may be cut to the rows it needs; its tiles still sit at
/// their grid positions and times, so players that locate tiles from the grid show the right ones (the last
/// segment simply ends at the period end).
public enum DASHImageWriter {
    public static let thumbnailTileScheme = "http://dashif.org/guidelines/thumbnail_tile"
    public static let profile = "urn:mpeg:dash:profile:isoff-live:2011"

    /// A complete static MPD with one Period holding only the thumbnail adaptation set.
    public static func mpd(for track: ThumbnailTrack, bandwidth: Int) -> String {
        let duration = TimeFormatting.xsDuration(track.duration)
        return """
            <?xml version="1.0" encoding="UTF-8"?>
            <MPD xmlns="urn:mpeg:dash:schema:mpd:2011" profiles="\(profile)" type="static" \
            mediaPresentationDuration="\(duration)" minBufferTime="PT2S">
              <Period id="0" start="PT0S">
            \(adaptationSet(for: track, bandwidth: bandwidth, indent: "    "))
              </Period>
            </MPD>

            """
    }

    /// The image `AdaptationSet` element, each line prefixed with `indent`.
    public static func adaptationSet(for track: ThumbnailTrack, bandwidth: Int, id: String = "thumbnails",
                                     indent: String = "") -> String {
        let grid = track.gridSize
        let segmentMilliseconds = max(1, TimeFormatting.milliseconds(track.fullSheetDuration))
        let lines = [
            "<AdaptationSet contentType=\"image\" mimeType=\"\(track.format.mimeType)\">",
            "  <SegmentTemplate media=\"\(MarkupEscaping.escaped(track.naming.dashTemplate(track.format)))\" timescale=\"1000\" "
                + "duration=\"\(segmentMilliseconds)\" startNumber=\"1\"/>",
            "  <Representation id=\"\(MarkupEscaping.escaped(id))\" bandwidth=\"\(bandwidth)\" width=\"\(grid.width)\" "
                + "height=\"\(grid.height)\">",
            "    <EssentialProperty schemeIdUri=\"\(thumbnailTileScheme)\" value=\"\(track.columns)x\(track.rows)\"/>",
            "  </Representation>",
            "</AdaptationSet>",
        ]
        return lines.map { indent + $0 }.joined(separator: "\n")
    }
}
