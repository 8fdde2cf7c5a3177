import Foundation
@testable import FrameFarm
import FrameFarmCore
import Testing

/// `framefarm report --inputs-from LIST [--prune]`: listed inputs are found in the folders their runs put them in,
/// and the outputs of videos taken out of a library are listed, and removed only on request, only they, and only
/// when the list plausibly describes the OUT.
@Suite struct ReportListTests {
    private func report(_ arguments: [String]) throws -> (status: Int32, summary: [String: Any], stderr: String) {
        let run = try CommandLineTests.run(["report"] + arguments + ["--json"])
        // A refusal prints no summary.
        let summary = run.stdout.isEmpty ? [:] : try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any] ?? [:]
        return (run.status, summary, run.stderr)
    }

    private func folders(_ entries: Any?) -> [String] {
        ((entries as? [[String: String]]) ?? []).compactMap { $0["folder"] }.sorted()
    }

    @Test func theOutputsOfInputsNoLongerListedAreListedThenPrunedAlone() throws {
        let directory = TemporaryDirectory()
        let library = directory.file("library")
        for folder in ["a", "b"] {
            try FileManager.default.createDirectory(atPath: library + "/" + folder, withIntermediateDirectories: true)
        }
        let videos = try ["a/kept.mp4", "a/dropped.mp4", "b/dropped-too.mp4"].map { name in
            try makeSample(in: directory, name: "library/" + name) { $0.durationSeconds = 1 }
        }
        let out = directory.file("out")
        let batch = try CommandLineTests.run(["poster", "--recursive", library, "--layout", "mirror", "--inputs-root", library,
                                              "--out", out, "--widths", "160", "--quiet"])
        #expect(batch.status == 0, "\(batch.stderr)")
        let keptPoster = try Data(contentsOf: URL(fileURLWithPath: out + "/a/kept/poster.jpg"))
        // The library now holds one of the three.
        let list = directory.write("list.txt", Data(videos[0].utf8))

        // Listed, not removed, and not a reason to fail: the listed input is done.
        let seen = try report([out, "--inputs-from", list])
        #expect(seen.status == 0, "\(seen.stderr)")
        #expect(folders(seen.summary["unlisted"]) == ["a/dropped", "b/dropped-too"])
        #expect(((seen.summary["unlisted"] as? [[String: String]]) ?? []).compactMap { $0["path"] }.sorted()
                == [videos[1], videos[2]].sorted())
        #expect(seen.stderr.contains("b/dropped-too/") && seen.stderr.contains("--prune removes them"))
        // On the page, each dropped video is marked and filtered as such, its notice line with it.
        let page = try String(contentsOfFile: out + "/index.html", encoding: .utf8)
        #expect(page.contains(">2 not in the list</button>"))
        for folder in ["a/dropped", "b/dropped-too"] {
            let card = try #require(page.firstMatch(of: try Regex("<section id=\"\(folder)\"[^>]*data-flags=\"([^\"]*)\"[\\s\\S]*?</section>")),
                                    "\(folder)")
            #expect((card.output[1].substring ?? "").split(separator: " ").contains("unlisted"), "\(folder)")
            #expect(String(card.output[0].substring ?? "").contains("Not in the list given to <code>report</code>"))
            #expect(page.contains("data-flags=\"unlisted\" data-name=\"\(folder) "), "\(folder)'s line")
        }
        #expect(try #require(page.firstMatch(of: /<section id="a\/kept"[^>]*data-flags="([^"]*)"/)).output.1.isEmpty)
        #expect(FileManager.default.fileExists(atPath: out + "/b/dropped-too/poster.jpg"))

        // A list mapped with another layout names no folder here: pruning would empty OUT, so it is refused.
        let wrongLayout = try report([out, "--inputs-from", list, "--layout", "hashed", "--prune"])
        #expect(wrongLayout.status == 2 && wrongLayout.stderr.contains("nothing was removed"), "\(wrongLayout.stderr)")
        #expect(OutputLayout(root: out).videoFolders() == ["a/dropped", "a/kept", "b/dropped-too"])
        // Without --prune, the listed input's folder made under the other layout is named as such, not as an input
        // the list lacks.
        let otherLayout = try report([out, "--inputs-from", list, "--layout", "hashed"])
        let kept = ((otherLayout.summary["unlisted"] as? [[String: String]]) ?? []).first { $0["folder"] == "a/kept" }
        #expect(kept?["listedFolder"] == (try FolderLayout.hashed.folder(for: videos[0])), "\(otherLayout.summary)")
        #expect(otherLayout.stderr.contains("a/kept/ (\(videos[0]), listed: now mapped to"), "\(otherLayout.stderr)")

        // Pruned: those two folders and the parent left empty go; the listed input's outputs stay as they were.
        let pruned = try report([out, "--inputs-from", list, "--prune"])
        #expect(pruned.status == 0, "\(pruned.stderr)")
        #expect(folders(pruned.summary["pruned"]) == ["a/dropped", "b/dropped-too"] && folders(pruned.summary["unlisted"]).isEmpty)
        #expect(OutputLayout(root: out).videoFolders() == ["a/kept"])
        #expect(!FileManager.default.fileExists(atPath: out + "/b"), "the emptied parent folder is removed")
        #expect(try Data(contentsOf: URL(fileURLWithPath: out + "/a/kept/poster.jpg")) == keptPoster)
        #expect(try treeFiles(out).allSatisfy { !$0.contains("pruning") }, "no trash is left behind")

        // Without the list, the runs no longer name the removed inputs: nothing is missing.
        let afterwards = try report([out])
        #expect(afterwards.status == 0, "\(afterwards.stderr)")
        #expect(afterwards.summary["inputs"] as? Int == 1)
        // Until a run makes one of them again.
        #expect(try CommandLineTests.run(["poster", videos[2], "--out", out, "--layout", "mirror", "--inputs-root", library,
                                          "--widths", "160", "--quiet"]).status == 0)
        #expect(try report([out]).summary["inputs"] as? Int == 2)
    }

    /// Two batches with their own --inputs-root into one OUT: each input is found where its run put it, not where
    /// the latest run's root would map it; a listed input under neither is named once with what to give.
    /// A mirrored library listed through a linked folder (`alias/a/clip.mp4` for `library/a/clip.mp4`) is placed in
    /// the folders its batch made, so `--prune` keeps them; a listed input the layout cannot place at all makes
    /// `--prune` refuse, as its outputs could be among the folders it would remove. Before, the linked path was "not
    /// under --inputs-root", counted missing, and its outputs pruned as an unlisted video's.
    @Test func aLibraryListedThroughALinkedFolderKeepsItsOutputs() throws {
        let directory = TemporaryDirectory()
        let library = directory.file("library")
        try FileManager.default.createDirectory(atPath: library + "/a", withIntermediateDirectories: true)
        let videos = try ["a/one.mp4", "a/two.mp4", "a/gone.mp4"].map { name in
            try makeSample(in: directory, name: "library/" + name) { $0.durationSeconds = 1 }
        }
        let alias = directory.file("alias")
        try FileManager.default.createSymbolicLink(atPath: alias, withDestinationPath: library)
        let out = directory.file("out")
        // The batch, too, places an input given through the link (before: "not under --inputs-root").
        let batch = try CommandLineTests.run(["poster", videos[0], videos[1], alias + "/a/gone.mp4", "--layout", "mirror",
                                              "--inputs-root", library, "--out", out, "--widths", "160", "--quiet"])
        #expect(batch.status == 0, "\(batch.stderr)")
        #expect(OutputLayout(root: out).videoFolders() == ["a/gone", "a/one", "a/two"])
        let list = directory.write("list.txt", Data([alias + "/a/one.mp4", videos[1]].joined(separator: "\n").utf8))
        let pruned = try report([out, "--inputs-from", list, "--prune"])
        #expect(pruned.status == 0, "\(pruned.stderr)")
        #expect(folders(pruned.summary["pruned"]) == ["a/gone"], "\(pruned.summary)")
        #expect(OutputLayout(root: out).videoFolders() == ["a/one", "a/two"])
        // A listed input outside the root: nothing is removed.
        let elsewhere = try makeSample(in: directory, name: "elsewhere.mp4") { $0.durationSeconds = 1 }
        let outside = directory.write("outside.txt", Data([videos[1], elsewhere].joined(separator: "\n").utf8))
        let refused = try report([out, "--inputs-from", outside, "--prune"])
        #expect(refused.status == 2 && refused.stderr.contains("1 listed input (\(elsewhere)) maps to no folder under")
                && refused.stderr.contains("nothing was removed"), "\(refused.stderr)")
        #expect(OutputLayout(root: out).videoFolders() == ["a/one", "a/two"])
    }

    /// A hashed folder is named by the path as written: a video listed through a linked folder maps elsewhere and is
    /// missing there, while its outputs sit in an unlisted folder. `--prune` keeps that folder, the video's only
    /// outputs, until the video has outputs where it maps now; then it is an old copy, and goes.
    @Test func aListedVideosOnlyOutputsAreNotPruned() throws {
        let directory = TemporaryDirectory()
        try FileManager.default.createDirectory(atPath: directory.file("library"), withIntermediateDirectories: true)
        let videos = try ["library/x.mp4", "library/y.mp4"].map { name in
            try makeSample(in: directory, name: name) { $0.durationSeconds = 1 }
        }
        let alias = directory.file("alias")
        try FileManager.default.createSymbolicLink(atPath: alias, withDestinationPath: directory.file("library"))
        let out = directory.file("out")
        func poster(_ inputs: [String]) throws {
            let run = try CommandLineTests.run(["poster"] + inputs + ["--layout", "hashed", "--out", out, "--widths", "160", "--quiet"])
            #expect(run.status == 0, "\(run.stderr)")
        }
        try poster(videos)
        let original = try FolderLayout.hashed.folder(for: videos[0])
        let list = directory.write("list.txt", Data([alias + "/x.mp4", videos[1]].joined(separator: "\n").utf8))
        let kept = try report([out, "--inputs-from", list, "--prune"])
        let entry = ((kept.summary["unlisted"] as? [[String: String]]) ?? []).first
        #expect(entry?["folder"] == original && entry?["onlyOutputsOf"] == alias + "/x.mp4", "\(kept.summary)")
        #expect(kept.summary["pruned"] == nil && kept.stderr.contains("kept by --prune: the only outputs of the listed"), "\(kept.stderr)")
        #expect(OutputLayout(root: out).videoFolders().contains(original))
        // Made where the listed path maps, the old folder is a copy, and goes.
        try poster([alias + "/x.mp4"])
        let pruned = try report([out, "--inputs-from", list, "--prune"])
        #expect(pruned.status == 0 && folders(pruned.summary["pruned"]) == [original], "\(pruned.stderr)")
        #expect(OutputLayout(root: out).videoFolders().count == 2)
    }

    @Test func eachListedInputIsFoundWhereItsRunPutIt() throws {
        let directory = TemporaryDirectory()
        let roots = ["films", "shows", "never"].map { directory.file($0) }
        for root in roots { try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true) }
        let videos = try ["films/one.mp4", "shows/two.mp4", "never/three.mp4"].map { name in
            try makeSample(in: directory, name: name) { $0.durationSeconds = 1 }
        }
        let out = directory.file("out")
        for (video, root) in zip(videos, roots).prefix(2) {
            let batch = try CommandLineTests.run(["poster", video, "--layout", "mirror", "--inputs-root", root, "--out", out,
                                                  "--widths", "160", "--quiet"])
            #expect(batch.status == 0, "\(batch.stderr)")
        }
        let both = try report([out, "--inputs-from", directory.write("both.txt", Data(videos.prefix(2).joined(separator: "\n").utf8))])
        #expect(both.status == 0, "\(both.stderr)")
        #expect((both.summary["commands"] as? [String: Any]).flatMap { $0["poster"] as? [String: Any] }?["done"] as? Int == 2)
        #expect(folders(both.summary["unlisted"]).isEmpty)
        let all = try report([out, "--inputs-from", directory.write("all.txt", Data(videos.joined(separator: "\n").utf8))])
        #expect(all.status == 1)
        #expect((all.summary["commands"] as? [String: Any]).flatMap { $0["poster"] as? [String: Any] }?["missing"] as? [String]
                == [videos[2]])
        #expect(all.stderr.contains("1 listed input is not under the --inputs-root") && all.stderr.contains("three.mp4"),
                "\(all.stderr)")
    }

    /// Runs and `report --prune` remove the records nothing reads any more (every input named again later, or
    /// pruned), so that a library refreshed night after night, its list changing, does not gather records without
    /// end; a record naming an input no later run names, or a run whose interruption left inputs unstarted, stays.
    @Test func recordsNothingReadsAnyMoreAreRemovedAndNoOthers() throws {
        let directory = TemporaryDirectory()
        let videos = try ["one.mp4", "two.mp4"].map { name in try makeSample(in: directory, name: name) { $0.durationSeconds = 1 } }
        let out = directory.file("out")
        func poster(_ inputs: [String], _ extra: [String] = []) throws {
            let run = try CommandLineTests.run(["poster"] + inputs + ["--out", out, "--widths", "160", "--quiet"] + extra)
            #expect(run.status == 0, "\(run.stderr)")
        }
        func statuses() -> [[String: BatchSummary.Outcome.Status]] {
            RunRecord.all(outputRoot: out).map { record in
                Dictionary(uniqueKeysWithValues: record.inputs.map { ((($0.path as NSString).lastPathComponent), $0.status) })
            }
        }
        try poster(videos)
        try poster(videos)
        #expect(statuses() == [["one.mp4": .upToDate, "two.mp4": .upToDate]], "the first run's record is gone")
        // A run over one of the two leaves the record that still says something of the other.
        try poster([videos[0]], ["--force"])
        #expect(statuses() == [["one.mp4": .upToDate, "two.mp4": .upToDate], ["one.mp4": .done]])
        // A sharded run over both: the records before it say nothing it does not say again.
        try poster(videos, ["--shard", "0/1"])
        #expect(statuses() == [["one.mp4": .upToDate, "two.mp4": .upToDate]])
        #expect(RunRecord.all(outputRoot: out).first?.shard == "0/1")

        // An interrupted run that started neither input removes nothing.
        var interrupted = try #require(RunRecord.all(outputRoot: out).first)
        interrupted.shard = nil
        interrupted.interrupted = true
        interrupted.finishedSeconds = Date().timeIntervalSince1970
        interrupted.processID += 1
        interrupted.inputs = interrupted.inputs.map { RunRecord.Input(path: $0.path, folder: $0.folder, status: .notStarted) }
        try interrupted.write(outputRoot: out)
        RunRecord.removeRedundant(outputRoot: out)
        #expect(RunRecord.all(outputRoot: out).count == 2)
        let summary = try report([out])
        #expect(summary.status == 0, "\(summary.stderr)")
        #expect((summary.summary["commands"] as? [String: Any]).flatMap { $0["poster"] as? [String: Any] }?["done"] as? Int == 2)

        // The list moves on: one is dropped. Its records stay while they say something, and go once it is pruned.
        try poster([videos[1]], ["--shard", "0/1"])
        #expect(RunRecord.all(outputRoot: out).contains { $0.inputs.contains { $0.path == videos[0] } })
        let pruned = try report([out, "--inputs-from", directory.write("list.txt", Data(videos[1].utf8)), "--prune"])
        #expect(pruned.status == 0, "\(pruned.stderr)")
        #expect(statuses() == [["two.mp4": .upToDate]], "\(statuses())")
        #expect(try report([out]).summary["inputs"] as? Int == 1)
    }

    /// `report` without a list knows a library from its run records. A shard given no inputs (more shards than
    /// inputs) now leaves one, so the report can be complete; a worker killed outright leaves the one written before
    /// its first input, so what it never finished counts missing rather than the report saying complete.
    @Test func emptyShardsAndWorkersKilledOutrightAreReportedAsTheyAre() throws {
        let directory = TemporaryDirectory()
        let videos = try ["one.mp4", "two.mp4", "three.mp4"].map { name in
            try makeSample(in: directory, name: name) { $0.durationSeconds = 2 }
        }
        let out = directory.file("out")
        for shard in 0..<4 {
            let run = try CommandLineTests.run(["poster", videos[0], "--out", out, "--widths", "160", "--shard", "\(shard)/4", "--json"])
            #expect(run.status == 0, "\(run.stderr)")
            let summary = try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any]
            #expect((summary?["inputs"] as? [Any])?.count == (shard == 0 ? 1 : 0), "--json prints the summary of an empty shard too")
        }
        let complete = try report([out])
        #expect(complete.status == 0 && complete.summary["complete"] as? Bool == true, "\(complete.stderr)")

        let killed = directory.file("killed")
        let worker = KillResumeTests.process(["poster"] + videos + ["--out", killed, "--widths", "160", "--jobs", "1", "--quiet"])
        worker.standardError = FileHandle.nullDevice
        try worker.run()
        var started: RunRecord?
        for _ in 0..<3000 where started == nil {
            started = RunRecord.all(outputRoot: killed).first
            if started == nil { Thread.sleep(forTimeInterval: 0.01) }
        }
        kill(worker.processIdentifier, SIGKILL)
        worker.waitUntilExit()
        let record = try #require(started, "a run records its inputs before the first one runs")
        #expect(record.interrupted && record.inputs.count == 3)
        let afterKill = try report([killed])
        let poster = (afterKill.summary["commands"] as? [String: Any]).flatMap { $0["poster"] as? [String: Any] }
        #expect(afterKill.status == 1 && afterKill.summary["complete"] as? Bool == false, "\(afterKill.stderr)")
        #expect((poster?["done"] as? Int ?? 0) + ((poster?["missing"] as? [String])?.count ?? 0) == 3, "\(afterKill.summary)")
    }
}
