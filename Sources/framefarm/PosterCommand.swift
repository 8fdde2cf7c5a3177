import ArgumentParser
import Foundation
import FrameFarm

struct PosterCommand: BatchCommand {
    typealias Job = PosterJob
    static let unit = "posters"
    static let configuration = CommandConfiguration(
        commandName: "poster",
        abstract: "Pick a representative frame and write it as poster images.",
        discussion: """
            --at auto scores keyframes spread between 5% and 95% of the video on exposure, contrast and \
            sharpness, so black, faded, flat and blurred frames lose to well-exposed, detailed ones. Writes \
            OUT/<video>/poster.jpg at full display resolution (baked-in bars removed) and poster-<width>.jpg per \
            requested width smaller than that; the chosen time and its score go in manifest.json.
            """)

    @OptionGroup var batch: BatchOptions
    @OptionGroup var gpuOptions: GPUOptions

    // Unconditional: `--at -1` is a value to refuse as a time, not a missing one.
    @Option(parsing: .unconditional, help: "auto, seconds (12.5) or a percentage (25%) (default: auto).", transform: { try FrameChoice(parsing: $0) })
    var at = FrameChoice.poster

    @Option(help: "Extra widths, comma-separated (default: 1920,640,160).", transform: parseWidths)
    var widths = [1920, 640, 160]

    @Option(help: "Image format.")
    var format = FormatChoice.jpeg

    @Option(help: "JPEG or WebP quality 1-100.")
    var quality = 90

    @Option(help: "Remove baked-in letterbox/pillarbox bars first.")
    var removePadding = PaddingRemoval.auto

    func jobOptions() throws -> PosterOptions {
        var options = PosterOptions()
        options.frame = at
        options.widths = widths
        options.format = format.imageFormat
        guard (1...100).contains(quality) else { throw ValidationError("--quality must be 1 to 100") }
        options.quality = quality
        options.removePadding = removePadding
        options.resampling = gpuOptions.resampling
        return options
    }
}
