import ArgumentParser
import Foundation
import FrameFarm

/// `--gpu`, `--verbose` and how frames are scaled, shared by every command that renders.
struct GPUOptions: ParsableArguments {
    @Option(help: "Vulkan device: an index or a name substring (default: FRAMEFARM_GPU, else the best device: discrete > integrated > virtual > CPU).")
    var gpu: String?

    @Flag(help: "Print the Vulkan device used and per-input timings on stderr.")
    var verbose = false

    @Option(help: "Resampling kernel: lanczos3 (sharpest, the default), catmull-rom (less ringing at hard edges) or bilinear (softest). Each widens with the reduction, so nothing aliases.")
    var filter = ResamplingFilter.lanczos3

    @Flag(help: "Resample in linear light (decode the transfer, filter, re-encode): fine bright detail on dark keeps its brightness when shrunk; slower.")
    var linearLight = false

    var resampling: Resampling { Resampling(filter: filter, linearLight: linearLight) }

    /// The process's GPU configuration with `--gpu` applied.
    var configuration: GPUConfiguration {
        var configuration = ProcessConfiguration.current.gpu
        if let gpu {
            configuration.selection = GPUSelection(argument: gpu)
            configuration.selectionNamedBy = "--gpu \(gpu)"
        }
        return configuration
    }

    /// The Vulkan context starts on a background thread while the batch probes its inputs; `BatchCommand.run`
    /// reports it in one line when it cannot be made.
    func service() -> GPUService {
        let service = GPUService.starting(configuration: configuration)
        if verbose, service.startFailure == nil {
            Terminal.printError("using Vulkan device \(service.deviceName) (\(service.deviceType))")
        }
        return service
    }
}

/// How http(s) inputs are read: `--io-timeout`, `--header`, `--ca-file`.
struct RemoteOptions: ParsableArguments {
    @Option(help: ArgumentHelp("For http(s) inputs: seconds the server may send nothing (connecting, answering, any read) before the input fails; resets and 5xx answers are retried first.", valueName: "seconds"))
    var ioTimeout: Double = RemoteSettings().timeoutSeconds

    @Option(name: .customLong("header"), help: ArgumentHelp("For http(s) inputs: a header sent with every request, 'Name: value' (repeatable), such as the credentials of a private origin. Never printed or recorded.", valueName: "header"))
    var headers: [String] = []

    @Option(help: ArgumentHelp("For https inputs: a PEM file of the certificate authorities to trust instead of the system's.", valueName: "file"))
    var caFile: String?

    func validate() throws {
        guard ioTimeout > 0, ioTimeout.isFinite else { throw ValidationError("--io-timeout must be a number of seconds above 0") }
        // A header may hold a secret: the message never repeats it.
        for header in headers where !RemoteSettings.isValidHeader(header) {
            throw ValidationError("--header: expected 'Name: value' on one line, the name of letters, digits and dashes")
        }
        if let caFile, !FileManager.default.isReadableFile(atPath: caFile) {
            throw ValidationError("--ca-file \(caFile): cannot read the file")
        }
    }

    /// Sets how remote inputs are read, and gives each input as the batch carries it: a URL by its name, the
    /// query string kept aside (`RemoteInput`).
    func apply(to inputs: [String]) -> [String] {
        var settings = RemoteSettings()
        settings.timeoutSeconds = ioTimeout
        settings.headers = headers
        settings.caFile = caFile
        RemoteInput.settings = settings
        return inputs.map { RemoteInput.isRemote($0) ? RemoteInput.register($0) : $0 }
    }
}

/// Inputs, `--out` and what every batch command shares (`BatchSettings`), plus `--json` and `--quiet`.
/// Where a command's inputs come from: paths, a list file, folders walked with --recursive.
struct InputOptions: ParsableArguments {
    @Argument(help: "Video files (or still images); folders too, with --recursive.")
    var videos: [String] = []

    @Option(help: ArgumentHelp("A file listing inputs, one a line ('-': standard input). Blank lines and lines starting with # are skipped; relative paths are relative to the current folder.", valueName: "file"))
    var inputsFrom: String?

    @Flag(help: "Walk folders given as inputs for video files (by extension), skipping hidden files and FrameFarm's own output folders.")
    var recursive = false

    @Option(help: ArgumentHelp("The file extensions --recursive takes, comma-separated (default: \(InputList.videoExtensions.sorted().joined(separator: ","))).", valueName: "list"),
            transform: { try InputList.parseExtensions($0) })
    var extensions: Set<String>?

    @OptionGroup var remote: RemoteOptions

    func validate() throws {
        if extensions != nil && !recursive { throw ValidationError("--extensions is for --recursive") }
    }

    /// The inputs, folders walked (leaving out `skipping`, an output folder inside one), each once, in order.
    /// Checked here, not in `validate()`: `lint --print-profile` takes no inputs.
    func resolve(skipping: String?) throws -> [String] {
        if videos.isEmpty && inputsFrom == nil { throw ValidationError("no inputs: give videos, or --inputs-from FILE") }
        var inputs: [String] = []
        let given = videos + (try inputsFrom.map { path in try usageChecked { try InputList.read(path) } } ?? [])
        for input in remote.apply(to: given) {
            var isFolder: ObjCBool = false
            // Without --recursive a folder is a bad input like any other: one line naming it, and the rest go on.
            if recursive, !RemoteInput.isRemote(input),
               FileManager.default.fileExists(atPath: ForeignNames.openable(input), isDirectory: &isFolder), isFolder.boolValue {
                inputs += try usageChecked {
                    try InputList.videos(under: input, extensions: extensions ?? InputList.videoExtensions, skipping: skipping)
                }
            } else {
                inputs.append(input)
            }
        }
        // Nothing to check or make is a mistake (a list step that wrote nothing), never a green run.
        guard !inputs.isEmpty else {
            let sources = [inputsFrom.map { "\($0 == "-" ? "standard input" : $0) lists none" },
                           recursive ? "the folders walked hold no video files" : nil].compactMap { $0 }
            throw ValidationError("no inputs: " + sources.joined(separator: ", and "))
        }
        return InputList.deduplicated(inputs)
    }
}

struct BatchOptions: ParsableArguments {
    @OptionGroup var input: InputOptions

    @Option(help: "How each input's folder under --out is named: stem (OUT/<stem>/, the default; inputs sharing a stem are refused), hashed (OUT/<stem>-<hash of the path>/) or mirror (OUT mirrors the folders under --inputs-root).")
    var layout = LayoutChoice.stem

    @Option(help: ArgumentHelp("The library's root folder, for --layout mirror: ROOT/a/b/clip.mp4 goes to OUT/a/b/clip/.", valueName: "folder"))
    var inputsRoot: String?

    @Option(parsing: .unconditional, help: ArgumentHelp("Process only shard K of N of the inputs (K from 0 to N-1), or auto: the shard a batch engine gave this task (Kubernetes Indexed Jobs, Slurm arrays, AWS Batch arrays, Google Cloud Batch, Cloud Run jobs). Every shard reads the whole list; each input is in exactly one shard.", valueName: "K/N|auto"),
            transform: { try ShardChoice(parsing: $0) })
    var shard: ShardChoice?

    @Option(help: "The shard count for --shard auto where the engine gives only an index (Kubernetes Indexed Jobs); default FRAMEFARM_SHARDS.")
    var shards: Int?

    @Option(help: "Output folder (created if missing).")
    var out: String

    @Flag(help: "Print the batch summary as JSON on stdout.")
    var json = false

    @Flag(help: "No progress bar, no warnings and no summary line: only the failures' lines (--json keeps the warnings).")
    var quiet = false

    @Option(help: "Refuse inputs whose frames have more pixels than this (8192x8192 by default).", transform: parsePixelLimit)
    var maxPixels = BatchSettings.defaultMaxPixels

    @Option(help: "Which viewing mode is each video's default: hig (as system players) or max-crop:P (fill unless it crops more than P%). Default: the policy the video's manifest records, else hig.",
            transform: { try ModePolicy(parsing: $0) })
    var policy: ModePolicy?

    @Flag(help: "Redo inputs whose outputs are complete and current (by default a re-run skips them).")
    var force = false

    @Option(help: ArgumentHelp("Inputs processed at once (default \(BatchSettings.defaultInFlight): each already decodes and encodes on every core). More keeps a many-core host busy on a library of short clips, whose decoding takes one or two threads each; each input in flight holds its own decoders and GPU canvases.", valueName: "count"))
    var jobs = BatchSettings.defaultInFlight

    @Option(help: ArgumentHelp("For multivariant HLS playlists and DASH manifests: the rendition to read. auto (the smallest picture wide enough for the outputs: twice the thumbnail width; the largest screen for previews; full size for posters), highest, lowest, WIDTHxHEIGHT, or its index from 0 (default: auto).", valueName: "rendition"),
            transform: { try RenditionChoice(parsing: $0) })
    var rendition = RenditionChoice.auto

    func validate() throws {
        try validateJobs(jobs)
        switch (layout, inputsRoot) {
        case (.mirror, nil): throw ValidationError("--layout mirror needs --inputs-root DIR")
        case (.stem, _?), (.hashed, _?): throw ValidationError("--inputs-root is for --layout mirror")
        default: break
        }
        if let shards, shards < 1 { throw ValidationError("--shards must be at least 1") }
        // Without --shard auto it would go unread, and every worker would do the whole list.
        if shards != nil, shard?.isAuto != true { throw ValidationError("--shards is for --shard auto") }
        if shard == nil, let count = ProcessInfo.processInfo.environment["FRAMEFARM_SHARDS"], !count.isEmpty {
            throw ValidationError("FRAMEFARM_SHARDS=\(count) is set but --shard auto is not given: every worker would do "
                                  + "the whole list (give --shard auto, or unset it)")
        }
    }

    var folderLayout: FolderLayout { layout.folderLayout(inputsRoot: inputsRoot) }

    var settings: BatchSettings {
        var settings = BatchSettings(outputRoot: out)
        settings.layout = folderLayout
        settings.writesContactSheet = shard == nil
        settings.force = force
        settings.inFlight = jobs
        settings.maxPixels = maxPixels
        settings.policy = policy
        settings.rendition = rendition
        settings.pngCompressor = ProcessConfiguration.current.pngCompressor
        return settings
    }
}

/// The shape of `preview`, `thumbnails` and `poster`: shared options, a job's own options, one pipeline.
protocol BatchCommand: ParsableCommand {
    associatedtype Job: BatchJob
    /// What the progress bar counts ("renders").
    static var unit: String { get }
    var batch: BatchOptions { get }
    var gpuOptions: GPUOptions { get }
    /// The job's options from the command's own; throws for combinations the parser cannot check alone.
    func jobOptions() throws -> Job.Options
    /// The jobs each input goes through, in one pass: the command's own, and any it was asked to add.
    func jobs() throws -> [any BatchJob]
}

extension BatchCommand {
    func jobs() throws -> [any BatchJob] { [Job(options: try jobOptions())] }

    func validate() throws { _ = try usageChecked(jobs) }

    /// Runs the job, showing a progress bar on a terminal, then reports failures and the summary; exits 1 when
    /// any input failed. Without a Vulkan device every input fails for that one reason, said once.
    func run() throws {
        let jobs = try self.jobs()
        let (inputs, shard) = try exitingOnUsageError { try batch.resolveInputs() }
        if let problem = Self.outputRootProblem(batch.out) {
            Terminal.printError("--out \(batch.out): \(problem)")
            throw ExitCode(ExitStatus.usage)
        }
        var settings = batch.settings
        settings.shard = shard
        if inputs.isEmpty, let shard {
            if !batch.quiet { Terminal.printError("shard \(shard) has no inputs: nothing to do") }
            // Recorded all the same: `report` counts a shard that left no record as never run.
            let summary = BatchPipeline.recordEmptyShard(jobs, settings: settings)
            if batch.json { try Terminal.printJSON(summary) }
            return
        }
        let gpu = gpuOptions.service()
        let signals = SignalHandler()
        signals.install()
        let bar = !batch.quiet && Terminal.standardErrorIsTerminal ? ProgressLine(label: "framefarm") : nil
        let (quiet, verbose) = (batch.quiet, gpuOptions.verbose)
        let summary = BatchPipeline(settings: settings, gpu: gpu).run(jobs, inputs: inputs) { progress in
            if let outcome = progress.finished { Self.say(outcome, quiet: quiet, verbose: verbose, gpu: gpu) }
            guard let bar else { return }
            let rate = progress.elapsedSeconds > 0 ? Double(progress.itemsDone) / progress.elapsedSeconds : 0
            let fraction = Double(progress.inputsDone) / Double(max(1, progress.inputsTotal))
            bar.update(fraction: fraction, detail: String(format: "%d/%d videos, %.1f %@/s", progress.inputsDone,
                                                          progress.inputsTotal, rate, Self.unit))
        }
        bar?.finish()
        if let failure = gpu.startFailure {
            Terminal.printError(failure.description)
            // A JSON consumer still gets the summary: every input failed, each saying why.
            if batch.json { try Terminal.printJSON(summary) }
            throw ExitCode(ExitStatus.someInputsFailed)
        }
        try report(summary)
        if let interrupted = signals.exitStatus {
            Terminal.printError("interrupted: \(summary.succeeded) of \(summary.inputs.count) inputs done")
            throw ExitCode(interrupted)
        }
        if summary.failed > 0 { throw ExitCode(ExitStatus.someInputsFailed) }
    }

    /// Why `out` cannot take the batch's outputs (made when missing), or nil: said once, before any input, rather
    /// than as every input's failure.
    static func outputRootProblem(_ out: String) -> String? {
        var isFolder: ObjCBool = false
        if FileManager.default.fileExists(atPath: out, isDirectory: &isFolder) {
            guard isFolder.boolValue else { return "not a folder" }
        } else if (try? FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: true)) == nil {
            // The first folder on the way that could not be made says why.
            var missing = URL(fileURLWithPath: out).standardizedFileURL
            while !FileManager.default.fileExists(atPath: missing.deletingLastPathComponent().path) {
                missing.deleteLastPathComponent()
            }
            let parent = missing.deletingLastPathComponent().path
            if FileManager.default.fileExists(atPath: parent, isDirectory: &isFolder), !isFolder.boolValue {
                return "cannot be made: \(parent) is not a folder"
            }
            return mkdir(missing.path, 0o777) == 0 ? nil : "cannot be made (\(String(cString: strerror(errno))))"
        }
        return access(out, W_OK | X_OK) == 0 ? nil : "cannot be written to (\(String(cString: strerror(errno))))"
    }
}

/// `--format`, as every command that writes images takes it.
enum FormatChoice: String, ExpressibleByArgument, CaseIterable {
    case jpeg, png, webp
    /// Kept for scripts written when WebP depended on FFmpeg's build; libwebp is linked now, so it is WebP.
    case webpIfAvailable = "webp-if-available"

    var imageFormat: ImageFormat { self == .webpIfAvailable ? .webp : ImageFormat(rawValue: rawValue)! }
}

/// `--remove-padding auto|off`, as every rendering command takes it.
extension PaddingRemoval: ExpressibleByArgument {}

extension ResamplingFilter: ExpressibleByArgument {}
extension SeekMode: ExpressibleByArgument {}
extension FitRegion: ExpressibleByArgument {}

/// A comma-separated list of positive integers (`--widths 1920,640`).
func parseWidths(_ text: String) throws -> [Int] {
    let values = text.split(separator: ",", omittingEmptySubsequences: false).map { Int($0.trimmingCharacters(in: .whitespaces)) }
    guard !values.isEmpty, values.allSatisfy({ ($0 ?? 0) >= 16 }) else {
        throw ValidationError("widths must be at least 16 px, comma-separated")
    }
    // A width given twice would be one file listed twice in the manifest.
    guard Set(values).count == values.count else { throw ValidationError("the widths list a width twice") }
    return values.compactMap { $0 }
}

/// `--layout`.
enum LayoutChoice: String, ExpressibleByArgument, CaseIterable {
    case stem, hashed, mirror

    /// What keeps apart two inputs this layout gives one folder.
    var collisionAdvice: String {
        switch self {
        case .stem: "use --layout hashed, or --layout mirror --inputs-root DIR"
        case .hashed: "use --layout mirror --inputs-root DIR"
        // Under mirror, only names that differ in their extension alone (or in a folder's leading dot) collide.
        case .mirror: "rename one of them, or use --layout hashed"
        }
    }

    /// The layout, with `--inputs-root` for `mirror` (validation has made sure it is given).
    func folderLayout(inputsRoot: String?) -> FolderLayout {
        switch self {
        case .stem: .stem
        case .hashed: .hashed
        case .mirror: .mirror(inputsRoot: inputsRoot ?? ".")
        }
    }
}

/// `--shard K/N` or `--shard auto`.
enum ShardChoice {
    case fixed(Shard)
    case auto

    var isAuto: Bool {
        if case .auto = self { true } else { false }
    }

    /// `auto` or `K/N`; the error says what is wrong with K/N.
    init(parsing text: String) throws {
        self = text == "auto" ? .auto : .fixed(try Shard(parsing: text))
    }
}

extension BatchOptions {
    /// The batch's inputs: the arguments, then `--inputs-from`'s, with folders walked (`--recursive`), each once;
    /// for `--shard`, this shard's part of the whole list. Throws a usage error for what cannot be read or placed,
    /// before any work starts.
    func resolveInputs() throws -> (inputs: [String], shard: Shard?) {
        let inputs = try input.resolve(skipping: out)
        // Refused over the whole list, so every shard refuses alike.
        let conflicts = folderLayout.conflicts(inputs)
        if let first = conflicts.first {
            let more = conflicts.count > 1 ? " (and \(conflicts.count - 1) more)" : ""
            throw ValidationError("\(first.first) and \(first.second) would share the output folder \(first.folder)"
                                  + "\(more): " + layout.collisionAdvice)
        }
        guard let shard = try resolveShard() else { return (inputs, nil) }
        // Balanced by file size (of the file a link names): the work a video takes grows with it, and a stat is cheap.
        let mine = shard.inputs(of: inputs, workOf: ManifestStore.sizeBytes(of:))
        return (mine, shard)
    }

    /// `--shard` as a shard, with `auto` read from the batch engine's variables (said once on stderr).
    private func resolveShard() throws -> Shard? {
        switch shard {
        case nil: return nil
        case .fixed(let shard): return shard
        case .auto:
            let (shard, engine) = try usageChecked {
                try Shard.fromEngine(environment: ProcessInfo.processInfo.environment, shards: shards)
            }
            if !quiet { Terminal.printError("shard \(shard), from the \(engine)'s variables") }
            return shard
        }
    }
}

/// `--jobs` of any command: 1 to `BatchSettings.mostInFlight`.
func validateJobs(_ jobs: Int?) throws {
    if let jobs, !(1...BatchSettings.mostInFlight).contains(jobs) {
        throw ValidationError("--jobs must be a whole number from 1 to \(BatchSettings.mostInFlight)")
    }
}
