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
    public var removePadding = PaddingRemoval.auto
    public var resampling = Resampling()

    public init() {}

    var settings: PosterSettings {
        PosterSettings(at: frame, widths: widths, format: format, quality: quality,
                       removePadding: removePadding, filter: resampling.filter,
                       linearLight: OnOff(resampling.linearLight))
    }
}

/// What a poster section records it was made with; a re-run with other settings redoes it.
public struct PosterSettings: Codable, Hashable, Sendable {
    @Setting var at: FrameChoice
    @Setting var widths: [Int]
    @Setting var format: ImageFormat
    @Setting var quality: Int
    @Setting var removePadding: PaddingRemoval
    @Setting var filter: ResamplingFilter
    @Setting var linearLight: OnOff
}

/// `framefarm poster`: `poster.<ext>` at full display resolution plus one file per requested width, all
/// rendered from one decoded frame in one submission.
public struct PosterJob: BatchJob {
    public static let command = "poster"
    let options: PosterOptions

    public init(options: PosterOptions) { self.options = options }

    public func settings(policy: ModePolicy) -> PosterSettings { options.settings }

    public func recordedSettings(in manifest: VideoManifest) -> [String: String]? { manifest.poster?.settings }

    /// Removes the posters an earlier run wrote and this one did not (another width, another format), so that the
    /// folder holds the posters its manifest lists: `poster.EXT` and `poster-WIDTH.EXT` for FrameFarm's formats.
    static func removeEarlierPosters(in folder: String, keeping written: Set<String>) {
        let extensions = Set(ImageFormat.allCases.map(\.fileExtension))
        for name in (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? [] where !written.contains(name) {
            let url = URL(fileURLWithPath: name)
            let stem = url.deletingPathExtension().lastPathComponent
            guard extensions.contains(url.pathExtension),
                  stem == "poster" || stem.hasPrefix("poster-") && Int(stem.dropFirst("poster-".count)) != nil else { continue }
            unlink(folder + "/" + name)
        }
    }

    public func process(_ input: InputContext) throws -> InputResult {
        let (facts, decoded) = try options.frame.decodeFindingPadding(try input.stream(), path: input.path,
                                                                            maxPixels: input.maxPixels)
        let codedContent = facts.codedContent(options.removePadding)
        let frame = decoded.frame, picked = decoded.score
        let score = picked.map { ["brightness": $0.brightness, "contrast": $0.contrast, "sharpness": $0.sharpness,
                                  "value": $0.value] }
        let full = facts.info.geometry.displayPixelRect(ofCoded: codedContent).size
        var files = [PosterSection.File(file: "poster.\(options.format.fileExtension)", width: full.width, height: full.height)]
        for width in options.widths.sorted(by: >) where width < full.width {
            let height = max(2, Int((Double(width) * Double(full.height) / Double(full.width) / 2).rounded()) * 2)
            files.append(PosterSection.File(file: "poster-\(width).\(options.format.fileExtension)", width: width, height: height))
        }
        let folderPath = try input.makeOutputFolder(), options = options
        let posters = files
        let gpuFrame = GPUFrame(frame, geometry: facts.info.geometry)
        try input.gpu.withRenderer { renderer in
            let jobs = posters.indices.map { index in
                gpuFrame.job(RenderJob(sourceIndex: 0, sourceCrop: SourceRect(codedContent),
                                       destination: PixelRect(x: 0, y: 0, width: posters[index].width, height: posters[index].height),
                                       canvasIndex: index, transform: facts.info.geometry.transform))
            }
            let canvases = posters.map { CanvasSpec(size: PixelSize(width: $0.width, height: $0.height)) }
            let rendered = try renderer.render(RenderBatch(sources: [gpuFrame.source], canvases: canvases, jobs: jobs,
                                                           resampling: options.resampling))
            let encoded = try ParallelBatch.encode(posters.indices.map {
                EncodeRequest(canvas: $0, of: rendered, format: options.format, quality: options.quality)
            }, with: input.encoders)
            for (file, data) in zip(posters, encoded) { try AtomicFile.write(data, to: folderPath + "/" + file.file) }
            Self.removeEarlierPosters(in: folderPath, keeping: Set(posters.map(\.file)))
        }
        input.progress.add(items: 1)
        let warnings = options.frame.warnings(facts: facts, decoded: decoded)
        let section = PosterSection(settings: SettingsRecord.record(options.settings), gpu: input.gpu.record,
                                    timeSeconds: ((frame.timeSeconds - facts.timelineOriginSeconds) * 1000).rounded() / 1000,
                                    score: score, files: files, warnings: warnings.map(\.description))
        return InputResult(facts: facts, files: files.map(\.file), warnings: warnings) { $0.poster = section }
    }
}
