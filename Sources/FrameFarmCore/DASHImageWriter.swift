/// The DASH thumbnail track: an image adaptation set per DASH-IF IOP "Thumbnail images" (`thumbnail_tile`).

/// Writes `thumbnails.mpd` (one track, or several widths of one video), or the adaptation set alone for an MPD
/// written elsewhere. Pure; thread-safe.
///
/// DASH-IF describes every segment by one grid: the Representation's `width`/`height` are the full grid
/// (`ThumbnailTrack.gridSize`), `@value` is `CxR`, and each segment lasts `columns * rows * interval`, over
/// which its tiles are spread evenly. The last sheet may be cut to the rows it needs; its tiles still sit at
/// their grid positions and times, so players that locate tiles from the grid show the right ones (the last
/// segment simply ends at the period end).
public enum DASHImageWriter {
    public static let thumbnailTileScheme = "http://dashif.org/guidelines/thumbnail_tile"
    public static let profile = "urn:mpeg:dash:profile:isoff-live:2011"

    /// One thumbnail track of an MPD: its peak bandwidth, its Representation id, and the path from the MPD's
    /// folder to its sheets ("" beside them; "160/" for one width of several).
    public struct Representation: Sendable {
        public var track: ThumbnailTrack
        public var bandwidth: Int
        public var id: String
        public var folder: String

        public init(track: ThumbnailTrack, bandwidth: Int, id: String = "thumbnails", folder: String = "") {
            self.track = track
            self.bandwidth = bandwidth
            self.id = id
            self.folder = folder
        }
    }

    /// A complete static MPD with one Period holding only the thumbnail adaptation set.
    public static func mpd(for track: ThumbnailTrack, bandwidth: Int) -> String {
        mpd(for: [Representation(track: track, bandwidth: bandwidth)])
    }

    /// A complete static MPD with one Period holding one thumbnail adaptation set of `representations` (several
    /// widths of one video: the player picks the size it shows). Not empty; the tracks share one duration.
    public static func mpd(for representations: [Representation]) -> String {
        let duration = TimeFormatting.xsDuration(representations[0].track.duration)
        return """
            <?xml version="1.0" encoding="UTF-8"?>
            <MPD xmlns="urn:mpeg:dash:schema:mpd:2011" profiles="\(profile)" type="static" \
            mediaPresentationDuration="\(duration)" minBufferTime="PT2S">
              <Period id="0" start="PT0S">
            \(adaptationSet(for: representations, indent: "    "))
              </Period>
            </MPD>

            """
    }

    /// The image `AdaptationSet` element, each line prefixed with `indent`.
    public static func adaptationSet(for track: ThumbnailTrack, bandwidth: Int, id: String = "thumbnails",
                                     indent: String = "") -> String {
        adaptationSet(for: [Representation(track: track, bandwidth: bandwidth, id: id)], indent: indent)
    }

    /// The image `AdaptationSet` of `representations`. One track's SegmentTemplate sits on the set; several
    /// tracks each carry their own, as their folders and grids (so their segment durations) differ.
    public static func adaptationSet(for representations: [Representation], indent: String = "") -> String {
        func segmentTemplate(_ representation: Representation) -> String {
            let track = representation.track
            let media = representation.folder + track.naming.dashTemplate(track.format)
            // In microseconds where milliseconds would round it: a sheet of 7.0 s spelled 6999 ms for 6.9993 s put
            // every later sheet further off.
            let milliseconds = track.fullSheetDuration * 1000
            let timescale = abs(milliseconds - milliseconds.rounded()) < 1e-6 ? 1000 : 1_000_000
            let units = max(1, Int((track.fullSheetDuration * Double(timescale)).rounded()))
            return "<SegmentTemplate media=\"\(MarkupEscaping.escaped(media))\" timescale=\"\(timescale)\" "
                + "duration=\"\(units)\" startNumber=\"1\"/>"
        }
        let shared = representations.count == 1
        var lines = ["<AdaptationSet contentType=\"image\" mimeType=\"\(representations[0].track.format.mimeType)\">"]
        if shared { lines.append("  " + segmentTemplate(representations[0])) }
        for representation in representations {
            let track = representation.track, grid = track.gridSize
            lines.append("  <Representation id=\"\(MarkupEscaping.escaped(representation.id))\" "
                         + "bandwidth=\"\(representation.bandwidth)\" width=\"\(grid.width)\" height=\"\(grid.height)\">")
            // The schema's order: descriptors (RepresentationBaseType) before the segment information.
            lines.append("    <EssentialProperty schemeIdUri=\"\(thumbnailTileScheme)\" value=\"\(track.columns)x\(track.rows)\"/>")
            if !shared { lines.append("    " + segmentTemplate(representation)) }
            lines.append("  </Representation>")
        }
        lines.append("</AdaptationSet>")
        return lines.map { indent + $0 }.joined(separator: "\n")
    }
}
