import ArgumentParser
import Foundation
import FrameFarm

struct PreviewCommand: BatchCommand {
    typealias Job = PreviewJob
    static let unit = "renders"
    static let configuration = CommandConfiguration(
        commandName: "preview",
        abstract: "Render each video on every device screen, in each viewing mode, with the safe area.",
        discussion: """
            Writes OUT/<video>/preview/<device>-<orientation>-<mode>.png at each screen's native pixels, \
            OUT/<video>/manifest.json (placement, crop and safe-area figures of every render) and OUT/index.html, \
            a contact sheet for the batch. fit shows the whole picture (bars where shapes differ); fill covers \
            the screen and crops. The render a system player would choose is marked as the default (see \
            --policy). A frame time past the end of a video shows its last frame.
            """)

    @OptionGroup var batch: BatchOptions
    @OptionGroup var gpuOptions: GPUOptions
    @OptionGroup var catalogOptions: DeviceCatalogOptions

    @Option(help: "Device ids or groups, comma-separated: all, phones, tablets, tv, mac, watch, vision, pip (see 'framefarm devices').")
    var devices = "all"

    @Option(help: "landscape, portrait, or both, comma-separated (default: landscape, plus portrait for portrait videos).",
            transform: { try Orientation.parseList($0) })
    var orientations: [Orientation]?

    @Option(help: "Viewing modes, comma-separated: fit, fill, stretch, auto (the policy's pick) (default: fit,fill).",
            transform: { try ModeSelection(parsing: $0) })
    var modes = ModeSelection.standard

    @Option(parsing: .unconditional,
            help: "Frame to show: seconds (12.5), a percentage of the duration (25%), or poster (the auto poster frame) (default: poster).",
            transform: { try FrameChoice(parsing: $0) })
    var at = FrameChoice.poster

    @Option(help: "Overlays, comma-separated: safe-area, crop (tint what fill would crop, on fit renders), corners, or none (default: safe-area,corners).",
            transform: { try PreviewOverlay.parseList($0) })
    var overlay: Set<PreviewOverlay> = [.safeArea, .corners]

    @Option(help: "Fit the picture to the whole screen or inside the safe area.")
    var fitWithin = FitRegion.screen

    @Option(help: "Remove baked-in letterbox/pillarbox bars before placing the picture.")
    var removePadding = PaddingRemoval.auto

    @Option(help: "Image format.")
    var format = FormatChoice.png

    func jobOptions() throws -> PreviewOptions {
        var options = PreviewOptions()
        options.devices = try catalogOptions.catalog().select(devices)
        options.orientations = orientations
        options.modes = modes
        options.frame = at
        options.overlays = overlay
        options.fitWithin = fitWithin
        options.removePadding = removePadding
        options.format = format.imageFormat
        options.resampling = gpuOptions.resampling
        return options
    }
}
