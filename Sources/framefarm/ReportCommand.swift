import ArgumentParser
import Foundation
import FrameFarm

struct ReportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "report",
        abstract: "Say what an output folder holds: per command, inputs done, failed, missing and stale.",
        discussion: """
            Reads every manifest and run record under OUT (no video is decoded) and writes the contact sheet \
            (OUT/index.html, paged for large batches) and OUT/summary.json. Without --inputs-from, the inputs are \
            those the runs and manifests name. Exit status: 0 when nothing is failed, missing or stale and (without \
            --inputs-from) every shard ran; 1 otherwise (an OUT not made yet, with a list: nothing ran, nothing is \
            written); 2 for usage errors. Run it once the shards of a library are done.
            """)

    @Argument(help: "The output folder the batch commands wrote (their --out).")
    var out: String

    @Option(help: ArgumentHelp("The list of inputs that should be there, one a line ('-': standard input), as the batch commands read it.", valueName: "file"))
    var inputsFrom: String?

    @Option(help: "How the listed inputs' folders are named (default: as the latest run under OUT recorded, else stem).")
    var layout: LayoutChoice?

    @Option(help: ArgumentHelp("The library's root folder, for --layout mirror.", valueName: "folder"))
    var inputsRoot: String?

    @Flag(help: "Print OUT/summary.json on stdout.")
    var json = false

    @Flag(help: "Remove the folders of inputs not in --inputs-from (videos taken out of the library); run without it first to see them.")
    var prune = false

    @OptionGroup var remote: RemoteOptions

    /// How many inputs of each kind the summary on stderr names; summary.json names all.
    private static let namedPerKind = 10

    func validate() throws {
        var isFolder: ObjCBool = false
        // With a list, an OUT not made yet (every worker stopped before it wrote) is reported: nothing has run.
        let exists = FileManager.default.fileExists(atPath: out, isDirectory: &isFolder)
        guard exists ? isFolder.boolValue : inputsFrom != nil else { throw ValidationError("\(out) is not a folder") }
        if layout == .mirror && inputsRoot == nil { throw ValidationError("--layout mirror needs --inputs-root DIR") }
        if prune && inputsFrom == nil { throw ValidationError("--prune needs --inputs-from: the list of the library's inputs") }
    }

    func run() throws {
        let list: [String]?
        do {
            list = try inputsFrom.map { path in try remote.apply(to: InputList.read(path)) }
        } catch {
            // One line, as the batch commands say it: the usage says nothing about a list that cannot be read.
            Terminal.printError("\(error)")
            throw ExitCode(ExitStatus.usage)
        }
        var report = LibraryReport(outputRoot: out, list: list, layout: layout?.folderLayout(inputsRoot: inputsRoot))
        if report.commands.isEmpty, let other = Self.entryNotFromFrameFarm(in: out) {
            // A folder of videos, not an OUT: nothing is written into it.
            Terminal.printError("\(out) holds no outputs or runs of FrameFarm, and holds \(other): give the --out of a batch command")
            throw ExitCode(ExitStatus.usage)
        }
        var pruneFailure: Error?
        if prune {
            if let refusal = report.pruneRefusal {
                Terminal.printError(refusal)
                throw ExitCode(ExitStatus.usage)
            }
            do { try report.prune() } catch { pruneFailure = error }
        }
        let outExists = FileManager.default.fileExists(atPath: out)
        if outExists {
            try report.write()
            // The inputs as the runs recorded them, absolute: what the notices' paths are matched with.
            let recorded = RunRecord.inputPaths(in: RunRecord.latestInputs(RunRecord.all(outputRoot: out)))
            try ManifestStore.writeContactSheet(layout: OutputLayout(root: out), failures: report.failures,
                                                  notices: report.notices, inputs: recorded)
        }
        if json { try Terminal.printJSON(report) }
        printSummary(report, written: outExists)
        if let pruneFailure { Terminal.printError("\(pruneFailure)") }
        if !report.complete || pruneFailure != nil { throw ExitCode(ExitStatus.someInputsFailed) }
    }

    /// A name in `folder` that FrameFarm does not write at an OUT's top (its pages, summary and records), if any.
    /// A batch killed before it wrote a manifest leaves its temporaries (`.name.tmp`) and video folders holding
    /// nothing else: those are its, so that its OUT is reported (its inputs not run), not refused.
    private static func entryNotFromFrameFarm(in folder: String) -> String? {
        func isTemporary(_ name: String) -> Bool { name.hasPrefix(".") && name.hasSuffix(".tmp") }
        func names(_ folder: String) -> [String] { (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? [] }
        return names(folder).sorted().first { name in
            guard ![".framefarm", "index.html", "summary.json"].contains(name), !(name.hasPrefix("page-") && name.hasSuffix(".html")),
                  !isTemporary(name) else { return false }
            var isFolder: ObjCBool = false
            let path = folder + "/" + name
            let leftByAKilledBatch = FileManager.default.fileExists(atPath: path, isDirectory: &isFolder) && isFolder.boolValue
                && names(path).allSatisfy(isTemporary)
            return !leftByAKilledBatch
        }
    }

    /// One line per command, then the first few inputs of each kind.
    /// `written`: OUT exists, and the report's files were written into it.
    private func printSummary(_ report: LibraryReport, written: Bool) {
        var lines: [String] = []
        for (command, counts) in report.commands.sorted(by: { $0.key < $1.key }) {
            lines.append("\(command): \(counts.done) done, \(counts.failed.count) failed, \(counts.missing.count) missing, "
                         + "\(counts.stale.count) stale")
            if !counts.shardsNotRun.isEmpty {
                lines.append("  shards never run: \(counts.shardsNotRun.joined(separator: ", "))"
                             + (inputsFrom == nil ? " (their inputs are not counted without the list: give --inputs-from)" : ""))
            }
            let named = counts.failed.map { "  failed: \($0.path): \($0.reason)" }
                + counts.missing.map { "  missing: \($0)" } + counts.stale.map { "  stale (input changed or gone): \($0)" }
            lines += named.prefix(Self.namedPerKind)
            if named.count > Self.namedPerKind { lines.append("  ... and \(named.count - Self.namedPerKind) more") }
        }
        if let first = report.unmapped.first {
            let count = report.unmapped.count
            lines.append("\(count) listed input\(count == 1 ? " is" : "s are") not under the --inputs-root of the layout used (given, "
                         + "else the latest run's), and no run names \(count == 1 ? "it" : "them") (\(first)\(count > 1 ? ", ..." : "")): "
                         + "counted missing; give --layout and --inputs-root as \(count == 1 ? "its" : "their") batch had them")
        }
        if !report.unlisted.isEmpty {
            lines.append("\(report.unlisted.count) folder\(report.unlisted.count == 1 ? "" : "s") no listed input maps to, "
                         + "of inputs not in the list or placed by another layout (they stay; --prune removes them):")
        }
        if !report.pruned.isEmpty { lines.append("removed \(report.pruned.count) folder\(report.pruned.count == 1 ? "" : "s") no listed input maps to:") }
        let folders = (report.unlisted + report.pruned).map {
            "  \($0.folder)/ (\($0.path)\($0.listedFolder.map { ", listed: now mapped to \($0)/" } ?? "")"
                + "\($0.onlyOutputsOf.map { "; kept by --prune: the only outputs of the listed \($0)" } ?? ""))"
        }
        lines += folders.prefix(Self.namedPerKind)
        if folders.count > Self.namedPerKind { lines.append("  ... and \(folders.count - Self.namedPerKind) more") }
        if report.commands.isEmpty {
            lines.append("no outputs and no runs under \(out)"
                         + (report.notRun.isEmpty ? "" : ": none of the \(report.notRun.count) listed inputs is done"))
        }
        let files = written ? "contact sheet \(out)/index.html, every input in \(out)/summary.json" : "\(out) does not exist: nothing written"
        lines.append("\(report.inputs) input\(report.inputs == 1 ? "" : "s"); \(files)")
        FileHandle.standardError.write(Data(lines.map { "framefarm: " + Terminal.oneLine($0) + "\n" }.joined().utf8))
    }
}
