import ArgumentParser
import Foundation
import FrameFarm

struct PreviewCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "preview",
        abstract: "Render each video on every device screen, in each viewing mode, with the safe area.",
        discussion: """
            Writes OUT/<video>/preview/<device>-<orientation>-<mode>.png at each screen's native pixels, \
            OUT/<video>/manifest.json (placement, crop and safe-area figures of every render) and OUT/index.html, \
            a contact sheet for the batch. fit shows the whole picture (bars where shapes differ); fill covers \
            the screen and crops. The render a system player would choose is marked as the default. A frame \
            time past the end of a video shows its last frame.
            """)

    @OptionGroup var batch: BatchOptions
    @OptionGroup var gpuOptions: GPUOptions
    @OptionGroup var catalogOptions: DeviceCatalogOptions

    @Option(help: "Device ids or groups, comma-separated: all, phones, tablets, tv, mac, watch, vision, pip (see 'framefarm devices').")
    var devices = "all"

    @Option(help: "landscape, portrait, or both (default: landscape, plus portrait for portrait videos).")
    var orientations: String?

    @Option(help: "Viewing modes, comma-separated: fit, fill, stretch, auto (the policy's pick).")
    var modes = "fit,fill"

    @Option(help: "Frame to show: seconds (12.5), a percentage of the duration (25%), or poster (the auto poster frame).")
    var at = "poster"

    @Option(help: "Overlays, comma-separated: safe-area, crop (tint what fill would crop, on fit renders), corners, or none.")
    var overlay = "safe-area,corners"

    @Option(help: "Fit the picture to the whole screen or inside the safe area: screen | safe-area.")
    var fitWithin = "screen"

    @Option(help: "Remove baked-in letterbox/pillarbox bars before placing the picture: auto | off.")
    var removePadding = "auto"

    @Option(help: "Which mode is the default: hig (as system players) or max-crop:P (fill unless it crops more than P%).")
    var policy = "hig"

    @Option(help: "Image format: png | jpeg | webp | webp-if-available.")
    var format = "png"

    func options() throws -> PreviewOptions {
        var options = PreviewOptions()
        options.devices = try catalogOptions.catalog().select(devices)
        if let orientations {
            options.orientations = try orientations.split(separator: ",").map { try Orientation(parsing: String($0)) }
        }
        options.modes = try ModeSelection(parsing: modes)
        options.frame = try FrameChoice(parsing: at)
        options.overlays = try PreviewOverlay.parseList(overlay)
        options.fitWithin = try FitRegion(parsing: fitWithin)
        options.removePadding = try parseRemovePadding(removePadding)
        options.policy = try ModePolicy(parsing: policy)
        options.format = try parseImageFormat(format)
        options.maxPixels = batch.maxPixels
        options.resampling = gpuOptions.resampling
        return options
    }

    func validate() throws { _ = try usageChecked(options) }

    func run() throws {
        let options = try options()
        let gpu = gpuOptions.service()
        try batch.run(unit: "renders", gpu: gpu) { progress in
            PreviewJob.run(inputs: batch.videos, outputRoot: batch.out, options: options, gpu: gpu,
                           force: batch.force, progress: progress)
        }
    }
}
