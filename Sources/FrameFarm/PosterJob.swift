import Foundation
import FrameFarmGPU
import FrameFarmMedia

/// Everything `poster` can be asked, with the documented defaults.
public struct PosterOptions: Sendable {
    /// `poster`/`auto` picks a representative frame; seconds or a percentage pick one by time.
    public var frame = FrameChoice.poster
    /// Extra widths written next to the full-resolution poster (heights follow the aspect ratio, even).
    public var widths = [1920, 640, 160]
    public var format = ImageFormat.jpeg
    public var quality = 90
    public var removePadding = true
    /// Inputs whose frames have more pixels are refused (`--max-pixels`).
    public var maxPixels = 8192 * 8192
    public var resampling = Resampling()

    public init() {}

    var settings: [String: String] {
        ["at": frame.description, "widths": widths.map(String.init).joined(separator: ","), "format": format.rawValue,
         "quality": "\(quality)", "removePadding": removePadding ? "auto" : "off"].merging(resampling.settings) { $1 }
    }
}

/// `framefarm poster`: `poster.<ext>` at full display resolution plus one file per requested width, all
/// rendered from one decoded frame in one submission.
public enum PosterJob {
    /// - Parameters:
    ///   - force: redo inputs whose outputs are already complete and current (otherwise skipped).
    ///   - inFlight: how many inputs are processed at once (default 2).
    public static func run(inputs: [String], outputRoot: String, options: PosterOptions, gpu: GPUService,
                           force: Bool = false, inFlight: Int? = nil,
                           progress: ((BatchProgress) -> Void)? = nil) -> BatchSummary {
        let layout = OutputLayout(root: outputRoot)
        let driver = BatchDriver(command: "poster", inputs: inputs, layout: layout, gpu: gpu, force: force,
                                 inFlight: inFlight ?? 2, settings: options.settings) { manifest in
            manifest.poster.map { ($0.settings, $0.files.map(\.file)) }
        }
        return driver.run(progress: progress) { input, folder, counter in
            let written = try poster(input, folder: folder, layout: layout, options: options, gpu: gpu)
            counter.add(items: 1)
            return written
        }
    }

    private static func poster(_ path: String, folder: String, layout: OutputLayout, options: PosterOptions,
                               gpu: GPUService) throws -> (files: [String], warnings: [String]) {
        let (facts, decoded) = try options.frame.probeAndDecode(path: path, maxPixels: options.maxPixels)
        let codedContent = options.removePadding ? facts.codedContentRect : PixelRect(size: facts.info.geometry.codedSize)
        let probe = ProbeReport(path: path, facts: facts, policy: .hig)
        let frame = decoded.frame, picked = decoded.score
        let score = picked.map { ["brightness": $0.brightness, "contrast": $0.contrast, "sharpness": $0.sharpness,
                                  "value": $0.value] }
        let full = facts.info.geometry.displayPixelRect(ofCoded: codedContent).size
        var files = [PosterSection.File(file: "poster.\(options.format.fileExtension)", width: full.width, height: full.height)]
        for width in options.widths.sorted(by: >) where width < full.width {
            let height = max(2, Int((Double(width) * Double(full.height) / Double(full.width) / 2).rounded()) * 2)
            files.append(PosterSection.File(file: "poster-\(width).\(options.format.fileExtension)", width: width, height: height))
        }
        let folderPath = layout.videoFolder(folder)
        try gpu.ready()
        try layout.makeFolder(folderPath)
        let gpuFrame = GPUFrame(frame)
        let crop = gpuFrame.crop(SourceRect(codedContent))
        try gpu.withRenderer { renderer in
            let jobs = files.indices.map { index in
                RenderJob(sourceIndex: 0, sourceCrop: crop,
                          destination: PixelRect(x: 0, y: 0, width: files[index].width, height: files[index].height),
                          canvasIndex: index, transform: facts.info.geometry.transform)
            }
            let canvases = files.map { CanvasSpec(size: PixelSize(width: $0.width, height: $0.height)) }
            let rendered = try renderer.render(RenderBatch(sources: [gpuFrame.source], canvases: canvases, jobs: jobs,
                                                           resampling: options.resampling))
            try ParallelBatch.encode(count: files.count) { index, encoder in
                let data = try rendered.withUnsafeBytes(canvas: index) {
                    try encoder.encode($0, width: files[index].width, height: files[index].height,
                                       bytesPerRow: files[index].width * 4, format: options.format, quality: options.quality)
                }
                try AtomicFile.write(data, to: folderPath + "/" + files[index].file)
            }
        }
        let section = PosterSection(settings: options.settings, gpu: gpu.record,
                                    timeSeconds: ((frame.timeSeconds - facts.info.startSeconds) * 1000).rounded() / 1000, score: score,
                                    files: files)
        try ManifestStore.update(at: layout.manifestPath(folder), input: ManifestStore.inputRecord(for: path),
                                 probe: probe) { $0.poster = section }
        return (files.map(\.file) + ["manifest.json"], options.frame.warnings(facts: facts, decoded: decoded))
    }
}
