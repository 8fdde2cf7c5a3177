/// The WebVTT thumbnail track: one cue per thumbnail whose payload is the sheet and the tile's `#xywh=` rect.

/// Writes `thumbnails.vtt`. Pure; thread-safe.
public enum WebVTTWriter {
    /// The WebVTT document for `track`. Cue times run contiguously from 0 to the duration, in milliseconds.
    /// `baseURI` is prepended to sheet names (empty when the VTT sits beside the sheets).
    public static func document(for track: ThumbnailTrack, baseURI: String = "") -> String {
        var lines = ["WEBVTT", ""]
        lines.reserveCapacity(track.thumbnails.count * 3 + 2)
        for thumbnail in track.thumbnails {
            let rect = thumbnail.tileRect
            let sheet = track.sheets[thumbnail.sheetIndex]
            lines.append(TimeFormatting.webVTT(thumbnail.startTime) + " --> " + TimeFormatting.webVTT(thumbnail.endTime))
            lines.append("\(baseURI)\(sheet.fileName)#xywh=\(rect.x),\(rect.y),\(rect.width),\(rect.height)")
            lines.append("")
        }
        return lines.joined(separator: "\n")
    }
}
