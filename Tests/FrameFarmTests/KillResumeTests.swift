import Foundation
import Testing
@testable import FrameFarm
@testable import FrameFarmMedia

/// Issue 7, item 3: a batch killed with SIGKILL at any point, then re-run, ends with exactly the outputs of an
/// uninterrupted run and no temporary files. Runs the real `framefarm` binary on tiny inputs.
@Suite struct KillResumeTests {
    /// The batch a user would run: every command on the same inputs and OUT.
    static func commands(inputs: [String], out: String) -> [[String]] {
        [["thumbnails"] + inputs + ["--out", out, "--interval", "0.25", "--grid", "3x2", "--quiet"],
         ["preview"] + inputs + ["--out", out, "--devices", "pip-iphone,iphone-se-3", "--format", "jpeg",
          "--quiet"],
         ["poster"] + inputs + ["--out", out, "--widths", "160", "--quiet"]]
    }

    @Test func reRunAfterSIGKILLMatchesAnUninterruptedRun() throws {
        let directory = TemporaryDirectory()
        let inputs = try (1...3).map { index in
            try makeSample(in: directory, name: "clip\(index).mp4") { options in
                options.size = PixelSize(width: 96, height: 54)
                options.durationSeconds = 1
            }
        }
        // The reference run, with a copy of OUT after each command: a trial that kills command k starts from
        // the state after the commands before it, which is the same in every run.
        let referenceOut = directory.file("reference")
        var durations: [Double] = []
        var snapshots: [String] = []
        for (index, command) in Self.commands(inputs: inputs, out: referenceOut).enumerated() {
            let snapshot = directory.file("before\(index)")
            if FileManager.default.fileExists(atPath: referenceOut) {
                try FileManager.default.copyItem(atPath: referenceOut, toPath: snapshot)
            }
            snapshots.append(snapshot)
            let started = Date()
            let run = try Self.run(command)
            durations.append(Date().timeIntervalSince(started))
            try #require(run.status == 0, "\(command[0]): \(run.stderr)")
        }
        // Manifests hold nothing time-dependent (input size and mtime, settings, geometry, frame times, the GPU's
        // name), so every file, manifest.json and index.html included, must match byte for byte.
        let reference = try Self.contents(of: referenceOut)
        try #require(reference.keys.contains { $0.hasSuffix("thumbnails/iframes.mp4") })

        let trials = 20
        var killedWhileRunning = 0
        for trial in 0..<trials {
            let out = directory.file("trial\(trial)")
            let commands = Self.commands(inputs: inputs, out: out)
            // A random point of the whole batch: which command, and how far into it.
            var point = Double.random(in: 0..<durations.reduce(0, +))
            let killed = durations.indices.first { index in
                defer { point -= durations[index] }
                return point < durations[index]
            } ?? durations.count - 1
            point += durations[killed]
            // A kill that lands after the command has finished tests nothing: this run was quicker than the
            // reference one (the suite's parallel load comes and goes). Start again from the same state and kill
            // earlier, up to five times.
            for _ in 0..<5 {
                try? FileManager.default.removeItem(atPath: out)
                if FileManager.default.fileExists(atPath: snapshots[killed]) {
                    try FileManager.default.copyItem(atPath: snapshots[killed], toPath: out)
                }
                if try Self.runAndKill(commands[killed], after: point) {
                    killedWhileRunning += 1
                    break
                }
                point /= 4
            }
            let label = "trial \(trial): \(commands[killed][0]) killed at \(String(format: "%.3f", point)) s"
            for command in commands[killed...] {
                let run = try Self.run(command)
                #expect(run.status == 0, "\(label), re-run of \(command[0]): \(run.stderr)")
            }
            let outputs = try Self.contents(of: out)
            let temporaries = outputs.keys.filter { $0.hasSuffix(".tmp") }
            #expect(temporaries.isEmpty, "\(label) left \(temporaries)")
            #expect(outputs.keys.sorted() == reference.keys.sorted(), "\(label)")
            let differing = reference.keys.filter { outputs[$0] != nil && outputs[$0] != reference[$0] }.sorted()
            #expect(differing.isEmpty, "\(label): \(differing) differ from the uninterrupted run")
            try? FileManager.default.removeItem(atPath: out)
        }
        // Kills must land while the process runs, or the test proves little. With the retries above, a trial
        // misses only when even a kill at 1/256 of the reference time comes too late.
        #expect(killedWhileRunning >= trials * 3 / 4, "only \(killedWhileRunning) kills hit a running batch")
    }

    /// The CLI without the validation layer: a child process never reports validation messages, so the layer
    /// would only slow every run down (the in-process GPU tests cover validation).
    static func process(_ arguments: [String]) -> Process {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: CommandLineTests.executable)
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.filter { $0.key != "FRAMEFARM_VALIDATION" }
        return process
    }

    static func run(_ arguments: [String]) throws -> (status: Int32, stderr: String) {
        let process = process(arguments)
        let errors = Pipe()
        process.standardOutput = FileHandle.nullDevice
        process.standardError = errors
        try process.run()
        let stderr = errors.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: stderr, as: UTF8.self))
    }

    /// Starts `arguments` and sends SIGKILL after `seconds`; true when the process was still running then.
    static func runAndKill(_ arguments: [String], after seconds: Double) throws -> Bool {
        let process = process(arguments)
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        Thread.sleep(forTimeInterval: seconds)
        let running = process.isRunning
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        return running && process.terminationReason == .uncaughtSignal
    }

    /// Every regular file under `root` (hidden ones included, but for the run records under `.framefarm/`, which
    /// name their process and times by design), by path relative to `root`.
    static func contents(of root: String) throws -> [String: Data] {
        var files: [String: Data] = [:]
        guard let enumerator = FileManager.default.enumerator(atPath: root) else { return files }
        while let relative = enumerator.nextObject() as? String {
            if relative.hasPrefix(".framefarm/") { continue }
            let path = root + "/" + relative
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), !isDirectory.boolValue
            else { continue }
            files[relative] = try Data(contentsOf: URL(fileURLWithPath: path))
        }
        return files
    }
}

@Suite struct StaleTemporaryTests {
    /// The id of a process that has exited: a writer that no longer runs.
    static func finishedProcessID() throws -> Int32 {
        let finished = Process()
        finished.executableURL = URL(fileURLWithPath: "/bin/true")
        try finished.run()
        finished.waitUntilExit()
        return finished.processIdentifier
    }

    /// A failure is said when it happens, not kept to the batch's end: a worker killed later (a node lost) has
    /// said it. It came with the summary, and SIGKILL lost it.
    @Test func aFailureIsSaidWhileTheBatchRuns() throws {
        let directory = TemporaryDirectory()
        let long = try makeSample(in: directory, name: "long.mp4") {
            $0.size = PixelSize(width: 1280, height: 720)
            $0.durationSeconds = 10
        }
        let bad = directory.write("bad.mp4", Data("not a video".utf8))
        let batch = CommandLineTests.process(["thumbnails", long, bad, "--out", directory.file("out"), "--interval", "0.1",
                                              "--jobs", "2"])
        let errors = Pipe()
        batch.standardError = errors
        batch.standardOutput = FileHandle.nullDevice
        try batch.run()
        defer {
            if batch.isRunning { kill(batch.processIdentifier, SIGKILL) }
            batch.waitUntilExit()
        }
        var said = ""
        while !said.contains("\n") {
            let data = errors.fileHandleForReading.availableData
            if data.isEmpty { break }
            said += String(decoding: data, as: UTF8.self)
        }
        #expect(said.hasPrefix("framefarm: \(bad): not a video file"), "\(said)")
        #expect(!FileManager.default.fileExists(atPath: directory.file("out/long/manifest.json")),
                "the failure was said while the other input was still being made")
    }

    @Test func onlyTemporariesOfDeadProcessesAreRemoved() throws {
        let directory = TemporaryDirectory()
        let deadPID = try Self.finishedProcessID()
        let dead = directory.write(".sheet-0001.jpg.\(deadPID).42.tmp", Data([1]))
        let mine = directory.write(".poster.jpg.\(getpid()).7.tmp", Data([1]))
        let other = directory.write(".notes.1.tmp", Data([1]))
        // Names as this version writes them carry the host: this host's dead writer is known dead; on another
        // host (shared storage) the same process id says nothing, so only a day-old temporary goes.
        let tag = (URL(fileURLWithPath: AtomicFile.temporaryPath(for: directory.file("x.jpg"))).lastPathComponent
            .split(separator: ".").dropLast(2).last ?? "").split(separator: "-")[0]
        let deadHere = directory.write(".a.jpg.\(tag)-\(deadPID).1.tmp", Data([1]))
        let elsewhere = directory.write(".b.jpg.0badc0de-\(deadPID).2.tmp", Data([1]))
        let oldElsewhere = directory.write(".c.jpg.0badc0de-\(deadPID).3.tmp", Data([1]))
        try FileManager.default.setAttributes([.modificationDate: Date(timeIntervalSinceNow: -2 * 86_400)],
                                              ofItemAtPath: oldElsewhere)
        let removed = AtomicFile.removeStaleTemporaries(inFolder: directory.path)
        #expect(removed == 3)
        #expect(!FileManager.default.fileExists(atPath: deadHere) && !FileManager.default.fileExists(atPath: oldElsewhere))
        #expect(FileManager.default.fileExists(atPath: elsewhere), "another host's writer may still run")
        #expect(!FileManager.default.fileExists(atPath: dead))
        #expect(FileManager.default.fileExists(atPath: mine), "a write in progress in this process is kept")
        #expect(FileManager.default.fileExists(atPath: other), "a file not named by AtomicFile is kept")
    }

    /// A batch in a container (its own PID namespace, often as process 1, under a name a replacement pod reuses)
    /// writing to the same OUT: its temporaries carry another tag than this process's, so a sweep here never
    /// judges them by process ids counted in another namespace, and its run ends as if alone.
    @Test func temporariesOfAnotherPIDNamespaceAreKept() throws {
        let directory = TemporaryDirectory()
        let clip = try makeSample(in: directory) { $0.durationSeconds = 20 }
        let out = directory.file("out")
        let batch = CommandLineTests.process(["thumbnails", clip, "--out", out, "--interval", "0.1", "--quiet"])
        batch.arguments = ["--fork", "--pid", "--mount-proc", batch.executableURL!.path] + batch.arguments!
        batch.executableURL = URL(fileURLWithPath: "/usr/bin/unshare")
        batch.standardError = FileHandle.nullDevice
        try batch.run()
        defer { if batch.isRunning { kill(batch.processIdentifier, SIGKILL) } }
        let folder = out + "/sample"
        var staging: String?
        let deadline = Date().addingTimeInterval(60)
        while staging == nil, batch.isRunning, Date() < deadline {
            staging = (try? FileManager.default.contentsOfDirectory(atPath: folder))?.first { $0.hasSuffix(".tmp") }
            Thread.sleep(forTimeInterval: 0.005)
        }
        let name = try #require(staging, "no staging folder seen (unshare needs root: the tests run as root in CI)")
        let writer = try #require(AtomicFile.writer(ofTemporaryName: name))
        #expect(writer.host != AtomicFile.hostTag, "\(name)")
        #expect(AtomicFile.removeStaleTemporaries(inFolder: folder) == 0)
        batch.waitUntilExit()
        #expect(batch.terminationStatus == 0)
        #expect(FileManager.default.fileExists(atPath: folder + "/thumbnails/thumbnails.vtt"))
    }

    /// A write that fails (a full disk: a 64-KiB tmpfs) says which file, by the name it was to take even inside a
    /// staging folder, and the system's reason, in one line; nothing temporary is left.
    @Test func aFailedWriteNamesTheFileAndTheReason() throws {
        let directory = TemporaryDirectory()
        let small = directory.file("small")
        try FileManager.default.createDirectory(atPath: small, withIntermediateDirectories: true)
        let mount = Process()
        mount.executableURL = URL(fileURLWithPath: "/bin/mount")
        mount.arguments = ["-t", "tmpfs", "-o", "size=64k", "tmpfs", small]
        try mount.run()
        mount.waitUntilExit()
        try #require(mount.terminationStatus == 0, "mount needs root: the tests run as root in CI")
        defer {
            let unmount = Process()
            unmount.executableURL = URL(fileURLWithPath: "/bin/umount")
            unmount.arguments = [small]
            try? unmount.run()
            unmount.waitUntilExit()
        }
        let big = Data(count: 1 << 20)
        let direct = #expect(throws: FileWriteError.self) { try AtomicFile.write(big, to: small + "/poster.jpg") }
        #expect(direct?.description == "cannot write \(small)/poster.jpg: No space left on device")
        let staging = try AtomicFile.makeTemporaryFolder(for: small + "/thumbnails")
        let inside = #expect(throws: FileWriteError.self) { try AtomicFile.write(big, to: staging + "/sheet-0001.jpg") }
        #expect(inside?.description == "cannot write \(small)/thumbnails/sheet-0001.jpg: No space left on device")
        AtomicFile.discard(staging)
        #expect(try FileManager.default.contentsOfDirectory(atPath: small).isEmpty)
    }

    /// A staging folder (a thumbnail track being written) of a killed run goes with everything in it; one of
    /// this process's stays.
    @Test func stagingFoldersOfDeadProcessesAreRemovedWhole() throws {
        let directory = TemporaryDirectory()
        let deadPID = try Self.finishedProcessID()
        let manager = FileManager.default
        let dead = directory.file(".thumbnails.\(deadPID).5.tmp")
        try manager.createDirectory(atPath: dead + "/160", withIntermediateDirectories: true)
        try Data([1]).write(to: URL(fileURLWithPath: dead + "/160/sheet-0001.jpg"))
        let mine = try AtomicFile.makeTemporaryFolder(for: directory.file("thumbnails"))
        try Data([1]).write(to: URL(fileURLWithPath: mine + "/sheet-0001.jpg"))
        #expect(AtomicFile.removeStaleTemporaries(inFolder: directory.path) == 1)
        #expect(!manager.fileExists(atPath: dead))
        #expect(manager.fileExists(atPath: mine + "/sheet-0001.jpg"))
        // Put in place over an earlier folder, it takes that folder's name and the earlier contents are gone.
        try manager.createDirectory(atPath: directory.file("thumbnails/320"), withIntermediateDirectories: true)
        try AtomicFile.replaceFolder(at: directory.file("thumbnails"), with: mine)
        #expect(try manager.contentsOfDirectory(atPath: directory.file("thumbnails")) == ["sheet-0001.jpg"])
        #expect(try manager.contentsOfDirectory(atPath: directory.path).filter { $0.hasPrefix(".") }.isEmpty)
    }

    /// An earlier track that cannot be removed once replaced (a folder of it made read-only) is named in a
    /// warning, and the input is done: it was left under a hidden name without a word. Run unprivileged, since
    /// root removes it anyway.
    @Test func anEarlierSetThatCannotBeRemovedIsNamed() throws {
        let directory = TemporaryDirectory()
        let video = try makeSample(in: directory, name: "clip.mp4") { $0.durationSeconds = 2 }
        try FileManager.default.setAttributes([.posixPermissions: 0o777], ofItemAtPath: directory.path)
        let out = directory.file("out")
        let first = try CommandLineTests.run(["thumbnails", video, "--out", out, "--interval", "1"], unprivileged: true)
        try #require(first.status == 0, "\(first.stderr)")
        try FileManager.default.setAttributes([.posixPermissions: 0o555], ofItemAtPath: out + "/clip/thumbnails")
        let second = try CommandLineTests.run(["thumbnails", video, "--out", out, "--interval", "0.5"], unprivileged: true)
        #expect(second.status == 0, "\(second.stderr)")
        let left = try FileManager.default.contentsOfDirectory(atPath: out + "/clip").filter { $0.hasPrefix(".thumbnails.") }
        try #require(left.count == 1, "\(left)")
        #expect(second.stderr.contains("clip.mp4: warning: the earlier thumbnails/ could not be removed once replaced: it is left as "
                                       + out + "/clip/" + left[0]), "\(second.stderr)")
        let cues = try ThumbnailTests.parseVTT(String(contentsOfFile: out + "/clip/thumbnails/thumbnails.vtt", encoding: .utf8))
        #expect(cues.count == 4, "the new track is in place")
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: out + "/clip/" + left[0])
    }

    /// Where the file system cannot exchange two folders (NFS), the old set is moved aside: the new set takes its
    /// place whole, with or without an old one there, and a new set that cannot be put in leaves the old one
    /// where it was. Nothing hidden is left either way.
    @Test func aFolderIsReplacedWholeWithoutTheExchange() throws {
        let directory = TemporaryDirectory()
        let manager = FileManager.default
        let target = directory.file("thumbnails")
        func stage(_ names: [String]) throws -> String {
            let folder = try AtomicFile.makeTemporaryFolder(for: target)
            for name in names { try Data(name.utf8).write(to: URL(fileURLWithPath: folder + "/" + name)) }
            return folder
        }
        func contents() throws -> [String] { try manager.contentsOfDirectory(atPath: target).sorted() }
        func hidden() throws -> [String] { try manager.contentsOfDirectory(atPath: directory.path).filter { $0.hasPrefix(".") } }

        try AtomicFile.replaceFolderMovingAside(at: target, with: try stage(["a.jpg", "b.jpg"]))
        #expect(try contents() == ["a.jpg", "b.jpg"], "no earlier folder")
        try AtomicFile.replaceFolderMovingAside(at: target, with: try stage(["c.jpg"]))
        #expect(try contents() == ["c.jpg"], "the earlier folder's files are gone")
        #expect(try hidden().isEmpty)

        let missing = try stage([])
        try manager.removeItem(atPath: missing)
        #expect(throws: (any Error).self) { try AtomicFile.replaceFolderMovingAside(at: target, with: missing) }
        #expect(try contents() == ["c.jpg"], "a failed replacement leaves the last set in place")
        #expect(try hidden().isEmpty)
    }
}

/// Resume of playlist inputs, whose video is many files.
@Suite struct PlaylistResumeTests {
    /// A re-run notices a segment replaced behind a playlist left as it was (a packager re-run on one part, a
    /// corrected segment copied in): the input is done again and the tiles of that segment show its frames. Before,
    /// only the playlist's own size and time were recorded, and the stale track was kept as up to date.
    @Test func aSegmentReplacedBehindAnUnchangedPlaylistIsNoticed() throws {
        let directory = TemporaryDirectory()
        func make(_ name: String, firstFrame: Int) throws {
            let made = try CommandLineTests.run(["sample", "--out", directory.file(name), "--duration", "8", "--size", "320x180",
                                                 "--fps", "10", "--keyframe-interval", "2", "--preset", "ultrafast",
                                                 "--first-frame-number", "\(firstFrame)"])
            #expect(made.status == 0, "\(made.stderr)")
        }
        try make("show.m3u8", firstFrame: 0)
        try make("other.m3u8", firstFrame: 1000)
        let out = directory.file("out"), folder = out + "/show/thumbnails/"
        let arguments = ["thumbnails", directory.file("show.m3u8"), directory.file("other.m3u8"), "--out", out, "--interval", "1"]
        #expect(try CommandLineTests.run(arguments).status == 0)
        try ThumbnailTests.expectTilesOnTheirFrames(in: folder, fps: 10)

        // The third segment (4 to 6 s) replaced by the other video's, newer; the playlist untouched.
        let playlistTime = try FileManager.default.attributesOfItem(atPath: directory.file("show.m3u8"))[.modificationDate]
        try FileManager.default.removeItem(atPath: directory.file("show-002.ts"))
        try FileManager.default.copyItem(atPath: directory.file("other-002.ts"), toPath: directory.file("show-002.ts"))
        try FileManager.default.setAttributes([.modificationDate: Date().addingTimeInterval(5)], ofItemAtPath: directory.file("show-002.ts"))
        #expect(try FileManager.default.attributesOfItem(atPath: directory.file("show.m3u8"))[.modificationDate] as? Date == playlistTime as? Date)

        let rerun = try CommandLineTests.run(arguments)
        #expect(rerun.status == 0, "\(rerun.stderr)")
        // The summary line tells the one made again from the one skipped, which has no line of its own (one per
        // video of a library re-run, in a failure's form).
        #expect(rerun.stderr.contains("2 of 2 inputs done in")
                && rerun.stderr.contains(" s (1 made, 1 up to date, --force redoes them) on "), "\(rerun.stderr)")
        #expect(!rerun.stderr.contains(": up to date"), "\(rerun.stderr)")
        let cues = try ThumbnailTests.parseVTT(String(contentsOfFile: folder + "thumbnails.vtt", encoding: .utf8))
        let expected = cues.map { cue in Int((cue.start * 10 + 1e-6).rounded(.down)) + ((4..<6).contains(cue.start) ? 1000 : 0) }
        #expect(try ThumbnailTests.frameNumbers(cues, folder: folder) == expected)
    }
}
