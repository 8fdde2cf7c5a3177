import Foundation
import FrameFarmCore
import FrameFarmMedia

/// `OUT/.framefarm/runs/<command>-<shard>-<host>-<pid>-<start>.json`: what one batch run did to each of its
/// inputs, written by that run alone when it ends (a name no other process uses), so shards sharing OUT never
/// write one file. `framefarm report` reads them for failure reasons and for which shard touched what. A record of
/// the command `prune` names the inputs whose folders `report --prune` removed: no longer inputs of any command.
public struct RunRecord: Codable, Sendable {
    public struct Input: Codable, Sendable {
        public var path: String
        public var folder: String?
        public var status: BatchSummary.Outcome.Status
        public var error: String?
    }

    public var formatVersion = 1
    public var command: String
    /// `K/N`, or nil for a run over the whole list.
    public var shard: String?
    /// `stem`, `hashed` or `mirror`, and the inputs root of `mirror`: how `report` maps a list to folders.
    public var layout: String
    public var inputsRoot: String?
    public var host: String
    public var processID: Int32
    /// Inputs processed at once (`--jobs`); nil in records written before it was recorded.
    public var jobs: Int?
    /// Seconds since 1970.
    public var startedSeconds: Double
    public var finishedSeconds: Double
    /// Stopped by SIGINT or SIGTERM before every input ran.
    public var interrupted: Bool
    public var inputs: [Input]

    /// Where a batch's run records live.
    public static func folder(outputRoot: String) -> String { outputRoot + "/.framefarm/runs" }

    /// Every record under OUT, oldest first; unreadable ones are skipped.
    public static func all(outputRoot: String) -> [RunRecord] {
        let folder = folder(outputRoot: outputRoot)
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
        let decoder = JSONDecoder()
        return names.filter { $0.hasSuffix(".json") && !$0.hasPrefix(".") }.compactMap { name in
            FileManager.default.contents(atPath: folder + "/" + name).flatMap { try? decoder.decode(RunRecord.self, from: $0) }
        }.sorted { ($0.finishedSeconds, $0.host, $0.processID) < ($1.finishedSeconds, $1.host, $1.processID) }
    }

    /// The latest word of `records` (oldest first) on each input, per command: later records replace earlier ones,
    /// except that "not started" replaces nothing.
    public static func latestInputs(_ records: [RunRecord]) -> [String: [String: Input]] {
        var latest: [String: [String: Input]] = [:]
        for record in records {
            if record.command == pruneCommand {
                for input in record.inputs { for command in latest.keys { latest[command]?[input.path] = nil } }
                continue
            }
            // An input a run never started (it was interrupted) is named, so that it counts as missing, but never
            // hides what an earlier run recorded of it.
            for input in record.inputs where input.status != .notStarted || latest[record.command]?[input.path] == nil {
                latest[record.command, default: [:]][input.path] = input
            }
        }
        return latest
    }

    /// The inputs whose latest run of a command failed (`latest` of `latestInputs`), each with `command: reason`:
    /// what the review page lists first, whichever command ran last.
    public static func failures(in latest: [String: [String: Input]]) -> [InputFailure] {
        latest.sorted { $0.key < $1.key }.flatMap { command, inputs in
            inputs.values.filter { $0.status == .failed }.sorted { $0.path < $1.path }
                .map { InputFailure(path: $0.path, reason: "\(command): \($0.error ?? "failed")") }
        }
    }

    /// The input (an absolute path) each video folder was last made from, by any command, in `latest`.
    public static func inputPaths(in latest: [String: [String: Input]]) -> [String: String] {
        var paths: [String: String] = [:]
        for inputs in latest.values {
            for input in inputs.values { if let folder = input.folder { paths[folder] = input.path } }
        }
        return paths
    }

    /// The record of `command`, one of the jobs the batch of `summary` ran.
    init(summary: BatchSummary, command: String, settings: BatchSettings, startedSeconds: Double) {
        self.command = command
        shard = settings.shard?.description
        (layout, inputsRoot) = switch settings.layout {
        case .stem: ("stem", nil)
        case .hashed: ("hashed", nil)
        case .mirror(let root): ("mirror", OutputLayout.absolutePath(root))
        }
        host = ProcessInfo.processInfo.hostName
        processID = getpid()
        jobs = settings.inFlight
        self.startedSeconds = startedSeconds
        finishedSeconds = Date().timeIntervalSince1970
        interrupted = summary.inputs.contains { $0.status == .notStarted }
        inputs = summary.inputs.map {
            let status = $0.status(of: command)
            return Input(path: OutputLayout.absolutePath($0.path), folder: $0.folder, status: status,
                         error: status == $0.status ? $0.error : nil)
        }
    }

    /// The command of a record of `report --prune`.
    static let pruneCommand = "prune"

    /// The record of `report --prune` having removed the folders of `paths` (absolute).
    init(pruned paths: [String]) {
        command = Self.pruneCommand
        (layout, inputsRoot) = ("stem", nil)
        host = ProcessInfo.processInfo.hostName
        processID = getpid()
        startedSeconds = Date().timeIntervalSince1970
        finishedSeconds = startedSeconds
        interrupted = false
        inputs = paths.map { Input(path: $0, folder: nil, status: .done, error: nil) }
    }

    /// The layout the record names, to map a list to folders as the run did.
    var folderLayout: FolderLayout {
        switch layout {
        case "hashed": .hashed
        case "mirror": .mirror(inputsRoot: inputsRoot ?? "/")
        default: .stem
        }
    }

    /// The start of the names of the records of this record's command and shard.
    private var namePrefix: String {
        "\(command)-\(shard.map { $0.replacingOccurrences(of: "/", with: "-of-") } ?? "all")-"
    }

    /// Writes the record under OUT.
    func write(outputRoot: String) throws {
        let safeHost = String(host.map { $0.isLetter || $0.isNumber || $0 == "-" || $0 == "." ? $0 : "_" })
        let name = "\(namePrefix)\(safeHost)-\(processID)-\(Int(startedSeconds * 1000)).json"
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        let folder = Self.folder(outputRoot: outputRoot)
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        try AtomicFile.write(try encoder.encode(self), to: folder + "/" + name)
    }

    /// Removes the earlier records of this record's command and shard that it, written, makes redundant: those
    /// whose every input it records again, started and with a folder where theirs had one, so that
    /// `latestInputs` reads nothing of theirs. Without this a library refreshed nightly by 100 shards would gather
    /// 36,500 records a year, each read by every run's review page and by `report`. Records that still say
    /// something (inputs since left out of the list, a run this one's interruption did not reach) stay.
    func removeRecordsItSupersedes(outputRoot: String) {
        let folder = Self.folder(outputRoot: outputRoot)
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
        var recorded: [String: Input] = [:]
        for input in inputs where input.status != .notStarted { recorded[input.path] = input }
        for name in names where name.hasPrefix(namePrefix) && name.hasSuffix(".json") {
            guard let data = FileManager.default.contents(atPath: folder + "/" + name),
                  let earlier = try? JSONDecoder().decode(RunRecord.self, from: data),
                  earlier.command == command, earlier.shard == shard, earlier.finishedSeconds < finishedSeconds,
                  earlier.inputs.allSatisfy({ old in recorded[old.path].map { $0.folder != nil || old.folder == nil } ?? false })
            else { continue }
            try? FileManager.default.removeItem(atPath: folder + "/" + name)
        }
    }
}
