/// Reads back the cues of a thumbnail WebVTT track (what `WebVTTWriter` writes, or any track whose cue payloads
/// are `image#xywh=x,y,w,h`): the review page scrubs from the track a job wrote, so it shows what players show.

/// One cue: the time it covers and the tile it names. Times in milliseconds, as WebVTT states them.
public struct ThumbnailCue: Sendable, Equatable {
    public var startMilliseconds: Int
    public var endMilliseconds: Int
    /// The image as the cue names it (relative to the track's folder, or a URL).
    public var image: String
    public var tileRect: PixelRect

    public init(startMilliseconds: Int, endMilliseconds: Int, image: String, tileRect: PixelRect) {
        self.startMilliseconds = startMilliseconds
        self.endMilliseconds = endMilliseconds
        self.image = image
        self.tileRect = tileRect
    }
}

/// Pure; thread-safe.
public enum WebVTTCueReader {
    /// The cues of `text`, in file order; nil when it is not a WebVTT file or a cue has no `#xywh=` tile.
    public static func cues(in text: String) -> [ThumbnailCue]? {
        let lines = text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline)
        guard let header = lines.first, header.hasPrefix("WEBVTT") else { return nil }
        var cues: [ThumbnailCue] = []
        var index = lines.startIndex
        while index < lines.endIndex {
            let line = lines[index]
            index += 1
            guard line.contains("-->") else { continue }
            let times = line.components(separatedBy: "-->").map { $0.trimmingCharacters(in: .whitespaces) }
            guard times.count == 2, let start = milliseconds(times[0]),
                  let end = milliseconds(String(times[1].prefix { $0 != " " && $0 != "\t" })),
                  index < lines.endIndex, let (image, rect) = tile(String(lines[index])) else { return nil }
            cues.append(ThumbnailCue(startMilliseconds: start, endMilliseconds: end, image: image, tileRect: rect))
        }
        return cues
    }

    /// `[HH:]MM:SS.mmm` in milliseconds.
    static func milliseconds(_ stamp: String) -> Int? {
        let parts = stamp.split(separator: ":")
        let seconds = parts.last?.split(separator: ".") ?? []
        guard (2...3).contains(parts.count), seconds.count == 2, seconds[1].count == 3,
              let whole = Int(seconds[0]), let millis = Int(seconds[1]) else { return nil }
        var minutes = 0
        for part in parts.dropLast() {
            guard let value = Int(part) else { return nil }
            minutes = minutes * 60 + value
        }
        return (minutes * 60 + whole) * 1000 + millis
    }

    /// `sheet-0001.jpg#xywh=160,0,160,90` as the image and its rect.
    static func tile(_ payload: String) -> (String, PixelRect)? {
        guard let marker = payload.range(of: "#xywh=") else { return nil }
        let numbers = payload[marker.upperBound...].split(separator: ",").compactMap {
            Int($0.trimmingCharacters(in: .whitespaces))
        }
        guard numbers.count == 4 else { return nil }
        return (String(payload[..<marker.lowerBound]),
                PixelRect(x: numbers[0], y: numbers[1], width: numbers[2], height: numbers[3]))
    }
}
