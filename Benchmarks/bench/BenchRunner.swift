import Foundation
import FrameFarm

/// What the command line asked for.
struct BenchSettings {
    var quick: Bool
    var repeats: Int
    var gpu: String?
    var scenarios: [ScenarioName]
    var cache: String
    var work: String
    var inputsFolder: String?
    var clipFilter: String?
    var commandLine: String
}

/// Prepares inputs, runs the selected scenarios (FrameFarm in child processes, peers with Process) and gathers
/// the report.
final class BenchRunner {
    let settings: BenchSettings
    let ffmpeg: FFmpegPeer?
    var clips: [BenchClip] = []
    var warmUpClip = ""
    /// Keyframe-decode floor (`-threads 1 -skip_frame nokey`) per clip path, filled by the floors scenario.
    var keyframeFloors: [String: Double] = [:]

    init(settings: BenchSettings) {
        self.settings = settings
        ffmpeg = FFmpegPeer.find()
    }

    func run() throws -> BenchReport {
        // Said first: a run without peers takes minutes and compares nothing.
        if ffmpeg == nil {
            Log.progress("no ffmpeg on PATH: every peer, floor and PSNR will be skipped (`make bench` installs it)")
        }
        let gpu = try GPUService.bench(gpu: settings.gpu)
        try prepareInputs()
        var report = BenchReport(header: ReportHeader(
            date: MachineInfo.date, cpuModel: MachineInfo.cpuModel, cores: MachineInfo.cores, memory: MachineInfo.memory,
            vulkanDevice: gpu.deviceName, vulkanDeviceType: gpu.deviceType,
            ffmpegVersion: ffmpeg?.versionLine ?? "not installed (every peer skipped)",
            ffmpegLibraries: ffmpeg?.libraryVersions ?? [], build: MachineInfo.buildConfiguration,
            environment: MachineInfo.engineEnvironment,
            command: settings.commandLine, repeats: settings.repeats, clips: clips.map(\.summary)))
        if report.header.vulkanRunsOnCPU {
            report.notes.append("The Vulkan device is lavapipe, Mesa's CPU driver: no GPU was used; FrameFarm's "
                                + "GPU stage ran on the same CPU cores as decoding.")
        }
        if ffmpeg == nil { report.notes.append("No ffmpeg on PATH: peers, floors, output checks and PSNR skipped.") }
        for scenario in settings.scenarios {
            Log.progress("scenario \(scenario.rawValue)")
            switch scenario {
            case .floors: report.floors = clips.map(measureFloors)
            case .thumbnails: report.scenarios += thumbnailClips().flatMap { clip in
                    SeekMode.allCases.map { measureThumbnails(clip: clip, seek: $0) }
                }
            case .widths: report.scenarios += thumbnailClips().flatMap { clip in
                    SeekMode.allCases.map { measureWidths(clip: clip, seek: $0) }
                }
            case .preview: report.scenarios += clips.map(measurePreview)
            case .poster: report.scenarios += clips.map(measurePoster)
            case .growth: report.growth = try measureGrowth()
            case .library: report.library = try measureLibrary()
            case .lint: report.lint = try measureLint()
            // A ladder needs a tall source: the 1080p clips (any clip of --inputs).
            case .renditions: report.renditions += try thumbnailClips()
                .filter { settings.inputsFolder != nil || $0.displayHeight == 1080 }.map(measureRenditions)
            case .shortclips: report.shortClips = try measureShortClips()
            case .pipeline: report.pipeline = clips.map { measurePipeline(clip: $0, gpu: gpu) }
            }
        }
        report.bounds = StageBounds.lines(report)
        return report
    }

    private func thumbnailClips() -> [BenchClip] {
        guard let filter = settings.clipFilter else { return clips }
        return clips.filter { $0.label.contains(filter) || $0.path.contains(filter) }
    }

    func prepareInputs() throws {
        warmUpClip = try BenchInputs.materialize(BenchInputs.warmUp, cache: settings.cache)
        if let folder = settings.inputsFolder {
            clips = try BenchInputs.videos(in: folder).map {
                try BenchInputs.clip(path: $0, label: ($0 as NSString).lastPathComponent)
            }
            guard !clips.isEmpty else { throw BenchError("no videos in \(folder)") }
            return
        }
        let specs: [ClipSpec]
        if settings.quick {
            specs = BenchInputs.quickSet()
        } else {
            let x265 = ClipSpec(label: "", width: 64, height: 64, durationSeconds: 1, encoder: "libx265",
                                pixelFormat: "yuv420p10le")
            specs = BenchInputs.fullSet(hasX265: BenchInputs.encoderWorks(x265, cache: settings.cache))
        }
        // --clip-filter also limits what is generated: one 10-min clip must not cost the encodes of the others.
        let wanted = specs.filter { settings.clipFilter.map($0.label.contains) ?? true }
        // growth and library make their own clips.
        let needed = Set(settings.scenarios).isSubset(of: [.growth, .library, .shortclips]) ? [] : wanted
        let growth = settings.scenarios.contains(.growth) ? BenchInputs.growthSet(quick: settings.quick) : []
        let library = settings.scenarios.contains(.library) || settings.scenarios.contains(.lint)
            ? BenchInputs.librarySet(quick: settings.quick) + [BenchInputs.oneSecondClip] : []
        let shortClips = settings.scenarios.contains(.shortclips) ? BenchInputs.shortClips : []
        try BenchInputs.materializeAll(needed + growth + library + shortClips, cache: settings.cache)
        clips = try needed.map { try BenchInputs.clip(path: BenchInputs.path(of: $0, cache: settings.cache),
                                                      label: $0.label) }
    }

    // MARK: Running and timing

    /// Runs an engine scenario in a child process of this executable; the child's own VmHWM is its peak RSS.
    func runChild(scenario: String, clips paths: [String], output: String, arguments: [String] = []) -> Measurement {
        let recipe = Self.apiCall(scenario: scenario, arguments: arguments)
        var measurement = Measurement(tool: "FrameFarm", recipe: recipe)
        let resultPath = settings.work + "/child-result.json"
        do {
            try FileManager.default.createDirectory(atPath: settings.work, withIntermediateDirectories: true)
            try? FileManager.default.removeItem(atPath: resultPath)
            var childArguments = ["--scenario", scenario, "--output", output, "--result", resultPath,
                                  "--times", "\(settings.repeats)", "--warm-up-clip", warmUpClip] + arguments
            childArguments += paths.flatMap { ["--clip", $0] }
            if let gpu = settings.gpu { childArguments += ["--gpu", gpu] }
            let executable = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe"))
                ?? CommandLine.arguments[0]
            let process = try CommandRunner.run(executable, childArguments)
            let result = try JSONDecoder().decode(ChildResult.self, from: Data(contentsOf: URL(fileURLWithPath: resultPath)))
            if let error = result.error ?? (process.succeeded ? nil : process.standardError) {
                measurement.failed = error
            } else {
                measurement.timing = Timing(seconds: result.seconds)
                measurement.items = result.items
                measurement.inputBytes = result.bytesRead
            }
            measurement.peakRSSBytes = result.peakRSSBytes
        } catch {
            measurement.failed = "\(error)"
        }
        Log.progress("  FrameFarm \(scenario) \(arguments.joined(separator: " ")): "
                     + (measurement.timing?.summary ?? measurement.failed ?? "?"))
        return measurement
    }

    private static func apiCall(scenario: String, arguments: [String]) -> String {
        switch scenario {
        case "thumbnails":
            let seek = arguments.last ?? "exact"
            let widths = arguments.firstIndex(of: "--widths").map { arguments[$0 + 1] + " px" } ?? "160 px"
            return "ThumbnailJob.run(inputs: [CLIP], outputRoot:, options: ThumbnailOptions() /* \(widths), interval 10, "
                + "10x10 JPEG q85, all manifests, seek .\(seek) */, gpu:)"
        case "preview":
            let compressor = arguments.firstIndex(of: "--png-compressor").map { arguments[$0 + 1] } ?? "framefarm"
            return "PreviewJob.run(inputs: [CLIP], outputRoot:, options: PreviewOptions() /* all built-in devices, "
                + "fit+fill, frame .seconds(T), overlays [], PNG */, gpu:)"
                + (compressor == "framefarm" ? "" : " with BatchSettings.pngCompressor = .\(compressor)")
        default:
            return "PosterJob.run(inputs: [CLIP], outputRoot:, options: PosterOptions() /* defaults */, gpu:)"
        }
    }

    /// Times a peer recipe: `settings.repeats` runs, each after `prepare` (emptying its output folder).
    func timePeer(_ tool: String, recipe: String, items: Int?, prepare: () throws -> Void,
                  run: (FFmpegPeer) throws -> Void) -> Measurement {
        guard let ffmpeg else { return .skipped(tool, recipe: recipe, reason: "ffmpeg not installed") }
        var measurement = Measurement(tool: tool, recipe: recipe, items: items)
        var seconds: [Double] = []
        do {
            for _ in 0..<settings.repeats {
                try prepare()
                let started = DispatchTime.now()
                try run(ffmpeg)
                seconds.append(Double(DispatchTime.now().uptimeNanoseconds - started.uptimeNanoseconds) / 1e9)
            }
            measurement.timing = Timing(seconds: seconds)
        } catch {
            measurement.failed = "\(error)"
        }
        Log.progress("  \(tool): \(measurement.timing?.summary ?? measurement.failed ?? "?")")
        return measurement
    }

    /// An empty folder under the work folder.
    func freshFolder(_ name: String) throws -> String {
        let path = settings.work + "/" + name
        try? FileManager.default.removeItem(atPath: path)
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    var decoder: ImageDecoding? { ffmpeg.map(ImageDecoding.init) }

    /// How many outputs to compare against the float reference per tool.
    var psnrSamples: Int { settings.quick ? 2 : 6 }
}
