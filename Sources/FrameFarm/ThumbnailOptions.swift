import FrameFarmCore

/// Manifests `thumbnails` can write (`--manifests vtt,hls,dash,iframes`).
public enum ThumbnailManifest: String, Sendable, CaseIterable {
    case vtt, hls, dash, iframes

    public static func parseList(_ text: String) throws -> Set<ThumbnailManifest> {
        Set(try text.split(separator: ",").map { item in
            guard let manifest = ThumbnailManifest(rawValue: String(item)) else {
                throw ValueParseError(kind: "manifest", value: String(item), expected: "vtt, hls, dash or iframes")
            }
            return manifest
        })
    }
}

/// Everything `thumbnails` can be asked, with the documented defaults.
public struct ThumbnailOptions: Sendable {
    /// Thumbnail width in pixels; the height follows the display aspect ratio, rounded to an even number.
    public var width = 160
    public var spacing = ThumbnailSpacing.interval(10)
    public var columns = 10
    public var rows = 10
    public var format = ImageFormat.jpeg
    public var quality = 85
    public var seek = SeekMode.exact
    public var manifests: Set<ThumbnailManifest> = Set(ThumbnailManifest.allCases)
    public var removePadding = true
    public var resampling = Resampling()

    public init() {}

    var settings: [String: String] {
        let spacingText: String = switch spacing {
        case .interval(let seconds): "interval \(seconds)"
        case .count(let count): "count \(count)"
        }
        return ["width": "\(width)", "spacing": spacingText, "grid": "\(columns)x\(rows)", "format": format.rawValue,
                "quality": "\(quality)", "seek": seek.rawValue,
                "manifests": manifests.map(\.rawValue).sorted().joined(separator: ","),
                "removePadding": removePadding ? "auto" : "off"].merging(resampling.settings) { $1 }
    }

    /// Tile size for content of `display` size: `width` wide, height from the aspect ratio rounded to even.
    func tileSize(for content: PixelSize) -> PixelSize {
        let height = Double(width) * Double(content.height) / Double(max(1, content.width))
        return PixelSize(width: width, height: max(2, Int((height / 2).rounded()) * 2))
    }
}
