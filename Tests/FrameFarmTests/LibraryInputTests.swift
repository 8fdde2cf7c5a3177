import Foundation
import Testing
@testable import FrameFarm

/// Libraries as input: lists, folders walked, output folders that depend on the input alone, and shards.
@Suite struct LibraryInputTests {
    @Test func aListSkipsBlankLinesAndCommentsAndKeepsPathsAsWritten() throws {
        let directory = TemporaryDirectory()
        let list = directory.write("list.txt", Data("# the library\n\nclips/a.mp4\r\n  \n/abs/b c.mov\n  # indented comment\n#x\nlast.mkv".utf8))
        #expect(try InputList.read(list) == ["clips/a.mp4", "/abs/b c.mov", "last.mkv"])
        #expect(throws: InputListError.self) { try InputList.read(directory.file("missing.txt")) }
        // A list saved with a UTF-8 byte-order mark (as some editors write it) and CRLF line ends.
        let marked = directory.write("marked.txt", Data([0xEF, 0xBB, 0xBF] + Array("a.mp4\r\nb.mp4\r\n".utf8)))
        #expect(try InputList.read(marked) == ["a.mp4", "b.mp4"])
        let folder = #expect(throws: InputListError.self) { try InputList.read(directory.file("")) }
        #expect(folder?.description.contains("Is a directory") == true, "\(String(describing: folder))")
    }

    @Test func foldersAreWalkedForVideosSkippingHiddenOutputsAndLinkLoops() throws {
        let directory = TemporaryDirectory()
        let root = directory.file("library")
        for folder in ["a/deep", "b", ".hidden", "out/clip", "old-out/x", "b/y"] {
            try FileManager.default.createDirectory(atPath: root + "/" + folder, withIntermediateDirectories: true)
        }
        for file in ["a/one.mp4", "a/deep/two.MOV", "b/three.mkv", "b/notes.txt", "b/.four.mp4", ".hidden/five.mp4",
                     "out/clip/poster.mp4", "old-out/x/manifest.json", "old-out/x/six.mp4", "b/y/seven.webm"] {
            _ = directory.write("library/" + file, Data())
        }
        // A link back up (a loop) and a second path to a folder already walked.
        try FileManager.default.createSymbolicLink(atPath: root + "/b/y/loop", withDestinationPath: root + "/b")
        try FileManager.default.createSymbolicLink(atPath: root + "/again", withDestinationPath: root + "/a")
        // Links whose target is gone: one named as a video is an input (which fails, saying so), another is not.
        try FileManager.default.createSymbolicLink(atPath: root + "/b/gone.mp4", withDestinationPath: root + "/nowhere.mp4")
        try FileManager.default.createSymbolicLink(atPath: root + "/b/gone.txt", withDestinationPath: root + "/nowhere.txt")
        let found = try InputList.videos(under: root, skipping: root + "/out")
        #expect(found == ["a/deep/two.MOV", "a/one.mp4", "b/gone.mp4", "b/three.mkv", "b/y/seven.webm"].map { root + "/" + $0 })
        // Each says what it is: a link to nothing, a link that loops.
        try FileManager.default.createSymbolicLink(atPath: root + "/b/loop.mp4", withDestinationPath: root + "/b/loop.mp4")
        let probed = try CommandLineTests.run(["probe", root + "/b/gone.mp4", root + "/b/loop.mp4"])
        #expect(probed.status == 1
                && probed.stderr.contains("\(root)/b/gone.mp4: cannot read file: a symbolic link to \(root)/nowhere.mp4, which does not exist")
                && probed.stderr.contains("\(root)/b/loop.mp4: cannot read file: a symbolic link that loops"), "\(probed.stderr)")
        #expect(try InputList.videos(under: root + "/", extensions: ["mkv"], skipping: nil) == [root + "/b/three.mkv"])
        #expect(try InputList.parseExtensions("MP4, .mov") == ["mp4", "mov"])
        #expect(throws: InputListError.self) { try InputList.videos(under: root + "/a/one.mp4") }
    }

    /// A hashed folder's name keeps to a file name's 255 bytes: the stem of a 255-byte file name is cut to make
    /// room for the hash (the folder could not be made).
    @Test func aHashedFolderOfALongNameFitsAFileName() throws {
        let long = try FolderLayout.hashed.folder(for: "/lib/" + String(repeating: "\u{E9}", count: 125) + "y.mp4")
        #expect(long.utf8.count <= 255 && long.hasPrefix(String(repeating: "\u{E9}", count: 120)))
        #expect(try FolderLayout.hashed.folder(for: "/lib/clip.mp4").hasPrefix("clip-"))
    }

    /// The folder is a function of the input alone: the same alone, in any batch, in any order.
    @Test func foldersDependOnTheInputAlone() throws {
        let inputs = ["/lib/a/clip.mp4", "/lib/b/clip.mov", "/lib/c/other.mp4", "/lib/a/.hidden.mp4"]
        for layout in [FolderLayout.stem, .hashed, .mirror(inputsRoot: "/lib")] {
            for input in inputs {
                let alone = try layout.folder(for: input)
                #expect(try layout.folder(for: input) == alone)
                #expect(!alone.hasPrefix(".") && !alone.contains("/."), "\(alone)")
            }
        }
        #expect(try FolderLayout.stem.folder(for: "/lib/a/clip.mp4") == "clip")
        let hashed = try inputs.map { try FolderLayout.hashed.folder(for: $0) }
        #expect(Set(hashed).count == inputs.count && hashed[0].hasPrefix("clip-") && hashed[0].count == "clip-".count + 6)
        // The hash is of the absolute path: a relative spelling of the same file gets the same folder.
        let cwd = FileManager.default.currentDirectoryPath
        #expect(try FolderLayout.hashed.folder(for: "x/../clip.mp4") == FolderLayout.hashed.folder(for: cwd + "/clip.mp4"))
        let mirror = FolderLayout.mirror(inputsRoot: "/lib/")
        #expect(try mirror.folder(for: "/lib/a/clip.mp4") == "a/clip")
        #expect(try mirror.folder(for: "/lib/top.mp4") == "top")
        #expect(try mirror.folder(for: "/lib/.cache/v.mp4") == "_cache/v")
        #expect(throws: InputFailure.self) { try mirror.folder(for: "/elsewhere/clip.mp4") }
        #expect(throws: InputFailure.self) { try mirror.folder(for: "/library/clip.mp4") }
    }

    @Test func collidingFoldersAreFound() {
        let stem = FolderLayout.stem.conflicts(["/a/clip.mp4", "/b/clip.mov", "/c/other.mp4"])
        #expect(stem.count == 1 && stem[0].folder == "clip" && stem[0].first == "/a/clip.mp4")
        #expect(FolderLayout.hashed.conflicts(["/a/clip.mp4", "/b/clip.mov"]).isEmpty)
        let mirror = FolderLayout.mirror(inputsRoot: "/lib")
        // clip.mp4's folder would hold clip/preview.mp4's.
        let nested = mirror.conflicts(["/lib/clip-2.mp4", "/lib/clip/preview.mp4", "/lib/clip.mp4"])
        #expect(nested.map(\.folder) == ["clip"], "\(nested)")
        #expect(mirror.conflicts(["/lib/a/clip.mp4", "/lib/b/clip.mp4"]).isEmpty)
    }

    /// A collision is refused before any work with advice that fits the layout in use: never the layout that
    /// already collides.
    @Test func collisionsAreRefusedWithAdviceForTheLayoutInUse() throws {
        let directory = TemporaryDirectory()
        try FileManager.default.createDirectory(atPath: directory.file("lib/a"), withIntermediateDirectories: true)
        let video = try makeSample(in: directory, name: "lib/a/x.mp4") { $0.durationSeconds = 1 }
        try FileManager.default.copyItem(atPath: video, toPath: directory.file("lib/a/x.mov"))
        let common = ["poster", "--recursive", directory.file("lib"), "--out", directory.file("out")]
        for (layout, advice) in [([], "use --layout hashed, or --layout mirror --inputs-root DIR"),
                                 (["--layout", "mirror", "--inputs-root", directory.file("lib")],
                                  "rename one of them, or use --layout hashed")] {
            let run = try CommandLineTests.run(common + layout)
            #expect(run.status == 2 && run.stderr.hasSuffix(advice + "\n"), "\(layout): \(run.stderr)")
        }
    }

    @Test func shardsAreParsedAndReadFromEachEngine() throws {
        #expect(try Shard(parsing: "3/4") == Shard(index: 3, count: 4))
        for bad in ["4/4", "-1/4", "0/0", "1", "a/b", "1/2/3"] {
            #expect(throws: ShardError.self) { try Shard(parsing: bad) }
        }
        func shard(_ environment: [String: String], shards: Int? = nil) throws -> Shard {
            try Shard.fromEngine(environment: environment, shards: shards).shard
        }
        #expect(try shard(["JOB_COMPLETION_INDEX": "2"], shards: 5) == Shard(index: 2, count: 5))
        #expect(try shard(["JOB_COMPLETION_INDEX": "2", "FRAMEFARM_SHARDS": "3"]) == Shard(index: 2, count: 3))
        #expect(throws: ShardError.self) { try shard(["JOB_COMPLETION_INDEX": "2"]) }
        // An array that starts at 1 and steps by 2: ids 1, 3, 5, 7.
        let slurm = ["SLURM_ARRAY_TASK_MIN": "1", "SLURM_ARRAY_TASK_MAX": "7", "SLURM_ARRAY_TASK_STEP": "2",
                     "SLURM_ARRAY_TASK_COUNT": "4"]
        #expect(try shard(slurm.merging(["SLURM_ARRAY_TASK_ID": "5"]) { $1 }) == Shard(index: 2, count: 4))
        #expect(try shard(["SLURM_ARRAY_TASK_ID": "0", "SLURM_ARRAY_TASK_MIN": "0", "SLURM_ARRAY_TASK_MAX": "9"])
                == Shard(index: 0, count: 10))
        // --array=1,4,9 is no stepped range.
        let sparse = ["SLURM_ARRAY_TASK_ID": "4", "SLURM_ARRAY_TASK_MIN": "1", "SLURM_ARRAY_TASK_MAX": "9",
                      "SLURM_ARRAY_TASK_COUNT": "3", "SLURM_ARRAY_TASK_STEP": "1"]
        #expect(throws: ShardError.self) { try shard(sparse) }
        #expect(try shard(["AWS_BATCH_JOB_ARRAY_INDEX": "7", "AWS_BATCH_JOB_ARRAY_SIZE": "8"]) == Shard(index: 7, count: 8))
        #expect(try shard(["BATCH_TASK_INDEX": "0", "BATCH_TASK_COUNT": "2"]) == Shard(index: 0, count: 2))
        #expect(try shard(["CLOUD_RUN_TASK_INDEX": "1", "CLOUD_RUN_TASK_COUNT": "3"]) == Shard(index: 1, count: 3))
        #expect(throws: ShardError.self) { try shard(["CLOUD_RUN_TASK_INDEX": "1"]) }
        #expect(throws: ShardError.self) { try shard(["BATCH_TASK_INDEX": "x", "BATCH_TASK_COUNT": "2"]) }
        #expect(throws: ShardError.self) { try shard([:]) }
        // A count that contradicts the engine's: the worker would take another count's part of the list.
        #expect(throws: ShardError.self) { try shard(["AWS_BATCH_JOB_ARRAY_INDEX": "1", "AWS_BATCH_JOB_ARRAY_SIZE": "2"], shards: 5) }
        // Another count given with a Slurm array: its ids are shards (failed ones run again), which 5 of 5 is not.
        #expect(throws: ShardError.self) { try shard(slurm.merging(["SLURM_ARRAY_TASK_ID": "5", "FRAMEFARM_SHARDS": "5"]) { $1 }) }
        #expect(try shard(sparse.merging(["FRAMEFARM_SHARDS": "10"]) { $1 }) == Shard(index: 4, count: 10))
        // `sbatch --array=1` to run shard 1 again: without the count it would take the whole list (0/1).
        let rerun = ["SLURM_ARRAY_TASK_ID": "1", "SLURM_ARRAY_TASK_MIN": "1", "SLURM_ARRAY_TASK_MAX": "1", "SLURM_ARRAY_TASK_COUNT": "1"]
        #expect(throws: ShardError.self) { try shard(rerun) }
        #expect(try shard(rerun.merging(["FRAMEFARM_SHARDS": "3"]) { $1 }) == Shard(index: 1, count: 3))
        #expect(try shard(rerun, shards: 3) == Shard(index: 1, count: 3))
        let whole = ["SLURM_ARRAY_TASK_ID": "0", "SLURM_ARRAY_TASK_MIN": "0", "SLURM_ARRAY_TASK_MAX": "0", "SLURM_ARRAY_TASK_COUNT": "1"]
        #expect(try shard(whole) == Shard(index: 0, count: 1))
        #expect(throws: ShardError.self) { try shard(rerun.merging(["FRAMEFARM_SHARDS": "1"]) { $1 }) }
        // Counts no engine runs, and variables that describe no array, are refused, not a crash or an allocation
        // of every shard's load (a negative count trapped; 2^63-1 aborted).
        for count in ["-1", "0", "100001", "9223372036854775807"] {
            #expect(throws: ShardError.self) { try shard(slurm.merging(["SLURM_ARRAY_TASK_ID": "5", "FRAMEFARM_SHARDS": count]) { $1 }) }
            #expect(throws: ShardError.self) { try shard(["JOB_COMPLETION_INDEX": "0", "FRAMEFARM_SHARDS": count]) }
            #expect(throws: ShardError.self) { try Shard(parsing: "0/" + count) }
        }
        #expect(throws: ShardError.self) { try shard(rerun.merging(["SLURM_ARRAY_TASK_COUNT": "-8"]) { $1 }) }
        #expect(throws: ShardError.self) { try shard(rerun.merging(["SLURM_ARRAY_TASK_MIN": "4"]) { $1 }) }
        #expect(try shard(["BATCH_TASK_INDEX": "0", "BATCH_TASK_COUNT": "2"], shards: 2) == Shard(index: 0, count: 2))
    }

    /// `--shards` without `--shard auto` would go unread, every worker doing the whole list; a negative shard is
    /// a shard that does not exist, not a missing value.
    @Test func shardOptionsThatWouldDoTheWrongWorkAreRefused() throws {
        let directory = TemporaryDirectory()
        let video = try makeSample(in: directory, name: "v.mp4") { $0.durationSeconds = 1 }
        let out = directory.file("out")
        let unread = try CommandLineTests.run(["poster", video, "--out", out, "--shards", "16"])
        #expect(unread.status == 2 && unread.stderr.contains("--shards is for --shard auto"), "\(unread.stderr)")
        let negative = try CommandLineTests.run(["poster", video, "--out", out, "--shard", "-1/2"])
        #expect(negative.status == 2 && negative.stderr.contains("-1/2") && !negative.stderr.contains("Missing value"),
                "\(negative.stderr)")
        let unset = try CommandLineTests.run(["poster", video, "--out", out], environment: ["FRAMEFARM_SHARDS": "2"])
        #expect(unset.status == 2 && unset.stderr.contains("FRAMEFARM_SHARDS=2 is set but --shard auto is not given"),
                "\(unset.stderr)")
        #expect(!FileManager.default.fileExists(atPath: out))
    }

    /// Every input in exactly one shard, whatever the list's order; totals within 1.15x of the mean on a library
    /// whose sizes spread 1:100.
    @Test func shardsPartitionTheListAndBalanceItsWork() throws {
        var state: UInt64 = 88_172_645_463_325_252
        func next() -> UInt64 {
            state ^= state << 13
            state ^= state >> 7
            state ^= state << 17
            return state
        }
        let sizes = Dictionary(uniqueKeysWithValues: (0..<400).map { ("/lib/v\($0).mp4", 1_000 + Int(next() % 99_001)) })
        let list = Array(sizes.keys)
        #expect(sizes.values.max()! > 50 * sizes.values.min()!)
        for count in [1, 2, 3, 4, 7] {
            let shards = try (0..<count).map { try Shard(index: $0, count: count).inputs(of: list) { sizes[$0]! } }
            #expect(shards.flatMap { $0 }.sorted() == list.sorted(), "\(count) shards")
            let reversed = try Shard(index: count - 1, count: count).inputs(of: list.reversed()) { sizes[$0]! }
            #expect(reversed == shards[count - 1])
            let totals = shards.map { $0.reduce(0) { $0 + sizes[$1]! } }
            let mean = Double(totals.reduce(0, +)) / Double(count)
            #expect(Double(totals.max()!) <= 1.15 * mean, "\(count) shards: \(totals)")
            #expect(Shard.totals(of: list, count: count) { sizes[$0]! } == totals)
        }
        // Files of no size (or missing) are dealt round, not all to one shard.
        let counts = try (0..<3).map { try Shard(index: $0, count: 3).inputs(of: list) { _ in 0 }.count }
        #expect(counts == [134, 133, 133])
    }
}

/// The CLI over libraries: lists from files and standard input, folders, layouts, and shards that add up to one
/// run.
@Suite struct LibraryCommandLineTests {
    /// Five videos, two sharing a stem in different folders.
    private func library(in directory: TemporaryDirectory) throws -> [String] {
        for folder in ["library/a", "library/b"] {
            try FileManager.default.createDirectory(atPath: directory.file(folder), withIntermediateDirectories: true)
        }
        return try ["a/clip.mp4", "b/clip.mp4", "a/long.mp4", "b/short.mp4", "top.mp4"].enumerated().map { index, name in
            try makeSample(in: directory, name: "library/" + name) { $0.durationSeconds = 1 + Double(index % 3) }
        }
    }

    /// Four shards run one after another into one OUT give the files one run gives, byte for byte.
    @Test func fourShardsEqualOneRunByteForByte() throws {
        let directory = TemporaryDirectory()
        let inputs = try library(in: directory)
        let list = directory.write("list.txt", Data(("# library\n" + inputs.joined(separator: "\n") + "\n").utf8))
        let common = ["--inputs-from", list, "--layout", "mirror", "--inputs-root", directory.file("library"),
                      "--widths", "160", "--quiet"]
        let single = try CommandLineTests.run(["poster"] + common + ["--out", directory.file("single")])
        #expect(single.status == 0, "\(single.stderr)")
        for index in 0..<4 {
            let shard = try CommandLineTests.run(["poster"] + common + ["--out", directory.file("sharded"),
                                                                      "--shard", "\(index)/4"])
            #expect(shard.status == 0, "\(shard.stderr)")
        }
        // Run records (under .framefarm) differ by design: each names its shard, host and times.
        let files = try treeFiles(directory.file("single")).filter { $0 != "index.html" && !$0.hasPrefix(".framefarm/") }
        #expect(files.count == inputs.count * 3, "\(files)")
        #expect(files.contains("a/clip/poster.jpg") && files.contains("b/clip/poster.jpg"))
        // Shards leave the contact sheet to `report`.
        #expect(try treeFiles(directory.file("sharded")).filter { !$0.hasPrefix(".framefarm/") } == files)
        #expect(try treeFiles(directory.file("sharded/.framefarm/runs")).count == 4)
        for file in files {
            #expect(FileManager.default.contentsEqual(atPath: directory.file("single/" + file),
                                                      andPath: directory.file("sharded/" + file)), "\(file) differs")
        }
    }

    @Test func listsFromStandardInputFoldersAndRefusedCollisions() throws {
        let directory = TemporaryDirectory()
        let inputs = try library(in: directory)
        let out = directory.file("out")
        // Two clip.mp4 under the stem layout: refused before any work, naming both.
        let refused = try CommandLineTests.run(["poster", "--recursive", directory.file("library"), "--out", out])
        #expect(refused.status == 2)
        #expect(refused.stderr.contains(inputs[0]) && refused.stderr.contains(inputs[1]) && refused.stderr.contains("--layout"),
                "\(refused.stderr)")
        #expect(!FileManager.default.fileExists(atPath: out))
        let walked = try CommandLineTests.run(["poster", "--recursive", directory.file("library"), "--out", out,
                                               "--layout", "hashed", "--widths", "160", "--json"])
        #expect(walked.status == 0, "\(walked.stderr)")
        #expect(try treeFiles(out).filter { $0.hasSuffix("/manifest.json") }.count == inputs.count)
        // The same list on standard input: every input current, nothing redone.
        let process = CommandLineTests.process(["poster", "--inputs-from", "-", "--out", out, "--layout", "hashed",
                                                "--widths", "160", "--json"])
        let stdin = Pipe(), stdout = Pipe()
        process.standardInput = stdin
        process.standardOutput = stdout
        process.standardError = Pipe()
        try process.run()
        stdin.fileHandleForWriting.write(Data(inputs.joined(separator: "\n").utf8))
        try stdin.fileHandleForWriting.close()
        let json = stdout.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
        let statuses = (try JSONSerialization.jsonObject(with: json) as? [String: Any])?["inputs"] as? [[String: Any]]
        #expect(statuses?.map { $0["status"] as? String } == Array(repeating: "up-to-date", count: inputs.count))
        // A folder without --recursive is a bad input, its line saying what would walk it; the others go on.
        let folder = try CommandLineTests.run(["poster", directory.file("library"), inputs[0], "--out", out])
        #expect(folder.status == 1 && folder.stderr.contains("library: is a directory, not a video file (--recursive walks"),
                "\(folder.stderr)")
        #expect(folder.stderr.contains("1 of 2 inputs done"), "\(folder.stderr)")
        let empty = try CommandLineTests.run(["poster", "--out", out, "--shard", "3/4", inputs[0]])
        #expect(empty.status == 0 && empty.stderr.contains("no inputs"), "\(empty.stderr)")
        let noShard = try CommandLineTests.run(["poster", "--out", out, "--shard", "4/4", inputs[0]])
        #expect(noShard.status == 2 && noShard.stderr.contains("K from 0 to N-1"), "\(noShard.stderr)")
        let noEngine = try CommandLineTests.run(["poster", "--out", out, "--shard", "auto", inputs[0]])
        #expect(noEngine.status == 2 && noEngine.stderr.contains("SLURM_ARRAY_TASK_ID"), "\(noEngine.stderr)")
    }

    /// A long list is read at a small multiple of its size: the peak resident memory of a CLI run over 250,000
    /// lines, less that of a run over one line. (A million lines cost a minute in a debug build; docs/cluster.md
    /// gives the release build's figure for them.)
    @Test func aLongListIsReadInLittleMemory() throws {
        let directory = TemporaryDirectory()
        let lines = (0..<250_000).map { "/library/shows/season-\($0 % 97)/episode-\($0).mp4\n" }
        let text = lines.joined()
        let big = directory.write("big.txt", Data(text.utf8))
        let small = directory.write("small.txt", Data("/library/one.mp4\n".utf8))
        func peak(_ list: String) throws -> Int {
            // One shard of many: the run reads, checks and shards the whole list, then has next to nothing to do.
            try peakResidentBytes(["poster", "--inputs-from", list, "--out", directory.file("out"), "--layout", "hashed",
                                   "--shard", "0/50000", "--quiet"])
        }
        let listBytes = text.utf8.count
        let growth = try peak(big) - peak(small)
        #expect(growth < 6 * listBytes, "reading \(listBytes) bytes of list took \(growth) bytes more")
    }
}

/// Every file under `root`, relative, sorted.
func treeFiles(_ root: String) throws -> [String] {
    let enumerator = FileManager.default.enumerator(atPath: root)
    var files: [String] = []
    while let file = enumerator?.nextObject() as? String {
        var isFolder: ObjCBool = false
        if FileManager.default.fileExists(atPath: root + "/" + file, isDirectory: &isFolder), !isFolder.boolValue {
            files.append(file)
        }
    }
    return files.sorted()
}

/// The peak resident memory of the CLI run with `arguments`, from `wait4`'s resource usage of that child alone
/// (other tests' processes do not count).
func peakResidentBytes(_ arguments: [String]) throws -> Int {
    let executable = CommandLineTests.executable
    var pid: pid_t = 0
    var actions: posix_spawn_file_actions_t = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
    posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
    let argv = ([executable] + arguments).map { strdup($0) } + [nil]
    defer { argv.forEach { free($0) } }
    guard posix_spawn(&pid, executable, &actions, nil, argv, environ) == 0 else {
        throw InputListError("cannot start \(executable)")
    }
    var status: Int32 = 0
    var usage = rusage()
    guard wait4(pid, &status, 0, &usage) == pid else { throw InputListError("wait4 failed") }
    return usage.ru_maxrss * 1024
}

/// `framefarm report`, run records, retries and duplicate runs over one shared OUT.
@Suite struct LibraryReportTests {
    /// Three good videos and a file that is no video, listed with one video that was never run.
    private func library(in directory: TemporaryDirectory) throws -> (good: [String], bad: String, list: String) {
        let good = try (0..<3).map { try makeSample(in: directory, name: "v\($0).mp4") { $0.durationSeconds = 1 } }
        let bad = directory.write("bad.mp4", Data("not a video".utf8))
        let list = directory.write("list.txt", Data((good + [bad]).joined(separator: "\n").utf8))
        return (good, bad, list)
    }

    private func report(_ out: String, list: String? = nil) throws -> (status: Int32, summary: [String: Any]) {
        let run = try CommandLineTests.run(["report", out, "--json"] + (list.map { ["--inputs-from", $0] } ?? []))
        let summary = try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any] ?? [:]
        return (run.status, summary)
    }

    @Test func reportFindsFailedMissingAndStaleInputs() throws {
        let directory = TemporaryDirectory()
        let (good, bad, list) = try library(in: directory)
        let out = directory.file("out")
        for index in 0..<2 {
            let shard = try CommandLineTests.run(["poster", "--inputs-from", list, "--out", out, "--widths", "160",
                                                  "--shard", "\(index)/2", "--quiet"])
            #expect(shard.status <= 1, "\(shard.stderr)")
        }
        // Each shard left its own run record; no folder was touched by both.
        let records = RunRecord.all(outputRoot: out)
        #expect(records.count == 2 && Set(records.map { $0.shard ?? "" }) == ["0/2", "1/2"])
        let folders = records.map { Set($0.inputs.compactMap(\.folder)) }
        #expect(folders[0].isDisjoint(with: folders[1]) && folders[0].union(folders[1]).count == 4)
        // One more video in the list than ever ran.
        let never = try makeSample(in: directory, name: "never.mp4") { $0.durationSeconds = 1 }
        let longer = directory.write("longer.txt", Data((good + [bad, never]).joined(separator: "\n").utf8))
        let first = try report(out, list: longer)
        #expect(first.status == 1)
        let poster = (first.summary["commands"] as? [String: Any])?["poster"] as? [String: Any]
        #expect(poster?["done"] as? Int == 3)
        #expect((poster?["failed"] as? [[String: String]])?.map { $0["path"] } == [bad])
        #expect(poster?["missing"] as? [String] == [never])
        #expect(FileManager.default.fileExists(atPath: out + "/summary.json") && FileManager.default.fileExists(atPath: out + "/index.html"))
        let sheet = try String(contentsOfFile: out + "/index.html", encoding: .utf8)
        #expect(sheet.contains("2 problems") && sheet.contains("bad.mp4"), "the failures head the contact sheet")
        // The good list complete: exit 0. Then an input changed since its poster: stale, exit 1.
        #expect(try report(out, list: directory.write("good.txt", Data(good.joined(separator: "\n").utf8))).status == 0)
        try FileManager.default.setAttributes([.modificationDate: Date(timeIntervalSinceNow: -3600)], ofItemAtPath: good[1])
        let stale = try report(out, list: directory.file("good.txt"))
        #expect(stale.status == 1)
        #expect(((stale.summary["commands"] as? [String: Any])?["poster"] as? [String: Any])?["stale"] as? [String] == [good[1]])
        // The last run failed where an earlier run's outputs are still there: failed, with its reason (it was done).
        let failing = try CommandLineTests.run(["poster", good[0], "--out", out, "--widths", "160", "--force", "--max-pixels", "100"])
        #expect(failing.status == 1)
        let failed = try report(out, list: directory.file("good.txt"))
        let failures = ((failed.summary["commands"] as? [String: Any])?["poster"] as? [String: Any])?["failed"] as? [[String: String]]
        #expect(failures?.map { $0["path"] } == [good[0]] && failures?.first?["reason"]?.contains("exceeds the limit") == true,
                "\(failed.summary)")
    }

    /// After the input changed, one command's run keeps the others' sections, marked stale: `report` and the page
    /// call their outputs stale (not missing, while their files stand), and their command makes them again.
    @Test func oneCommandAfterTheInputChangedLeavesTheOthersStale() throws {
        let directory = TemporaryDirectory()
        let video = try makeSample(in: directory, name: "v.mp4") { $0.durationSeconds = 1 }
        let out = directory.file("out")
        for command in [["thumbnails", "--interval", "0.5"], ["poster", "--widths", "160"]] {
            #expect(try CommandLineTests.run(command + [video, "--out", out, "--quiet"]).status == 0)
        }
        // Another encode under the same name: a longer clip.
        let longer = try makeSample(in: directory, name: "longer.mp4") { $0.durationSeconds = 2 }
        try FileManager.default.removeItem(atPath: video)
        try FileManager.default.moveItem(atPath: longer, toPath: video)
        #expect(try CommandLineTests.run(["poster", "--widths", "160", video, "--out", out, "--quiet"]).status == 0)
        let manifest = try #require(ManifestStore.read(out + "/v/manifest.json"))
        #expect(manifest.staleSections == ["thumbnails"] && manifest.thumbnails != nil, "\(String(describing: manifest.staleSections))")
        #expect(manifest.probe.durationSeconds > 1.5, "the probe is the new input's")
        let sheet = try String(contentsOfFile: out + "/index.html", encoding: .utf8)
        #expect(sheet.contains("The thumbnails outputs were made from an earlier version of the input."))
        let stale = try report(out)
        let commands = stale.summary["commands"] as? [String: Any]
        #expect(stale.status == 1)
        #expect((commands?["thumbnails"] as? [String: Any])?["stale"] as? [String] == [video], "\(stale.summary)")
        #expect((commands?["thumbnails"] as? [String: Any])?["missing"] as? [String] == [])
        #expect((commands?["poster"] as? [String: Any])?["done"] as? Int == 1)
        // Thumbnails made again from the new input: nothing stale; a 2-s clip at 0.5 s has four tiles.
        #expect(try CommandLineTests.run(["thumbnails", "--interval", "0.5", video, "--out", out, "--quiet"]).status == 0)
        let remade = try #require(ManifestStore.read(out + "/v/manifest.json"))
        #expect(remade.staleSections == nil && remade.thumbnails?.count == 4 && remade.poster != nil)
        #expect(try report(out).status == 0)
    }

    /// A library sharded again with another count: with the list, every input done is complete though the new
    /// count's other shards never ran (they are still named); without it, those shards keep it incomplete. An OUT
    /// not made yet, with a list, is not run (exit 1), and is not made by the report.
    @Test func aListDecidesCompletenessAndAnOutNotMadeYetIsNotRun() throws {
        let directory = TemporaryDirectory()
        let videos = try (0..<2).map { index in try makeSample(in: directory, name: "v\(index).mp4") { $0.durationSeconds = 1 } }
        let list = directory.write("list.txt", Data(videos.joined(separator: "\n").utf8))
        let out = directory.file("out")
        for shard in ["0/2", "1/2", "0/3"] {
            let run = try CommandLineTests.run(["poster", "--inputs-from", list, "--out", out, "--widths", "160", "--shard", shard, "--quiet"])
            #expect(run.status == 0, "\(run.stderr)")
        }
        let listed = try report(out, list: list)
        let poster = (listed.summary["commands"] as? [String: Any])?["poster"] as? [String: Any]
        #expect(listed.status == 0 && poster?["done"] as? Int == 2, "\(listed.summary)")
        #expect(poster?["shardsNotRun"] as? [String] == ["1/3", "2/3"])
        #expect(try report(out).status == 1)
        let nowhere = directory.file("not-made")
        let none = try report(nowhere, list: list)
        #expect(none.status == 1 && (none.summary["notRun"] as? [String])?.count == 2, "\(none.summary)")
        #expect(!FileManager.default.fileExists(atPath: nowhere))
        #expect(try CommandLineTests.run(["report", nowhere, "--inputs-from", list]).stderr.contains("does not exist: nothing written"))
        #expect(try CommandLineTests.run(["report", nowhere]).status == 2, "without a list, a path that is no folder is a mistake")
    }

    /// A video replaced by another of the same stem (`show.mkv` for `show.mp4`, paths relative to where the runs
    /// ran): refused while the first is there, since the folder holds its outputs; once it is gone, the folder is
    /// the new input's, the other command's outputs stale until that command runs.
    @Test func aReplacedVideoTakesTheFolderOfTheOneGone() throws {
        let directory = TemporaryDirectory()
        try FileManager.default.createDirectory(atPath: directory.file("lib"), withIntermediateDirectories: true)
        let old = try makeSample(in: directory, name: "lib/show.mp4") { $0.durationSeconds = 1 }
        try KeyframeSeekTests.ffmpeg(["-i", old, "-c", "copy", directory.file("lib/show.mkv")])
        func run(_ arguments: [String]) throws -> CommandLineTests.Run {
            try CommandLineTests.run(arguments + ["--out", "out", "--quiet"], in: directory.path)
        }
        #expect(try run(["thumbnails", "lib/show.mp4", "--interval", "0.5"]).status == 0)
        let refused = try run(["poster", "lib/show.mkv", "--widths", "160"])
        #expect(refused.status == 1 && refused.stderr.contains("holds the outputs of another input, lib/show.mp4"), "\(refused.stderr)")
        try FileManager.default.removeItem(atPath: old)
        let taken = try run(["poster", "lib/show.mkv", "--widths", "160"])
        #expect(taken.status == 0, "\(taken.stderr)")
        let manifest = try #require(ManifestStore.read(directory.file("out/show/manifest.json")))
        #expect(manifest.input.path == "lib/show.mkv" && manifest.poster != nil && manifest.staleSections == ["thumbnails"])
        // Without a list, the runs name both; the one gone is the new one's folder, not a missing input.
        #expect(try run(["thumbnails", "lib/show.mkv", "--interval", "0.5"]).status == 0)
        let complete = try CommandLineTests.run(["report", "out"], in: directory.path)
        #expect(complete.status == 0 && !complete.stderr.contains("show.mp4"), "\(complete.stderr)")
    }

    /// `report` failing to write its summary says so in one line of FrameFarm's form, exit 1.
    @Test func aSummaryThatCannotBeWrittenIsOneLine() throws {
        let directory = TemporaryDirectory()
        let video = try makeSample(in: directory, name: "v.mp4") { $0.durationSeconds = 1 }
        let out = directory.file("out")
        #expect(try CommandLineTests.run(["poster", "--widths", "160", video, "--out", out, "--quiet"]).status == 0)
        try FileManager.default.createDirectory(atPath: out + "/summary.json", withIntermediateDirectories: false)
        let run = try CommandLineTests.run(["report", out])
        #expect(run.status == 1)
        let lines = run.stderr.split(separator: "\n")
        #expect(lines.count == 1 && lines[0].hasPrefix("framefarm: ") && lines[0].contains("summary.json"), "\(run.stderr)")
    }

    /// An interrupted run records the inputs it never started: without a list, `report` counts them missing (a
    /// later interrupted run never hides what an earlier one finished); with a list, an OUT holding no output and
    /// no run of any command (a mistyped path) is not complete.
    @Test func reportCountsInputsNeverStartedAndAnEmptyOutAsNotDone() throws {
        let directory = TemporaryDirectory()
        let (good, _, _) = try library(in: directory)
        let out = directory.file("out")
        #expect(try CommandLineTests.run(["poster", good[0], good[1], "--out", out, "--widths", "160", "--quiet"]).status == 0)
        var interrupted = try #require(RunRecord.all(outputRoot: out).first)
        interrupted.interrupted = true
        interrupted.finishedSeconds += 1
        interrupted.processID += 1
        interrupted.inputs = good.map { RunRecord.Input(path: $0, folder: OutputLayout.stem($0), status: .notStarted) }
        try interrupted.write(outputRoot: out)
        let report = try report(out)
        #expect(report.status == 1)
        let poster = (report.summary["commands"] as? [String: Any])?["poster"] as? [String: Any]
        #expect(poster?["done"] as? Int == 2)
        #expect(poster?["missing"] as? [String] == Array(good.dropFirst(2)).sorted())
        let list = directory.write("good.txt", Data(good.joined(separator: "\n").utf8))
        let empty = directory.file("empty")
        try FileManager.default.createDirectory(atPath: empty, withIntermediateDirectories: true)
        let nothing = try self.report(empty, list: list)
        #expect(nothing.status == 1 && nothing.summary["complete"] as? Bool == false)
        #expect(nothing.summary["notRun"] as? [String] == good.sorted())
        // So is an OUT of a batch killed before it wrote, holding empty video folders and temporaries: it was refused
        // as a folder that is not an OUT.
        let killed = directory.file("killed")
        try FileManager.default.createDirectory(atPath: killed + "/v0/.poster.0-1.0.tmp", withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: killed + "/v1", withIntermediateDirectories: true)
        let notWritten = try self.report(killed, list: list)
        #expect(notWritten.status == 1 && notWritten.summary["notRun"] as? [String] == good.sorted())
        // A folder of videos is not an OUT: refused, and nothing is written into it.
        let videos = directory.file("videos")
        try FileManager.default.createDirectory(atPath: videos, withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: good[0], toPath: videos + "/clip.mp4")
        let notOut = try CommandLineTests.run(["report", videos])
        #expect(notOut.status == 2 && notOut.stderr.contains("holds no outputs or runs of FrameFarm, and holds clip.mp4"))
        #expect(try FileManager.default.contentsOfDirectory(atPath: videos) == ["clip.mp4"])
        let noList = try CommandLineTests.run(["report", empty, "--inputs-from", directory.file("missing.txt")])
        #expect(noList.status == 2 && noList.stderr == "framefarm: \(directory.file("missing.txt")): cannot read the input "
                + "list (No such file or directory)\n", "\(noList.stderr)")
    }

    /// The review page lists the failures of every command run on OUT: a later `poster` over the good videos
    /// does not hide what `thumbnails` failed on, and a retry that succeeds takes it off.
    @Test func theReviewPageKeepsEarlierCommandsFailures() throws {
        let directory = TemporaryDirectory()
        let good = try makeSample(in: directory, name: "good.mp4") { $0.durationSeconds = 1 }
        let broken = directory.write("broken.mp4", Data("not a video".utf8))
        let out = directory.file("out")
        func page() throws -> String { try String(contentsOfFile: out + "/index.html", encoding: .utf8) }
        #expect(try CommandLineTests.run(["thumbnails", good, broken, "--out", out, "--quiet"]).status == 1)
        #expect(try CommandLineTests.run(["poster", good, "--out", out, "--quiet"]).status == 0)
        #expect(try page().contains("1 problem") && page().contains("thumbnails: not a video file"))
        try FileManager.default.removeItem(atPath: broken)
        try FileManager.default.copyItem(atPath: good, toPath: broken)
        #expect(try CommandLineTests.run(["thumbnails", good, broken, "--out", out, "--quiet"]).status == 0)
        #expect(try !page().contains("1 problem") && !page().contains("not a video file"))
    }

    /// Under the stem layout, a video of the same name in a later run never overwrites another input's outputs:
    /// it fails naming that input and the layouts that keep both; `report` counts it missing, not stale; `--force`
    /// replaces them.
    @Test func aLaterRunNeverOverwritesAnotherInputsFolder() throws {
        let directory = TemporaryDirectory()
        for folder in ["a", "b"] {
            try FileManager.default.createDirectory(atPath: directory.file(folder), withIntermediateDirectories: true)
        }
        let first = try makeSample(in: directory, name: "a/intro.mp4") { $0.durationSeconds = 1 }
        let second = try makeSample(in: directory, name: "b/intro.mp4") { $0.durationSeconds = 2 }
        let out = directory.file("out"), poster = out + "/intro/poster.jpg"
        #expect(try CommandLineTests.run(["poster", first, "--out", out, "--quiet"]).status == 0)
        let kept = try Data(contentsOf: URL(fileURLWithPath: poster))
        let run = try CommandLineTests.run(["poster", second, "--out", out])
        #expect(run.status == 1)
        #expect(run.stderr.contains("\(second): its folder intro holds the outputs of another input, \(first): give "
                                    + "--layout hashed"), "\(run.stderr)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: poster)) == kept)
        #expect(ManifestStore.read(out + "/intro/manifest.json")?.input.path == first)
        let only = try report(out, list: directory.write("second.txt", Data(second.utf8)))
        let commands = only.summary["commands"] as? [String: Any]
        #expect((commands?["poster"] as? [String: Any])?["stale"] as? [String] == [])
        #expect(only.status == 1)
        #expect(try CommandLineTests.run(["poster", second, "--out", out, "--force", "--quiet"]).status == 0)
        #expect(ManifestStore.read(out + "/intro/manifest.json")?.input.path == second)
    }

    /// `thumbnails` and `poster` at once on one OUT: each input's manifest keeps both sections, though each
    /// batch read it before the other wrote (the manifest is read again under a lock on its folder).
    @Test func twoCommandsAtOnceKeepBothSections() throws {
        let directory = TemporaryDirectory()
        let clip = try makeSample(in: directory, name: "clip.mp4") { $0.durationSeconds = 2 }
        let inputs = try (0..<8).map { index in
            let link = directory.file("v\(index).mp4")
            try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: clip)
            return link
        }
        let out = directory.file("out")
        let batches = [["thumbnails", "--interval", "0.2"], ["poster", "--widths", "160"]].map { command in
            CommandLineTests.process(command + inputs + ["--out", out, "--jobs", "1", "--quiet"])
        }
        for batch in batches {
            batch.standardError = FileHandle.nullDevice
            try batch.run()
        }
        for batch in batches { batch.waitUntilExit() }
        #expect(batches.allSatisfy { $0.terminationStatus == 0 })
        for index in inputs.indices {
            let manifest = try #require(ManifestStore.read(out + "/v\(index)/manifest.json"))
            #expect(manifest.thumbnails != nil && manifest.poster != nil, "v\(index) lost a section")
        }
        #expect(try report(out).status == 0)
    }

    /// A retried shard redoes only what is not current; two copies of one shard at once (a replacement pod while
    /// the old one still runs) leave what one run leaves.
    @Test func retriesAndDuplicateRunsEndAsOneRun() throws {
        let directory = TemporaryDirectory()
        let (good, _, _) = try library(in: directory)
        let list = directory.write("good.txt", Data(good.joined(separator: "\n").utf8))
        let arguments = ["poster", "--inputs-from", list, "--widths", "160", "--quiet"]
        #expect(try CommandLineTests.run(arguments + ["--out", directory.file("single")]).status == 0)
        let twins = (0..<2).map { _ in CommandLineTests.process(arguments + ["--out", directory.file("twins")]) }
        for twin in twins {
            twin.standardError = FileHandle.nullDevice
            try twin.run()
        }
        for twin in twins { twin.waitUntilExit() }
        #expect(twins.allSatisfy { $0.terminationStatus == 0 })
        let files = try treeFiles(directory.file("single")).filter { !$0.hasPrefix(".framefarm/") }
        #expect(try treeFiles(directory.file("twins")).filter { !$0.hasPrefix(".framefarm/") } == files)
        for file in files where file != "index.html" {
            #expect(FileManager.default.contentsEqual(atPath: directory.file("single/" + file),
                                                      andPath: directory.file("twins/" + file)), "\(file) differs")
        }
        #expect(try treeFiles(directory.file("twins")).allSatisfy { !$0.hasSuffix(".tmp") })
        #expect(try report(directory.file("twins"), list: list).status == 0)
        // A retry after one output went missing redoes that input alone.
        try FileManager.default.removeItem(atPath: directory.file("twins/v1/poster-160.jpg"))
        let retry = try CommandLineTests.run(arguments + ["--out", directory.file("twins"), "--json"])
        let statuses = ((try JSONSerialization.jsonObject(with: Data(retry.stdout.utf8)) as? [String: Any])?["inputs"]
            as? [[String: Any]])?.map { $0["status"] as? String }
        #expect(statuses == ["up-to-date", "done", "up-to-date"])
    }

    /// A library of symbolic links: a link's video is the file it names, so changing that file makes the outputs
    /// stale even though the link itself did not change.
    @Test func aLinkedInputIsJudgedByTheFileItNames() throws {
        let directory = TemporaryDirectory()
        let target = try makeSample(in: directory, name: "target.mp4") { $0.durationSeconds = 1 }
        let link = directory.file("linked.mp4")
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: target)
        let out = directory.file("out")
        func status() throws -> String? {
            let summary = PosterJob.run(inputs: [link], outputRoot: out, options: PosterOptions(), gpu: SharedGPU.service)
            return summary.inputs.first?.status.rawValue
        }
        #expect(try status() == "done")
        #expect(try status() == "up-to-date")
        try FileManager.default.setAttributes([.modificationDate: Date(timeIntervalSinceNow: -7200)], ofItemAtPath: target)
        #expect(try status() == "done", "the linked file changed: its outputs are redone")
    }

    /// Past a page's worth of videos the contact sheet pages: a front page with the problems first, linked to
    /// the page of each, then the pages.
    @Test func aLargeContactSheetPages() throws {
        let directory = TemporaryDirectory()
        let path = try makeSample(in: directory)
        let summary = PosterJob.run(inputs: [path], outputRoot: directory.file("out"), options: PosterOptions(),
                                    gpu: SharedGPU.service)
        #expect(summary.failed == 0)
        let manifest = try #require(ManifestStore.read(directory.file("out/sample/manifest.json")))
        let entries = (0..<250).map { ContactSheetWriter.Entry(folder: String(format: "v%03d", $0), manifest: manifest) }
        let problems = [ContactSheetWriter.Problem(path: "/lib/v120.mp4", text: "cut short", folder: "v120"),
                        ContactSheetWriter.Problem.failure(path: "/lib/gone.mp4", text: "no such file")]
        let pages = ContactSheetWriter.pages(for: entries, problems: problems)
        #expect(pages.map(\.file) == ["index.html", "page-0001.html", "page-0002.html", "page-0003.html"])
        let front = pages[0].html
        #expect(front.range(of: "2 problems")!.lowerBound < front.range(of: "page-0001.html")!.lowerBound)
        #expect(front.contains("href=\"page-0002.html#v120\"") && front.contains("no such file"))
        #expect(pages.dropFirst().map { $0.html.components(separatedBy: "<section id=").count - 1 } == [100, 100, 50])
        #expect(ContactSheetWriter.pages(for: Array(entries.prefix(100))).map(\.file) == ["index.html"])
    }
}

/// The deploy files say what `--shard auto` reads.
@Suite struct DeployFileTests {
    /// deploy/kubernetes/indexed-job.yaml: an Indexed Job whose FRAMEFARM_SHARDS equals its completions and
    /// parallelism, so the pods' shards, as `--shard auto` reads them, are each shard once.
    @Test func theKubernetesJobsShardCountMatchesItsCompletions() throws {
        let path = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("../../deploy/kubernetes/indexed-job.yaml").standardizedFileURL.path
        let lines = try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n")
            .map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.hasPrefix("#") }
        func value(_ key: String) -> String? {
            lines.first { $0.hasPrefix(key + ":") }.map { String($0.dropFirst(key.count + 1)).trimmingCharacters(in: .whitespaces) }
        }
        #expect(value("kind") == "Job" && value("completionMode") == "Indexed" && value("restartPolicy") == "Never")
        let completions = try #require(value("completions").flatMap { Int($0) })
        #expect(value("parallelism").flatMap { Int($0) } == completions)
        let shardsLine = try #require(lines.firstIndex(of: "- name: FRAMEFARM_SHARDS"))
        let shards = lines[shardsLine + 1].replacingOccurrences(of: "value:", with: "")
            .trimmingCharacters(in: CharacterSet(charactersIn: " \""))
        #expect(Int(shards) == completions)
        #expect(lines.contains { $0.contains("\"--shard\", \"auto\"") })
        let found = try (0..<completions).map { index in
            try Shard.fromEngine(environment: ["JOB_COMPLETION_INDEX": "\(index)", "FRAMEFARM_SHARDS": shards]).shard
        }
        #expect(found == (0..<completions).map { try! Shard(index: $0, count: completions) })
    }
}
