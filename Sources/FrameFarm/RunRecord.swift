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
    public static func all(outputRoot: String) -> [RunRecord] { named(outputRoot: outputRoot).map(\.record) }

    /// Every record under OUT with its file name, oldest first; unreadable ones are skipped.
    private static func named(outputRoot: String) -> [(name: String, record: RunRecord)] {
        let folder = folder(outputRoot: outputRoot)
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
        let decoder = JSONDecoder()
        return names.filter { $0.hasSuffix(".json") && !$0.hasPrefix(".") }.compactMap { name in
            FileManager.default.contents(atPath: folder + "/" + name)
                .flatMap { try? decoder.decode(RunRecord.self, from: $0) }.map { (name: name, record: $0) }
        }.sorted { ($0.record.finishedSeconds, $0.record.host, $0.record.processID)
            < ($1.record.finishedSeconds, $1.record.host, $1.record.processID) }
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

    /// Writes the record under OUT.
    func write(outputRoot: String) throws {
        let shardName = shard.map { $0.replacingOccurrences(of: "/", with: "-of-") } ?? "all"
        let safeHost = String(host.map { $0.isLetter || $0.isNumber || $0 == "-" || $0 == "." ? $0 : "_" })
        let name = "\(command)-\(shardName)-\(safeHost)-\(processID)-\(Int(startedSeconds * 1000)).json"
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        let folder = Self.folder(outputRoot: outputRoot)
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        try AtomicFile.write(try encoder.encode(self), to: folder + "/" + name)
    }

    /// Removes the records under OUT that `latestInputs` and `report` no longer read anything of, so that records do
    /// not gather without end (a library refreshed nightly by 100 shards gathered 36,500 a year, each read by every
    /// run's review page and by `report`). A record of a command is redundant when every input it names is named
    /// again later, started, by a record of that command (with a folder where it had one) or by a `prune` record,
    /// and a later record of the same shard exists or its shard count is no longer the command's latest. A `prune`
    /// record is redundant once no record before it names an input it pruned.
    public static func removeRedundant(outputRoot: String) {
        let folder = folder(outputRoot: outputRoot)
        let named = named(outputRoot: outputRoot)
        let latestCount = Dictionary(named.compactMap { entry in entry.record.shardCount.map { (entry.record.command, $0) } },
                                     uniquingKeysWith: { _, later in later })
        var covered: [String: [String: Bool]] = [:]  // command -> path -> recorded with a folder
        var pruned = Set<String>(), shardsSeen: [String: Set<String>] = [:]
        var redundant = Set<String>()
        for (name, record) in named.reversed() {
            if record.command == pruneCommand {
                pruned.formUnion(record.inputs.map(\.path))
                continue
            }
            let later = covered[record.command, default: [:]]
            let allCovered = record.inputs.allSatisfy { input in
                pruned.contains(input.path) || later[input.path].map { $0 || input.folder == nil } == true
            }
            // `report` looks for the shards of a command's latest count that no record names.
            let shard = record.shard ?? "all"
            let shardCovered = record.shard == nil || shardsSeen[record.command, default: []].contains(shard)
                || record.shardCount.map { $0 != latestCount[record.command] } == true
            if allCovered && shardCovered { redundant.insert(name) }
            for input in record.inputs where input.status != .notStarted {
                covered[record.command, default: [:]][input.path] = (later[input.path] ?? false) || input.folder != nil
            }
            shardsSeen[record.command, default: []].insert(shard)
        }
        // A prune record with no earlier record naming what it pruned.
        var namedEarlier = Set<String>()
        for (name, record) in named where !redundant.contains(name) {
            if record.command == pruneCommand {
                if record.inputs.allSatisfy({ !namedEarlier.contains($0.path) }) { redundant.insert(name) }
            } else {
                namedEarlier.formUnion(record.inputs.map(\.path))
            }
        }
        for name in redundant { try? FileManager.default.removeItem(atPath: folder + "/" + name) }
    }

    /// N of a `K/N` shard; nil for a run over the whole list.
    private var shardCount: Int? { shard.flatMap { $0.split(separator: "/").last.flatMap { Int($0) } } }
}
