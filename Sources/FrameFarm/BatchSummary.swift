import Foundation

/// What a batch command did, printed by `--json` and summarised on stderr: one entry per input.
public struct BatchSummary: Encodable, Sendable {
    public struct Outcome: Encodable, Sendable {
        /// What became of an input.
        public enum Status: String, Codable, Sendable {
            /// Its outputs were made.
            case done
            /// Its outputs were complete and current already, so it was skipped (`--force` redoes it).
            case upToDate = "up-to-date"
            case failed
            /// The batch was interrupted before it started.
            case notStarted = "not-started"
        }

        public var path: String
        /// Folder under the output root; nil when the input failed before one was chosen.
        public var folder: String?
        public var status: Status
        /// Whether its outputs are there: `done` or `upToDate`.
        public var ok: Bool
        public var error: String?
        /// Its outputs, relative to its folder: the files written, and those found up to date.
        public var outputs: [String]
        public var warnings: [InputWarning]
        /// Seconds the input took, from its start to its outputs written; absent for one not started.
        public var seconds: Double?
        /// Each job's own status where a batch runs several; absent, every job's is `status`.
        var statusByCommand: [String: Status] = [:]

        private enum CodingKeys: String, CodingKey { case path, folder, status, ok, error, outputs, warnings, seconds }

        /// The input's status for one of the batch's jobs.
        func status(of command: String) -> Status { statusByCommand[command] ?? status }

        init(path: String, folder: String?, status: Status, error: String? = nil, outputs: [String] = [],
             warnings: [InputWarning] = []) {
            self.path = path
            self.folder = folder
            self.status = status
            ok = status == .done || status == .upToDate
            self.error = error
            self.outputs = outputs
            self.warnings = warnings
        }

        static func notStarted(_ input: (String, Result<String, InputFailure>)) -> Outcome {
            Outcome(path: input.0, folder: try? input.1.get(), status: .notStarted,
                    error: BatchCancellation.notStartedReason)
        }
    }

    public var command: String
    public var outputRoot: String
    public var contactSheet: String?
    public var gpu: GPURecord?
    /// The most device memory the batch's GPU buffers held at once.
    public var peakGPUMemoryBytes: Int?
    public var elapsedSeconds: Double
    public var succeeded: Int
    public var failed: Int
    /// Inputs an interrupted batch never started: neither succeeded nor failed.
    public var notStarted: Int
    public var inputs: [Outcome]

    public var failures: [InputFailure] {
        inputs.filter { !$0.ok }.map { InputFailure(path: $0.path, reason: $0.error ?? "failed") }
    }
}

/// Progress of a batch, reported after every finished input and unit of work.
public struct BatchProgress: Sendable {
    public var inputsDone: Int
    public var inputsTotal: Int
    /// Renders, thumbnails or posters finished so far.
    public var itemsDone: Int
    public var elapsedSeconds: Double
    /// The input whose end this reports, so that its failure or warnings are said as they happen; nil for a
    /// unit of work.
    public var finished: BatchSummary.Outcome?
}

/// Thread-safe progress accounting shared by a batch's workers.
final class ProgressCounter: Sendable {
    private struct Counts {
        var inputsDone = 0
        var itemsDone = 0
    }

    private let counts = Locked(Counts())
    private let started = Date()
    private let total: Int
    private let report: (@Sendable (BatchProgress) -> Void)?

    init(total: Int, report: (@Sendable (BatchProgress) -> Void)?) {
        self.total = total
        self.report = report
    }

    func add(items: Int) { add(items: items, finished: nil) }

    /// Counts `outcome`'s input done.
    func finish(_ outcome: BatchSummary.Outcome) { add(items: 0, finished: outcome) }

    private func add(items: Int, finished: BatchSummary.Outcome?) {
        let snapshot = counts.withLock { counts in
            counts.itemsDone += items
            counts.inputsDone += finished == nil ? 0 : 1
            return BatchProgress(inputsDone: counts.inputsDone, inputsTotal: total, itemsDone: counts.itemsDone,
                                 elapsedSeconds: Date().timeIntervalSince(started), finished: finished)
        }
        report?(snapshot)
    }

    var elapsedSeconds: Double { Date().timeIntervalSince(started) }
}
