import Foundation

/// What every batch command shares: output folders per input, sweeping dead writers' temporaries, skipping
/// inputs whose section is current, bounded concurrency, failure isolation, cancellation, progress, and the
/// contact sheet at the end.
struct BatchDriver {
    var command: String
    var inputs: [String]
    var layout: OutputLayout
    var gpu: GPUService
    var force: Bool
    /// Inputs processed at once (each already uses every core for decoding or encoding).
    var inFlight: Int
    /// The settings of this run and, per manifest, the settings and files of the section this command owns.
    var settings: [String: String]
    var currentSection: (VideoManifest) -> (settings: [String: String], files: [String])?

    /// Runs `process` per input (path, folder, progress counter); it returns the files written and warnings.
    func run(progress: ((BatchProgress) -> Void)?,
             _ process: (String, String, ProgressCounter) throws -> (files: [String], warnings: [String])) -> BatchSummary {
        let folders = OutputLayout.folderNames(for: inputs)
        layout.removeStaleTemporaries(folders: folders)
        let counter = ProgressCounter(total: inputs.count, report: progress)
        let outcomes = ParallelBatch.map(Array(zip(inputs, folders)), width: inFlight,
                                         notStarted: BatchSummary.Outcome.notStarted) { input, folder in
            defer { counter.add(inputs: 1) }
            if !force, ResumeCheck.isUpToDate(folder: folder, layout: layout, input: ManifestStore.inputRecord(for: input),
                                              settings: settings, section: currentSection) {
                return BatchSummary.Outcome.upToDate(input, folder)
            }
            do {
                // Without a Vulkan device no input can be done: the rest fail at once, unprobed.
                if gpu.hasFailedToStart { try gpu.ready() }
                let result = try process(input, folder, counter)
                return BatchSummary.Outcome(path: input, folder: folder, ok: true, error: nil, outputs: result.files,
                                            warnings: result.warnings)
            } catch {
                return BatchSummary.Outcome(path: input, folder: folder, ok: false,
                                            error: InputFailure(path: input, error: error).reason, outputs: [], warnings: [])
            }
        }
        var contactSheet: String?
        if outcomes.contains(where: \.ok) {
            contactSheet = (try? ManifestStore.writeContactSheet(layout: layout)).map { layout.indexPath }
        }
        let succeeded = outcomes.filter(\.ok).count
        return BatchSummary(command: command, outputRoot: layout.root, contactSheet: contactSheet,
                            gpu: gpu.startFailure == nil ? gpu.record : nil,
                            peakGPUMemoryBytes: gpu.peakDeviceMemoryBytes, elapsedSeconds: counter.elapsedSeconds,
                            succeeded: succeeded, failed: outcomes.count - succeeded, inputs: outcomes)
    }
}
