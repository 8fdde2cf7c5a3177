/// The layout of a trick-play thumbnail track: which thumbnail covers which time and where it sits in which
/// sprite sheet. Every thumbnail manifest is written from one `ThumbnailTrack`.

import Foundation

/// How thumbnails are spaced: every `interval` seconds, or `count` evenly over the duration (`--count N`).
public enum ThumbnailSpacing: Sendable, Hashable {
    case interval(Double)
    case count(Int)
}

/// Thumbnail times and sprite-sheet layout for one video. A value type; thread-safe.
///
/// Tiles are laid out row-major from the top-left of a `columns` x `rows` grid, so a tile's position depends only
/// on its index within its sheet. Every sheet but the last is the full grid. The last sheet is cut to the rows it
/// needs (and to its tile count in columns when it has a single row); a partial last row keeps the full width.
/// Players that locate tiles from the grid (DASH-IF `thumbnail_tile`, which describes every sheet by the full
/// grid) still find each tile where it is; HLS describes each sheet's own layout in its `EXT-X-TILES`, and
/// WebVTT names each tile's rect.
public struct ThumbnailTrack: Sendable, Equatable {
    /// One thumbnail: the time it covers and its tile in a sheet.
    public struct Thumbnail: Sendable, Equatable {
        public var index: Int
        public var startTime: Double
        public var endTime: Double
        /// 0-based index into `sheets`.
        public var sheetIndex: Int
        /// The tile's pixels in its sheet.
        public var tileRect: PixelRect
    }

    /// One sprite-sheet image.
    public struct Sheet: Sendable, Equatable {
        /// 0-based; file names count from 1.
        public var index: Int
        public var fileName: String
        /// The image's pixel size: the full grid, except for a cut last sheet.
        public var size: PixelSize
        public var columns: Int
        public var rows: Int
        /// The thumbnails in this sheet, as indices into `thumbnails`.
        public var thumbnailRange: Range<Int>
        public var startTime: Double
        public var endTime: Double
        public var duration: Double { endTime - startTime }
    }

    /// Shortest thumbnail spacing: WebVTT cues are timed to the millisecond and must not be empty.
    public static let minimumInterval = 0.001

    /// Seconds covered, from 0; the video's duration, or 1 ms for an empty one so the one cue is not empty.
    public let duration: Double
    public let interval: Double
    public let tileSize: PixelSize
    public let columns: Int
    public let rows: Int
    public let format: ImageFormat
    public let naming: SheetNaming
    public let thumbnails: [Thumbnail]
    public let sheets: [Sheet]

    /// Lays out the thumbnails of a video of `duration` seconds. A video shorter than one interval (or of
    /// duration 0) gets exactly one thumbnail; `--count` is lowered where it would space thumbnails under 1 ms.
    public init(duration: Double, spacing: ThumbnailSpacing, tileSize: PixelSize, columns: Int, rows: Int,
                format: ImageFormat = .jpeg, naming: SheetNaming = .standard) throws {
        guard tileSize.width > 0, tileSize.height > 0 else { throw ThumbnailTrackError.invalidTileSize(tileSize) }
        guard columns > 0, rows > 0 else { throw ThumbnailTrackError.invalidGrid(columns: columns, rows: rows) }
        let (covered, interval, count) = try Self.timing(duration: duration, spacing: spacing)
        self.interval = interval
        self.duration = covered
        self.tileSize = tileSize
        self.columns = columns
        self.rows = rows
        self.format = format
        self.naming = naming
        (thumbnails, sheets) = Self.layout(count: count, interval: interval, duration: covered, tileSize: tileSize,
                                           columns: columns, rows: rows, fileName: { naming.fileName($0, format) })
    }

    /// The thumbnails' start times (seconds from 0) for a video of `duration` seconds: what decoding needs,
    /// known before the tile size is.
    public static func startTimes(duration: Double, spacing: ThumbnailSpacing) throws -> [Double] {
        let (_, interval, count) = try timing(duration: duration, spacing: spacing)
        return (0..<count).map { Double($0) * interval }
    }

    /// Seconds covered, spacing and count of the thumbnails.
    private static func timing(duration: Double, spacing: ThumbnailSpacing) throws
        -> (covered: Double, interval: Double, count: Int) {
        guard duration.isFinite, duration >= 0 else { throw ThumbnailTrackError.invalidDuration(duration) }
        let covered = max(duration, minimumInterval)
        switch spacing {
        case .interval(let seconds):
            guard seconds.isFinite, seconds >= minimumInterval else { throw ThumbnailTrackError.invalidInterval(seconds) }
            // A thumbnail starts wherever at least 1 ms is left; a tail under 1 ms joins the one before rather than
            // make an empty cue. The slack keeps floating point from taking 0.039 / 0.001 for 38.99... (the last
            // millisecond had no thumbnail, which DASH, timing tiles by the interval, still pointed at).
            let steps = (covered - minimumInterval) / seconds
            return (covered, seconds, Int((steps * (1 + 1e-12) + 1e-9).rounded(.down)) + 1)
        case .count(let requested):
            guard requested > 0 else { throw ThumbnailTrackError.invalidCount(requested) }
            let count = min(requested, max(1, Int((covered / minimumInterval).rounded(.down))))
            // In whole milliseconds, as WebVTT times cues: a tile is then taken at the time its cue starts (at
            // 6.6733 s it showed the frame after the one on screen at the cue's 6.673), and HLS's and DASH's tile
            // durations place every cue start in its own tile. The last cue runs on to the end.
            let interval = max(minimumInterval, (covered / Double(count) * 1000 + 1e-6).rounded(.down) / 1000)
            return (covered, interval, count)
        }
    }

    private static func layout(count: Int, interval: Double, duration: Double, tileSize: PixelSize, columns: Int,
                               rows: Int, fileName: (Int) -> String) -> ([Thumbnail], [Sheet]) {
        let perSheet = columns * rows
        let thumbnails = (0..<count).map { index in
            let slot = index % perSheet
            let rect = PixelRect(x: slot % columns * tileSize.width, y: slot / columns * tileSize.height,
                                 width: tileSize.width, height: tileSize.height)
            // The last end is the duration itself so cues run exactly from 0 to the duration.
            let end = index == count - 1 ? duration : min(Double(index + 1) * interval, duration)
            return Thumbnail(index: index, startTime: Double(index) * interval, endTime: end,
                             sheetIndex: index / perSheet, tileRect: rect)
        }
        let sheets = stride(from: 0, to: count, by: perSheet).enumerated().map { sheetIndex, first in
            let range = first..<min(first + perSheet, count)
            let sheetColumns = min(columns, range.count)
            let sheetRows = (range.count + columns - 1) / columns
            return Sheet(index: sheetIndex, fileName: fileName(sheetIndex + 1),
                         size: PixelSize(width: sheetColumns * tileSize.width, height: sheetRows * tileSize.height),
                         columns: sheetColumns, rows: sheetRows, thumbnailRange: range,
                         startTime: thumbnails[range.lowerBound].startTime,
                         endTime: thumbnails[range.upperBound - 1].endTime)
        }
        return (thumbnails, sheets)
    }

    /// The pixel size of a full sheet, which is how DASH describes every sheet.
    public var gridSize: PixelSize { PixelSize(width: columns * tileSize.width, height: rows * tileSize.height) }

    /// Seconds a full sheet covers (`columns * rows * interval`), the DASH segment duration.
    public var fullSheetDuration: Double { Double(columns * rows) * interval }

    /// Peak bit rate in bits/s over the sheets, from each sheet's encoded byte count (HLS/DASH `BANDWIDTH`), as
    /// RFC 8216 measures it (`HLSImagePlaylistWriter.peakBandwidth`).
    public func peakBandwidth(sheetByteCounts: [Int]) -> Int {
        HLSImagePlaylistWriter.peakBandwidth(zip(sheets, sheetByteCounts).map { ($0.startTime, $0.endTime, $1) })
    }

    /// Peak bit rate estimated from the average bytes of a full sheet, before the sheets exist.
    public func estimatedPeakBandwidth(averageSheetBytes: Int) -> Int {
        let longest = sheets.map(\.duration).max() ?? duration
        return Int((Double(averageSheetBytes * 8) / max(longest, Self.minimumInterval)).rounded(.up))
    }
}

/// How sheet files are named: `prefix`, the 1-based sheet number zero-padded to `digits`, `suffix`, extension.
/// Parsed from a pattern such as `sheet-%04d`.
public struct SheetNaming: Sendable, Hashable {
    public var prefix: String
    public var digits: Int
    public var suffix: String

    public static let standard = SheetNaming(uncheckedPrefix: "sheet-", digits: 4, suffix: "")

    private init(uncheckedPrefix prefix: String, digits: Int, suffix: String) {
        self.prefix = prefix
        self.digits = digits
        self.suffix = suffix
    }

    /// Parses a pattern with one `%d` or `%0Nd` (N from 1 to 9), such as `sheet-%04d`; a trailing `.jpg`,
    /// `.jpeg`, `.png` or `.webp` is dropped because the format decides the extension. Other characters are limited to
    /// letters, digits, `-`, `_` and `.` so names need no escaping in any manifest.
    public init(pattern: String) throws {
        var body = pattern
        for fileExtension in [".jpg", ".jpeg", ".png", ".webp"] where body.lowercased().hasSuffix(fileExtension) {
            body.removeLast(fileExtension.count)
        }
        let safe = Set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_.")
        let parts = body.components(separatedBy: "%")
        guard parts.count == 2, let end = parts[1].firstIndex(of: "d") else {
            throw ThumbnailTrackError.invalidFileNamePattern(pattern)
        }
        let width = String(parts[1][..<end]), suffix = String(parts[1][parts[1].index(after: end)...])
        let digits = width.isEmpty ? 1 : width.count == 2 && width.hasPrefix("0") ? Int(width) ?? 0 : 0
        guard (1...9).contains(digits), (parts[0] + suffix).allSatisfy(safe.contains) else {
            throw ThumbnailTrackError.invalidFileNamePattern(pattern)
        }
        self.init(uncheckedPrefix: parts[0], digits: digits, suffix: suffix)
    }

    /// The file name of sheet `number` (1-based).
    public func fileName(_ number: Int, _ format: ImageFormat) -> String {
        let text = String(number)
        let padding = String(repeating: "0", count: max(0, digits - text.count))
        return prefix + padding + text + suffix + "." + format.fileExtension
    }

    /// The DASH SegmentTemplate `@media` for these names: `sheet-$Number%04d$.jpg`.
    public func dashTemplate(_ format: ImageFormat) -> String {
        prefix + "$Number%0\(digits)d$" + suffix + "." + format.fileExtension
    }
}

/// Why a thumbnail track cannot be laid out; the description is the line the user sees.
public enum ThumbnailTrackError: Error, Sendable, Equatable, CustomStringConvertible {
    case invalidDuration(Double)
    case invalidInterval(Double)
    case invalidCount(Int)
    case invalidTileSize(PixelSize)
    case invalidGrid(columns: Int, rows: Int)
    case invalidFileNamePattern(String)

    public var description: String {
        switch self {
        case .invalidDuration(let value): "invalid duration \(value) s: expected 0 or more seconds"
        case .invalidInterval(let value): "invalid thumbnail interval \(value) s: expected at least 0.001 s"
        case .invalidCount(let value): "invalid thumbnail count \(value): expected 1 or more"
        case .invalidTileSize(let size): "invalid thumbnail size \(size): expected positive width and height"
        case .invalidGrid(let columns, let rows): "invalid grid \(columns)x\(rows): expected at least 1x1"
        case .invalidFileNamePattern(let pattern):
            "invalid sheet name pattern '\(pattern)': expected one %d or %0Nd among letters, digits, '-', '_', '.'"
        }
    }
}
