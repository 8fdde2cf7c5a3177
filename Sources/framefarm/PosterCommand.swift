import ArgumentParser
import Foundation
import FrameFarm

struct PosterCommand: ParsableCommand {
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

    @Option(help: "auto, seconds (12.5) or a percentage (25%).")
    var at = "auto"

    @Option(help: "Extra widths, comma-separated.")
    var widths = "1920,640,160"

    @Option(help: "jpeg | png | webp | webp-if-available.")
    var format = "jpeg"

    @Option(help: "Remove baked-in letterbox/pillarbox bars first: auto | off.")
    var removePadding = "auto"

    func options() throws -> PosterOptions {
        var options = PosterOptions()
        options.frame = try FrameChoice(parsing: at)
        let values = widths.split(separator: ",").map { Int($0) }
        guard !values.isEmpty, values.allSatisfy({ ($0 ?? 0) >= 16 }) else {
            throw ValidationError("--widths must be widths of at least 16 px, comma-separated")
        }
        options.widths = values.compactMap { $0 }
        options.format = try parseImageFormat(format)
        options.removePadding = try parseRemovePadding(removePadding)
        options.maxPixels = batch.maxPixels
        options.resampling = gpuOptions.resampling
        return options
    }

    func validate() throws { _ = try usageChecked(options) }

    func run() throws {
        let options = try options()
        let gpu = gpuOptions.service()
        try batch.run(unit: "posters", gpu: gpu) { progress in
            PosterJob.run(inputs: batch.videos, outputRoot: batch.out, options: options, gpu: gpu,
                            force: batch.force, progress: progress)
        }
    }
}
