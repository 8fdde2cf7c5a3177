import Foundation
import FrameFarmMedia

/// What every batch command shares, with the documented defaults.
public struct BatchSettings: Sendable, Hashable {
    public var outputRoot: String
    /// Redo inputs whose outputs are complete and current (by default a re-run skips them).
    public var force = false
    /// Inputs whose frames have more pixels are refused (`--max-pixels`).
    public var maxPixels = BatchSettings.defaultMaxPixels
    /// The policy that picks each video's default viewing mode (`probe.defaultMode` in manifest.json, preview's
    /// default renders). nil: the policy the video's manifest already records, else `.hig`; so commands run
    /// without `--policy`, in any order, leave a video's `probe` section as its last explicit choice made it.
    public var policy: ModePolicy?
    /// Inputs processed at once (`--jobs`; each already uses every core for decoding or encoding).
    public var inFlight = BatchSettings.defaultInFlight
    /// How PNGs are deflated (`FRAMEFARM_PNG_COMPRESSOR`): the same pixels either way.
    public var pngCompressor = PNGCompressor.framefarm
    /// How each input's folder under the output root is named (`--layout`).
    public var layout = FolderLayout.stem
    /// The shard this batch is, recorded in its run record (`--shard`).
    public var shard: Shard?
    /// Rewrite `OUT/index.html` after the batch. Shards of one library leave it alone: N workers rewriting it
    /// would race, and each rewrite reads every manifest.
    public var writesContactSheet = true
    /// Which rendition of a multivariant HLS playlist or DASH manifest the jobs read (`--rendition`).
    public var rendition = RenditionChoice.auto

    /// 8192x8192.
    public static let defaultMaxPixels = MediaFile.defaultMaxPixels
    public static let defaultInFlight = 2
    /// The most inputs `--jobs` puts in flight: each holds decoders with their threads and a renderer.
    public static let mostInFlight = 64

    public init(outputRoot: String) { self.outputRoot = outputRoot }
}

/// One batch command's work on one input, plugged into `BatchPipeline`, which does everything around it: the
/// folder, the resume check, the policy, GPU readiness, failure isolation, the manifest with its `probe` section,
/// progress and the contact sheet.
public protocol BatchJob: Sendable {
    associatedtype Options: Sendable
    /// The command's name, as the batch summary gives it.
    static var command: String { get }
    init(options: Options)
    /// What the job records in its manifest section that it was made with: every option that changes its
    /// outputs (each a `Setting`, so the record is strings).
    associatedtype Settings: Codable & Hashable & Sendable
    /// The settings for the policy the input runs under; a re-run with other settings redoes the input.
    func settings(policy: ModePolicy) -> Settings
    /// The settings this job's section of `manifest` records (`SettingsRecord`), if it has a section; the files
    /// it lists are `manifest.files(of: Self.command)`.
    func recordedSettings(in manifest: VideoManifest) -> [String: String]?
    /// Makes the input's outputs; the pipeline then writes its manifest.
    func process(_ input: InputContext) throws -> InputResult
    /// For `--rendition auto`: the least picture width the job's outputs need, and what for (nil: the largest).
    var renditionNeed: (minimumWidth: Int?, purpose: String) { get }
}

extension BatchJob {
    public var renditionNeed: (minimumWidth: Int?, purpose: String) { (nil, "full-size \(Self.command) outputs") }
}

/// One input as a job sees it: where its outputs go and what the batch decided for it. Passed to one job call.
public struct InputContext: Sendable {
    public let path: String
    /// The input's folder under the output root.
    let folder: String
    let layout: OutputLayout
    let gpu: GPUService
    /// The policy this input runs under (see `BatchSettings.policy`).
    let policy: ModePolicy
    let maxPixels: Int
    /// The rendition of a multivariant input the jobs read.
    let rendition: RenditionRequest
    let progress: ProgressCounter
    /// Image encoders shared by the inputs in flight: they bound how many images are encoded at once.
    let encoders: EncoderPool
    /// The stream's facts once the first job read them, for the jobs after it.
    let probed = Locked<StreamFacts?>(nil)

    var folderPath: String { layout.videoFolder(folder) }

    /// The input's stream facts (demuxing and the keyframe scan), read once for all the jobs the input goes through.
    func stream() throws -> StreamFacts {
        if let known = probed.withLock({ $0 }) { return known }
        let stream = try MediaProber.open(path: path, maxPixels: maxPixels, rendition: rendition)
        probed.withLock { $0 = stream }
        return stream
    }

    /// Waits for the Vulkan device, then creates the input's folder (or `subfolder` in it) and returns its path.
    /// Jobs call it once they are about to write, so an input that fails earlier leaves nothing behind.
    func makeOutputFolder(_ subfolder: String? = nil) throws -> String {
        try gpu.ready()
        let path = subfolder.map { folderPath + "/" + $0 } ?? folderPath
        try layout.makeFolder(path)
        return path
    }
}

/// What a job made of one input.
public struct InputResult {
    let facts: MediaFacts
    /// Files written, relative to the video's folder (manifest.json is added by the pipeline).
    let files: [String]
    let warnings: [InputWarning]
    /// Puts the job's section into the manifest.
    let record: (inout VideoManifest) -> Void

    /// The result with `warning` added, if any.
    func warning(_ warning: InputWarning?) -> InputResult {
        InputResult(facts: facts, files: files, warnings: warnings + [warning].compactMap { $0 }, record: record)
    }
}

/// Runs a `BatchJob` over a batch of inputs: bounded concurrency, one input's failure never stops the others,
/// SIGINT/SIGTERM stop between inputs (`BatchCancellation`). Each input's `probe` section is written once, by
/// the pipeline, under the batch's policy.
public struct BatchPipeline: Sendable {
    public let settings: BatchSettings
    public let gpu: GPUService

    public init(settings: BatchSettings, gpu: GPUService) {
        self.settings = settings
        self.gpu = gpu
    }

    public func run<Job: BatchJob>(_ job: Job, inputs: [String],
                                   progress: (@Sendable (BatchProgress) -> Void)? = nil) -> BatchSummary {
        run([job], inputs: inputs, progress: progress)
    }

    /// Runs several jobs in one pass over the batch: each input goes through every job in turn (those whose
    /// outputs are current are skipped), then its manifest is written once. One process, one GPU start and one
    /// tail for the whole batch instead of one per command; each job's outcome is kept apart for the run records.
    public func run(_ jobs: [any BatchJob], inputs: [String],
                    progress: (@Sendable (BatchProgress) -> Void)? = nil) -> BatchSummary {
        precondition(!jobs.isEmpty, "a batch runs at least one job")
        let started = Date().timeIntervalSince1970
        let layout = OutputLayout(root: settings.outputRoot)
        let folders = placeFolders(inputs)
        layout.removeStaleTemporaries(folders: folders.compactMap { try? $0.get() })
        let counter = ProgressCounter(total: inputs.count, report: progress)
        let encoders = EncoderPool(pngCompressor: settings.pngCompressor)
        let commands = jobs.map { type(of: $0).command }
        // Recorded before any input runs, every input not started: a worker killed outright (SIGKILL, a node lost)
        // leaves this, so `report` counts what it never finished missing, and a report while it runs is not complete.
        let unstarted = zip(inputs, folders).map(BatchSummary.Outcome.notStarted)
        Self.writeRecords(Self.summary(settings, commands, unstarted, elapsed: 0), settings: settings, commands: commands,
                          started: started)
        let outcomes = ParallelBatch.map(Array(zip(inputs, folders)), width: settings.inFlight,
                                         startOrder: Self.largestFirst(inputs),
                                         notStarted: BatchSummary.Outcome.notStarted) { path, placed in
            let start = Date()
            var outcome = switch placed {
            case .success(let folder):
                process(path, folder: folder, jobs: jobs, layout: layout, counter: counter, encoders: encoders)
            case .failure(let failure):
                BatchSummary.Outcome(path: path, folder: nil, status: .failed, error: failure.reason)
            }
            outcome.seconds = Date().timeIntervalSince(start)
            counter.finish(outcome)
            return outcome
        }
        var summary = Self.summary(settings, commands, outcomes, elapsed: counter.elapsedSeconds, gpu: gpu)
        let recorded = Self.writeRecords(summary, settings: settings, commands: commands, started: started, final: true)
        // Rewritten when every input failed too (the page of the last run would otherwise stand, saying nothing
        // failed), but not without a GPU: then nothing is written but the run's record.
        if settings.writesContactSheet, outcomes.contains(where: { $0.status != .notStarted }), gpu.startFailure == nil {
            // The failures of every command run on OUT, from the records (this run's among them), so a later
            // command does not hide an earlier one's; and the inputs the folders were made from, to flag those
            // changed or gone since.
            let latest = recorded ? RunRecord.latestInputs(RunRecord.all(outputRoot: layout.root)) : [:]
            let failures = recorded ? RunRecord.failures(in: latest)
                : outcomes.filter { $0.status == .failed }.map { InputFailure(path: $0.path, reason: $0.error ?? "failed") }
            summary.contactSheet = (try? ManifestStore.writeContactSheet(layout: layout, failures: failures,
                                                                        inputs: RunRecord.inputPaths(in: latest)))
                .map { _ in layout.indexPath }
        }
        return summary
    }

    /// What a shard given no inputs did: nothing, recorded, so that `report` knows the shard ran.
    public static func recordEmptyShard(_ jobs: [any BatchJob], settings: BatchSettings) -> BatchSummary {
        let commands = jobs.map { type(of: $0).command }
        let empty = summary(settings, commands, [], elapsed: 0)
        writeRecords(empty, settings: settings, commands: commands, started: Date().timeIntervalSince1970, final: true)
        return empty
    }

    private static func summary(_ settings: BatchSettings, _ commands: [String], _ outcomes: [BatchSummary.Outcome],
                                elapsed: Double, gpu: GPUService? = nil) -> BatchSummary {
        BatchSummary(command: commands.joined(separator: "+"), outputRoot: settings.outputRoot, contactSheet: nil,
                     gpu: gpu.flatMap { $0.startFailure == nil ? $0.record : nil },
                     peakGPUMemoryBytes: gpu?.peakDeviceMemoryBytes, elapsedSeconds: elapsed,
                     succeeded: outcomes.filter(\.ok).count, failed: outcomes.filter { $0.status == .failed }.count,
                     notStarted: outcomes.filter { $0.status == .notStarted }.count, inputs: outcomes)
    }

    /// Writes each command's run record of `summary` (the final one replaces the one written at the start, of the
    /// same name) and, when `final`, removes the records made redundant (`RunRecord.removeRedundant`). False when
    /// one could not be written:
    /// without a record, `report` still finds every output from the manifests; it only lacks failure reasons.
    @discardableResult
    private static func writeRecords(_ summary: BatchSummary, settings: BatchSettings, commands: [String], started: Double,
                                     final: Bool = false) -> Bool {
        var recorded = true
        for command in commands {
            do {
                let record = RunRecord(summary: summary, command: command, settings: settings, startedSeconds: started)
                try record.write(outputRoot: settings.outputRoot)
            } catch {
                recorded = false
            }
        }
        if final { RunRecord.removeRedundant(outputRoot: settings.outputRoot) }
        return recorded
    }

    /// The rendition request of `jobs` together: `auto` takes a picture wide enough for all of them.
    private func renditionRequest(for jobs: [any BatchJob]) -> RenditionRequest {
        let needs = jobs.map(\.renditionNeed)
        let widths = needs.map(\.minimumWidth)
        return RenditionRequest(choice: settings.rendition,
                                minimumWidth: widths.contains { $0 == nil } ? nil : widths.compactMap { $0 }.max(),
                                purpose: needs.map(\.purpose).joined(separator: " and "))
    }

    /// One input through `jobs`: those whose outputs are current are skipped; the first failure ends the input
    /// (the jobs after it fail for the same reason), and the manifest keeps what the jobs before it made.
    private func process(_ path: String, folder: String, jobs: [any BatchJob], layout: OutputLayout,
                         counter: ProgressCounter, encoders: EncoderPool) -> BatchSummary.Outcome {
        /// Every job failed, before any ran, for `reason`.
        func failedBeforeAnyJob(_ reason: String) -> BatchSummary.Outcome {
            var outcome = BatchSummary.Outcome(path: path, folder: folder, status: .failed, error: reason)
            outcome.statusByCommand = Dictionary(uniqueKeysWithValues: jobs.map { (type(of: $0).command, .failed) })
            return outcome
        }
        let input: InputRecord
        do {
            input = try ManifestStore.inputRecord(for: path)
        } catch {
            return failedBeforeAnyJob(error.description)
        }
        let claim: FolderClaim
        do {
            claim = try FolderClaim.take(folder: folder, for: OutputLayout.absolutePath(path), outputRoot: layout.root)
        } catch let held as FolderClaim.Held {
            // Said so that it still reads true in `report` once that batch has ended.
            return failedBeforeAnyJob("its folder \(folder) was being written for another input, \(held.input), by a batch "
                + "running then (process \(held.pid)\(held.onThisHost ? "" : " on another host")): give --layout hashed, or "
                + "--layout mirror --inputs-root DIR, to keep both")
        } catch let error as FileWriteError {
            return failedBeforeAnyJob(error.description)
        } catch {
            return failedBeforeAnyJob("cannot create output folder (\(OutputLayout.reason(of: error)))")
        }
        defer { claim.release() }
        let recorded = ManifestStore.read(layout.manifestPath(folder))
        if !settings.force, let recorded, ManifestStore.isOfAnotherInput(recorded, than: input),
           !ManifestStore.isGone(recorded, folder: folder, outputRoot: layout.root) {
            return failedBeforeAnyJob("its folder \(folder) holds the outputs of another input, \(recorded.input.path): "
                + "give --layout hashed, or --layout mirror --inputs-root DIR, to keep both (--force replaces them)")
        }
        let existing = ManifestStore.current(recorded, for: input)
        let policy = settings.policy ?? existing?.probe.policy ?? .hig
        var statuses: [String: BatchSummary.Outcome.Status] = [:]
        var results: [InputResult] = []
        var current: [String] = []  // the files of the jobs found up to date
        var failure: String?
        let context = InputContext(path: path, folder: folder, layout: layout, gpu: gpu, policy: policy,
                                   maxPixels: settings.maxPixels, rendition: renditionRequest(for: jobs),
                                   progress: counter, encoders: encoders)
        for job in jobs {
            let command = type(of: job).command
            if !settings.force, let existing, isCurrent(job, in: existing, policy: policy, folder: folder, layout: layout) {
                statuses[command] = .upToDate
                current += existing.files(of: command) ?? []
                continue
            }
            if failure != nil {
                statuses[command] = .failed
                continue
            }
            do {
                // Without a Vulkan device no input can be done: the rest fail at once, unprobed.
                if gpu.hasFailedToStart { try gpu.ready() }
                results.append(try job.process(context))
                statuses[command] = .done
            } catch {
                let reason = InputFailure(path: path, error: error).reason
                // Named when another job's outputs stand, so the line says which part is missing.
                failure = statuses.isEmpty ? reason : "\(command): \(reason)"
                statuses[command] = .failed
            }
        }
        if let first = results.first {
            let remade = Set(statuses.filter { $0.value == .done }.keys)
            do {
                try ManifestStore.update(at: layout.manifestPath(folder), input: input,
                                         probe: ProbeReport(path: path, facts: first.facts, policy: policy),
                                         remade: remade) { manifest in
                    for result in results { result.record(&manifest) }
                    manifest.addInputWarnings(Self.inputWarnings(first.facts).map(\.description), to: remade)
                }
            } catch {
                failure = failure ?? InputFailure(path: path, error: error).reason
                for (command, status) in statuses where status == .done { statuses[command] = .failed }
            }
        }
        let status: BatchSummary.Outcome.Status = failure != nil ? .failed : results.isEmpty ? .upToDate : .done
        var outcome = BatchSummary.Outcome(path: path, folder: folder, status: status, error: failure,
                                           outputs: results.isEmpty && current.isEmpty ? []
                                               : current + results.flatMap(\.files) + ["manifest.json"],
                                           warnings: Self.inputWarnings(results.first?.facts) + results.flatMap(\.warnings))
        outcome.statusByCommand = statuses
        return outcome
    }

    /// Once per input, whatever the jobs: renditions left out of its ladder, and its packets without timestamps,
    /// which every output's frames may show.
    static func inputWarnings(_ facts: MediaFacts?) -> [InputWarning] {
        let untimed = facts?.frameTiming?.untimedNote.map { InputWarning.missingTimestamps(note: $0) }
        return (facts?.info.skippedRenditions ?? []).map { .renditionSkipped(reason: $0) } + [untimed].compactMap { $0 }
    }

    /// The inputs' indices, largest file first (ties in input order): a batch that starts its longest videos
    /// first does not end with one of them running alone while the other slots idle.
    static func largestFirst(_ inputs: [String]) -> [Int] {
        let sizes = inputs.map(ManifestStore.sizeBytes(of:))
        return inputs.indices.sorted { sizes[$0] != sizes[$1] ? sizes[$0] > sizes[$1] : $0 < $1 }
    }

    /// Each input's folder under the layout; an input the layout cannot place, or whose folder would collide
    /// with another input's, fails (both inputs of a collision: neither may overwrite the other).
    private func placeFolders(_ inputs: [String]) -> [Result<String, InputFailure>] {
        var collisions: [String: String] = [:]
        for (first, second, folder) in settings.layout.conflicts(inputs) {
            for (input, other) in [(first, second), (second, first)] where collisions[input] == nil {
                collisions[input] = "its output folder \(folder) would collide with that of \(other): "
                    + "use --layout hashed, or --layout mirror --inputs-root DIR"
            }
        }
        return inputs.map { input in
            if let reason = collisions[input] { return .failure(InputFailure(path: input, reason: reason)) }
            return Result { () throws(InputFailure) in try settings.layout.folder(for: input) }
        }
    }

    /// Whether a re-run can skip the input: its manifest describes the same file, the job's section was made from
    /// it (not stale) with the same settings, and every file the section lists exists and is not empty.
    private func isCurrent<Job: BatchJob>(_ job: Job, in manifest: VideoManifest, policy: ModePolicy, folder: String,
                                          layout: OutputLayout) -> Bool {
        guard !manifest.isStale(Job.command), let recorded = job.recordedSettings(in: manifest),
              let files = manifest.files(of: Job.command),
              SettingsRecord.read(Job.Settings.self, from: recorded) == job.settings(policy: policy) else {
            return false
        }
        return files.allSatisfy { OutputLayout.isNonEmptyFile(layout.videoFolder(folder) + "/" + $0) }
    }
}

extension BatchJob {
    /// The job over `inputs` with the batch defaults but for the output root, `force` and `inFlight`.
    public static func run(inputs: [String], outputRoot: String, options: Options, gpu: GPUService,
                           force: Bool = false, inFlight: Int? = nil,
                           progress: (@Sendable (BatchProgress) -> Void)? = nil) -> BatchSummary {
        var settings = BatchSettings(outputRoot: outputRoot)
        settings.force = force
        settings.inFlight = inFlight ?? settings.inFlight
        return BatchPipeline(settings: settings, gpu: gpu).run(Self(options: options), inputs: inputs, progress: progress)
    }
}

extension MediaFacts {
    /// The part of the coded frame a job shows: without the bars proven (`auto`), without the likely ones too
    /// (`force`), or the whole frame (`off`).
    func codedContent(_ removal: PaddingRemoval) -> PixelRect {
        switch removal {
        case .auto: padding.contentRect
        case .force: padding.likelyContentRect
        case .off: PixelRect(size: stream.info.geometry.codedSize)
        }
    }
}
