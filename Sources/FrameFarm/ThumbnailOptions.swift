import FrameFarmCore

/// Manifests `thumbnails` can write (`--manifests vtt,hls,dash,iframes`).
public enum ThumbnailManifest: String, Sendable, CaseIterable {
    case vtt, hls, dash, iframes

    public static func parseList(_ text: String) throws -> Set<ThumbnailManifest> {
        Set(try text.split(separator: ",", omittingEmptySubsequences: false).map { item in
            guard let manifest = ThumbnailManifest(rawValue: String(item)) else {
                throw ValueParseError(kind: "manifest", value: String(item), expected: "vtt, hls, dash or iframes")
            }
            return manifest
        })
    }
}

/// Everything `thumbnails` can be asked, with the documented defaults.
public struct ThumbnailOptions: Sendable {
    /// Thumbnail widths in pixels, one track each from the same decoded frames (`--widths`); the height follows
    /// the display aspect ratio, rounded to an even number. One width writes its track straight into
    /// `thumbnails/`, several each into `thumbnails/WIDTH/`.
    public var widths = [160]
    public var spacing = ThumbnailSpacing.interval(10)
    public var columns = 10
    public var rows = 10
    /// The longest side a sheet may have (`--max-sheet-pixels`): Android's bitmap limit and Roku's sprite limits;
    /// a grid that would pass it is lowered for that track (`grid(for:)`).
    public var maxSheetSide = ThumbnailOptions.defaultMaxSheetSide
    public var format = ImageFormat.jpeg
    public var quality = 85
    public var seek = SeekMode.exact
    public var manifests: Set<ThumbnailManifest> = Set(ThumbnailManifest.allCases)
    public var removePadding = PaddingRemoval.auto
    public var resampling = Resampling()

    public init() {}

    var settings: ThumbnailSettings {
        ThumbnailSettings(width: widths, spacing: spacing,
                          grid: SheetGrid(columns: columns, rows: rows, maxSheetSide: maxSheetSide), format: format,
                          quality: quality, seek: seek, manifests: manifests,
                          removePadding: removePadding, filter: resampling.filter,
                          linearLight: OnOff(resampling.linearLight))
    }

    public static let defaultMaxSheetSide = 4096

    /// The grid for tiles of `tile` size: the one asked for, with fewer columns or rows where a sheet would be
    /// longer than `maxSheetSide`, then fewer rows (and, if one row is still too many pixels, fewer columns) where
    /// it would hold more than `maxPixels`, what the GPU draws a sheet into at once (at least one of each).
    func grid(for tile: PixelSize, maxPixels: Int = .max) -> (columns: Int, rows: Int) {
        var columns = min(columns, max(1, maxSheetSide / max(1, tile.width)))
        var rows = min(rows, max(1, maxSheetSide / max(1, tile.height)))
        let tilePixels = max(1, tile.area)
        if columns * rows * tilePixels > maxPixels {
            rows = max(1, maxPixels / (columns * tilePixels))
            if columns * tilePixels > maxPixels { columns = max(1, maxPixels / tilePixels) }
        }
        return (columns, rows)
    }

    /// Tile size for content of `content` size: `width` wide, height from the aspect ratio rounded to even. A
    /// tile that would be taller than `maxSide` (a strip of a video far taller than wide) is narrowed to that
    /// height instead, keeping the aspect ratio, so that even a one-tile sheet stays within the limit.
    static func tileSize(for content: PixelSize, width: Int, maxSide: Int = .max) -> PixelSize {
        let aspect = Double(content.height) / Double(max(1, content.width))
        let height = max(2, Int((Double(width) * aspect / 2).rounded()) * 2)
        guard height > maxSide else { return PixelSize(width: width, height: height) }
        let cappedHeight = max(2, maxSide / 2 * 2)
        return PixelSize(width: min(width, max(1, Int((Double(cappedHeight) / aspect).rounded()))), height: cappedHeight)
    }
}

/// What a thumbnails section records it was made with; a re-run with other settings redoes it.
public struct ThumbnailSettings: Codable, Hashable, Sendable {
    /// The widths, comma-separated ("160", as records of one width have always read).
    @Setting var width: [Int]
    @Setting var spacing: ThumbnailSpacing
    @Setting var grid: SheetGrid
    @Setting var format: ImageFormat
    @Setting var quality: Int
    @Setting var seek: SeekMode
    @Setting var manifests: Set<ThumbnailManifest>
    @Setting var removePadding: PaddingRemoval
    @Setting var filter: ResamplingFilter
    @Setting var linearLight: OnOff
}
