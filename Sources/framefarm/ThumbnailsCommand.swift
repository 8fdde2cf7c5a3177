import ArgumentParser
import Foundation
import FrameFarm

struct ThumbnailsCommand: BatchCommand {
    typealias Job = ThumbnailJob
    static let unit = "thumbnails"
    static let configuration = CommandConfiguration(
        commandName: "thumbnails",
        abstract: "Make trick-play thumbnail tracks: sprite sheets, WebVTT, HLS image playlist, DASH, Apple I-frames.",
        discussion: """
            Thumbnail i shows the frame on screen at i x interval (--seek exact) or the keyframe at or before \
            it (--seek keyframe, faster). Writes OUT/<video>/thumbnails/: sheet-0001.jpg ..., thumbnails.vtt, \
            thumbnails.m3u8 (+ thumbnails-stream-inf.txt, the line for a multivariant playlist), thumbnails.mpd, \
            iframes.mp4 + iframes.m3u8 (+ iframes-stream-inf.txt). All paths inside manifests are relative. \
            --poster also writes each video's poster in the same pass (as `framefarm poster` would, with its \
            defaults but for --poster-at and --poster-widths): one process for both, which a library run wants.
            """)

    @OptionGroup var batch: BatchOptions
    @OptionGroup var gpuOptions: GPUOptions

    // Numbers are read `.unconditional`ly, so that a negative one is refused as out of range, not taken for an option.
    @Option(parsing: .unconditional,
            help: "Thumbnail width in pixels, 16 to 1920 (default 160); the height follows the display aspect ratio (even).")
    var width: Int?

    @Option(parsing: .unconditional, help: ArgumentHelp("Several widths, comma-separated, e.g. 160,320,640: a track each (thumbnails/WIDTH/), from the same decoded frames; one width is --width's single track.",
                               valueName: "widths"), transform: parseWidths)
    var widths: [Int]?

    @Option(parsing: .unconditional, help: "Seconds between thumbnails (default 10).")
    var interval: Double?

    @Option(parsing: .unconditional, help: "Number of thumbnails spread evenly over the video (instead of --interval).")
    var count: Int?

    @Option(parsing: .unconditional, help: "Tiles per sprite sheet, CxR with C and R from 1 to 100 (1x1 gives one file per thumbnail) (default: 10x10).",
            transform: parseGrid)
    var grid = Grid(columns: 10, rows: 10)

    @Option(parsing: .unconditional, help: "The longest side a sprite sheet may have, in pixels (default 4096: Android's bitmap limit); a grid that would pass it is lowered for that video, with a warning.")
    var maxSheetPixels = ThumbnailOptions.defaultMaxSheetSide

    @Option(help: "Sheet format (webp-if-available is kept as another name for webp).")
    var format = FormatChoice.jpeg

    @Option(parsing: .unconditional, help: "JPEG or WebP quality 1-100.")
    var quality = 85

    @Option(help: "exact (the frame on screen at each time) or keyframe (nearest keyframe at or before: fast).")
    var seek = SeekMode.exact

    @Option(help: "Manifests to write, comma-separated: vtt, hls, dash, iframes (default: all).",
            transform: { try ThumbnailManifest.parseList($0) })
    var manifests = Set(ThumbnailManifest.allCases)

    @Option(help: "Remove baked-in letterbox/pillarbox bars first.")
    var removePadding = PaddingRemoval.auto

    @Flag(help: "Also write each video's poster, in the same pass (see `framefarm poster`).")
    var poster = false

    @Option(parsing: .unconditional, help: "With --poster: auto, seconds (12.5) or a percentage (25%).",
            transform: { try FrameChoice(parsing: $0) })
    var posterAt: FrameChoice?

    @Option(help: "With --poster: the poster's extra widths, comma-separated (default 1920,640,160).",
            transform: parseWidths)
    var posterWidths: [Int]?

    func jobs() throws -> [any BatchJob] {
        let thumbnails = ThumbnailJob(options: try jobOptions())
        guard poster else {
            if posterAt != nil || posterWidths != nil { throw ValidationError("--poster-at and --poster-widths are for --poster") }
            return [thumbnails]
        }
        var options = PosterOptions()
        options.frame = posterAt ?? options.frame
        options.widths = posterWidths ?? options.widths
        options.removePadding = removePadding
        options.resampling = gpuOptions.resampling
        return [thumbnails, PosterJob(options: options)]
    }

    func jobOptions() throws -> ThumbnailOptions {
        var options = ThumbnailOptions()
        if width != nil && widths != nil { throw ValidationError("give --width or --widths, not both") }
        let asked = widths ?? width.map { [$0] } ?? options.widths
        guard asked.allSatisfy({ (16...1920).contains($0) }) else { throw ValidationError("thumbnail widths must be 16 to 1920") }
        options.widths = asked
        switch (interval, count) {
        case (.some, .some): throw ValidationError("give --interval or --count, not both")
        case (.some(let seconds), nil):
            guard seconds >= 0.001, seconds.isFinite else { throw ValidationError("--interval must be at least 0.001 s") }
            options.spacing = .interval(seconds)
        case (nil, .some(let number)):
            guard number >= 1 else { throw ValidationError("--count must be at least 1") }
            options.spacing = .count(number)
        case (nil, nil): break
        }
        (options.columns, options.rows) = (grid.columns, grid.rows)
        guard maxSheetPixels >= asked.max()! else {
            throw ValidationError("--max-sheet-pixels must be at least the widest thumbnail (\(asked.max()!))")
        }
        options.maxSheetSide = maxSheetPixels
        options.format = format.imageFormat
        guard maxSheetPixels <= options.format.maxSide else {
            throw ValidationError("--max-sheet-pixels must be at most \(options.format.maxSide) for \(options.format.rawValue) sheets (the format's limit)")
        }
        guard (1...100).contains(quality) else { throw ValidationError("--quality must be 1 to 100") }
        options.quality = quality
        options.seek = seek
        options.manifests = manifests
        options.removePadding = removePadding
        options.resampling = gpuOptions.resampling
        return options
    }
}

/// Tiles per sprite sheet (`--grid CxR`).
struct Grid: CustomStringConvertible {
    var columns: Int
    var rows: Int

    var description: String { "\(columns)x\(rows)" }
}

func parseGrid(_ text: String) throws -> Grid {
    let cells = text.lowercased().split(separator: "x", omittingEmptySubsequences: false).map { Int($0) ?? 0 }
    guard cells.count == 2, (1...100).contains(cells[0]), (1...100).contains(cells[1]) else {
        throw ValidationError("grid must be CxR with C and R from 1 to 100, e.g. 10x10")
    }
    return Grid(columns: cells[0], rows: cells[1])
}
