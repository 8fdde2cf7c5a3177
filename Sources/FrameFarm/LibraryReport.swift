import Foundation
import FrameFarmCore
import FrameFarmMedia

/// What `framefarm report OUT` finds: per command, which inputs have current outputs, which failed, which are
/// missing and which are stale, from the manifests and run records under OUT alone (no video is opened).
/// Written as `OUT/summary.json`.
public struct LibraryReport: Encodable, Sendable {
    /// One command's inputs by state; the lists name inputs (absolute paths), the failures with their reason.
    public struct CommandReport: Encodable, Sendable {
        public var done = 0
        public var failed: [InputFailure] = []
        /// Listed (or run) but with no output and no recorded failure: never run, or its worker was killed.
        public var missing: [String] = []
        /// Outputs there, but the input changed (size or modification time) or is gone since they were made.
        public var stale: [String] = []
        /// Shards (`K/N`) of the command's latest shard count that no run record names: without a list, their
        /// inputs are not known here, so a shard that never ran would otherwise leave the report complete.
        public var shardsNotRun: [String] = []
    }

    public var outputRoot: String
    /// Inputs considered: the list given, else every input a run record or a manifest names.
    public var inputs: Int
    public var commands: [String: CommandReport]
    /// Listed inputs when OUT holds no output and no run of any command (a typo in the path, or every worker
    /// killed before it wrote): missing, though no command can be named.
    public var notRun: [String] = []
    /// With a list: the video folders under OUT that no listed input maps to (videos taken out of the library),
    /// with the input their outputs were made from. They do not make the report incomplete; `prune` removes them.
    public var unlisted: [OutputFolder] = []
    /// The folders `prune` removed.
    public var pruned: [OutputFolder] = []
    /// Whether a list was given: only then are folders unlisted.
    let listGiven: Bool
    /// Listed inputs that no run names and the layout maps to no folder (not under a mirror layout's root): counted
    /// missing, and named on stderr with the layout to give.
    public var unmapped: [String] = []

    /// A video folder under OUT (relative to it) and the input its outputs were made from.
    public struct OutputFolder: Encodable, Sendable, Equatable {
        public var folder: String
        public var path: String
        /// For an unlisted folder made from an input the list does name: the folder that input maps to now (it
        /// was made under another layout or inputs root).
        public var listedFolder: String?
        /// For an unlisted folder of a video the list names, by this path or another (a link), that has no outputs
        /// where it maps now: that listed path. `prune` keeps the folder: it holds the video's only outputs.
        public var onlyOutputsOf: String?
    }
    /// Nothing failed, missing, stale or not run. Shards never run count only without a list: with one, their
    /// inputs are missing if they were not done since (a library sharded again with another count).
    public var complete: Bool {
        notRun.isEmpty && commands.values.allSatisfy {
            $0.failed.isEmpty && $0.missing.isEmpty && $0.stale.isEmpty && (listGiven || $0.shardsNotRun.isEmpty)
        }
    }

    private enum CodingKeys: String, CodingKey { case outputRoot, inputs, commands, notRun, complete, unlisted, pruned }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(outputRoot, forKey: .outputRoot)
        try container.encode(inputs, forKey: .inputs)
        try container.encode(commands, forKey: .commands)
        try container.encode(notRun, forKey: .notRun)
        try container.encode(complete, forKey: .complete)
        if listGiven { try container.encode(unlisted, forKey: .unlisted) }
        if !pruned.isEmpty { try container.encode(pruned, forKey: .pruned) }
    }

    /// The report over `outputRoot`. `list` (absolute or relative paths) is what should be there; `layout` maps it
    /// to folders. Without it, an input goes to the folder a run last recorded for it, else where the latest run's
    /// layout puts it (`.stem` when none ran): a run with another `--inputs-root` leaves the others' folders known.
    public init(outputRoot: String, list: [String]? = nil, layout: FolderLayout? = nil) {
        self.outputRoot = outputRoot
        listGiven = list != nil
        let out = OutputLayout(root: outputRoot)
        let records = RunRecord.all(outputRoot: outputRoot)
        let lastRun = RunRecord.latestInputs(records)
        let latestLayout = records.last { $0.command != RunRecord.pruneCommand }?.folderLayout ?? .stem
        let listed = list.map { Self.folders(of: $0, layout: layout, latestLayout: latestLayout, lastRun: lastRun) }
        unmapped = listed?.filter { $0.folder == nil && !Self.failedBeforeAFolder($0.path, lastRun) }.map(\.path) ?? []
        let judged = Self.judgeOutputs(out: out, listed: listed, lastRun: lastRun)
        inputs = judged.count
        // A command whose only runs were of shards given no inputs has none in `lastRun`, but shards to report.
        let commandNames = Set(lastRun.keys).union(judged.values.flatMap(\.keys))
            .union(records.map(\.command).filter { $0 != RunRecord.pruneCommand })
        var commands = Dictionary(uniqueKeysWithValues: commandNames.map { ($0, CommandReport()) })
        for (path, outputs) in judged.sorted(by: { $0.key < $1.key }) {
            for command in commandNames {
                switch (outputs[command], lastRun[command]?[path]) {
                // The last run's failure, whatever an earlier run left (its outputs stay, for other settings).
                case (_, let run?) where run.status == .failed:
                    commands[command]!.failed.append(InputFailure(path: path, reason: run.error ?? "failed"))
                case (true?, _): commands[command]!.done += 1
                case (false?, _): commands[command]!.stale.append(path)
                case (nil, _): commands[command]!.missing.append(path)
                }
            }
        }
        for command in commandNames { commands[command]!.shardsNotRun = Self.shardsNotRun(of: command, in: records) }
        self.commands = commands
        if commandNames.isEmpty { notRun = judged.keys.sorted() }
        if let listed {
            unlisted = Self.unlistedFolders(out: out, listed: listed, lastRun: lastRun)
            Self.markOnlyOutputs(in: &unlisted, listed: listed, judged: judged)
        }
    }

    /// Each input of `list` once, as an absolute path, with its folder: `layout`'s when given, else the folder a
    /// run last recorded for it, else `latestLayout`'s; nil where the layout maps it nowhere.
    private static func folders(of list: [String], layout: FolderLayout?, latestLayout: FolderLayout,
                                lastRun: [String: [String: RunRecord.Input]]) -> [(path: String, folder: String?)] {
        var recorded: [String: String] = [:]
        if layout == nil {
            for (folder, path) in RunRecord.inputPaths(in: lastRun) { recorded[path] = folder }
        }
        return InputList.deduplicated(list).map { path in
            let absolute = OutputLayout.absolutePath(path)
            return (absolute, recorded[absolute] ?? (try? (layout ?? latestLayout).folder(for: path)))
        }
    }

    /// Whether every run's word on `path` is a failure that came before a folder was chosen (one that is not a
    /// video, say): such an input is failed, not unmapped.
    private static func failedBeforeAFolder(_ path: String, _ lastRun: [String: [String: RunRecord.Input]]) -> Bool {
        let words = lastRun.values.compactMap { $0[path] }
        return !words.isEmpty && words.allSatisfy { $0.status == .failed }
    }

    /// The video folders under OUT that no listed input maps to, each with the input its latest run (else its
    /// manifest) names, and where that input maps now when the list names it.
    private static func unlistedFolders(out: OutputLayout, listed: [(path: String, folder: String?)],
                                        lastRun: [String: [String: RunRecord.Input]]) -> [OutputFolder] {
        let runInputs = RunRecord.inputPaths(in: lastRun)
        let folders = Set(listed.compactMap(\.folder))
        var listedFolders: [String: String] = [:]
        for (path, folder) in listed { if let folder { listedFolders[path] = folder } }
        return out.videoFolders().filter { !folders.contains($0) }.map { folder in
            let path = runInputs[folder] ?? ManifestStore.read(out.manifestPath(folder)).map(\.input.path) ?? "?"
            return OutputFolder(folder: folder, path: path, listedFolder: listedFolders[OutputLayout.absolutePath(path)])
        }
    }

    /// Sets `onlyOutputsOf` on the folders made from a file a listed input without outputs names (the same file by
    /// device and inode, whatever the path: a link, another layout).
    private static func markOnlyOutputs(in folders: inout [OutputFolder], listed: [(path: String, folder: String?)],
                                        judged: [String: [String: Bool]]) {
        guard !folders.isEmpty else { return }
        var withoutOutputs: [FileIdentity: String] = [:]
        for (path, _) in listed where judged[path]?.isEmpty ?? true {
            if let identity = FileIdentity(path: path), withoutOutputs[identity] == nil { withoutOutputs[identity] = path }
        }
        guard !withoutOutputs.isEmpty else { return }
        for index in folders.indices {
            folders[index].onlyOutputsOf = FileIdentity(path: folders[index].path).flatMap { withoutOutputs[$0] }
        }
    }

    /// The shards of `command`'s latest shard count (that of its latest sharded record, `records` oldest first)
    /// that no record of that count names.
    private static func shardsNotRun(of command: String, in records: [RunRecord]) -> [String] {
        let shards = records.filter { $0.command == command }.compactMap { record -> (index: Int, count: Int)? in
            guard let parts = record.shard?.split(separator: "/"), parts.count == 2,
                  let index = Int(parts[0]), let count = Int(parts[1]) else { return nil }
            return (index, count)
        }
        guard let count = shards.last?.count else { return [] }
        let ran = Set(shards.filter { $0.count == count }.map(\.index))
        return (0..<count).filter { !ran.contains($0) }.map { "\($0)/\(count)" }
    }

    /// Each input's outputs per command: current (true) or stale (false); absent where there are none. The inputs
    /// are those `listed` with their folders, else those the runs and manifests name. Each manifest is read once.
    private static func judgeOutputs(out: OutputLayout, listed: [(path: String, folder: String?)]?,
                                     lastRun: [String: [String: RunRecord.Input]]) -> [String: [String: Bool]] {
        var judged: [String: [String: Bool]] = [:]
        func judge(_ path: String, folder: String?, manifest known: VideoManifest? = nil) {
            guard let folder, let manifest = known ?? ManifestStore.read(out.manifestPath(folder)) else {
                judged[path] = [:]
                return
            }
            // A remote input its server does not describe now (unreachable, gone) counts as changed.
            let input = try? ManifestStore.inputRecord(for: path)
            // A folder holding another input's outputs (a video of the same name, another run) holds none of these.
            if let input, known == nil, ManifestStore.isOfAnotherInput(manifest, than: input) {
                judged[path] = [:]
                return
            }
            let unchanged = input.map { $0.sizeBytes > 0 && manifest.input.describesSameFile(as: $0) } ?? false
            judged[path] = Dictionary(uniqueKeysWithValues: VideoManifest.commands.compactMap { command in
                manifest.files(of: command).flatMap { files in
                    files.allSatisfy { OutputLayout.isNonEmptyFile(out.videoFolder(folder) + "/" + $0) }
                        ? (command, unchanged && !manifest.isStale(command)) : nil
                }
            })
        }
        if let listed {
            for (path, folder) in listed { judge(path, folder: folder) }
        } else {
            // The runs' inputs first: their paths are absolute. A folder no run names (made by an older FrameFarm)
            // is judged from its manifest's path, relative to the current folder if the run's was.
            var folders = Set<String>()
            for runs in lastRun.values {
                for (path, input) in runs
                where judged[path] == nil && !isReplaced(path, in: input.folder, lastRun: lastRun) {
                    judge(path, folder: input.folder)
                    if let folder = input.folder { folders.insert(folder) }
                }
            }
            for folder in out.videoFolders() where !folders.contains(folder) {
                guard let manifest = ManifestStore.read(out.manifestPath(folder)) else { continue }
                judge(OutputLayout.absolutePath(manifest.input.path), folder: folder, manifest: manifest)
            }
        }
        return judged
    }

    /// Whether the local input at `path` is gone and a run put another input, one that is there, in its folder:
    /// a video replaced by one of the same stem (`show.mkv` for `show.mp4`), which that folder reports.
    private static func isReplaced(_ path: String, in folder: String?, lastRun: [String: [String: RunRecord.Input]]) -> Bool {
        func exists(_ path: String) -> Bool { FileManager.default.fileExists(atPath: ForeignNames.openable(path)) }
        guard let folder, !RemoteInput.isRemote(path), !exists(path) else { return false }
        return lastRun.values.contains { runs in
            runs.contains { $0.key != path && $0.value.folder == folder && !RemoteInput.isRemote($0.key) && exists($0.key) }
        }
    }

    /// The inputs whose latest run of a command failed, with `command: reason`: the head of the contact sheet.
    public var failures: [InputFailure] {
        commands.sorted { $0.key < $1.key }.flatMap { command, report in
            report.failed.map { InputFailure(path: $0.path, reason: "\(command): \($0.reason)") }
        }
    }

    /// What else is not done, listed on the contact sheet after the failures but not counted as failed: inputs
    /// missing or stale per command, inputs not run at all, shards never run, folders of inputs no longer listed.
    /// Stale and unlisted ones are under their filters, with the videos they mark.
    public var notices: [ContactSheetWriter.Problem] {
        typealias Problem = ContactSheetWriter.Problem
        return commands.sorted { $0.key < $1.key }.flatMap { command, report in
            report.missing.map { Problem(path: $0, text: "\(command): no outputs (never run, or its run stopped)", flag: .notDone) }
                + report.stale.map {
                    Problem(path: $0, text: "\(command): the input changed or is gone since its outputs were made", flag: .changed)
                }
                + report.shardsNotRun.map {
                    Problem(path: "shard \($0)", text: "\(command): no run of this shard is recorded", flag: .notDone)
                }
        } + notRun.map { Problem(path: $0, text: "no outputs and no runs of any command under \(outputRoot)", flag: .notDone) }
            + unlisted.map {
                Problem(path: $0.path, text: ($0.listedFolder.map { "listed, but mapped to \($0)/ now (another layout or "
                                                   + "inputs root)" } ?? "not in the list")
                        + ": its outputs (\($0.folder)/) stay until `report --prune`", folder: $0.folder, flag: .unlisted)
            }
    }

    /// Writes `OUT/summary.json`.
    public func write() throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        try AtomicFile.write(try encoder.encode(self), to: outputRoot + "/summary.json")
    }
}
