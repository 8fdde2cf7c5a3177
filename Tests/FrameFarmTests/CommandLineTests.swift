import Foundation
import Testing
@testable import FrameFarm
@testable import FrameFarmGPU

/// Runs the built `framefarm` executable (next to the test bundle in the build folder) like a user would.
@Suite struct CommandLineTests {
    struct Run {
        var status: Int32
        var stdout: String
        var stderr: String
    }

    static var executable: String {
        var directory = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        while !FileManager.default.fileExists(atPath: directory.appendingPathComponent("framefarm").path),
              directory.path != "/" {
            directory.deleteLastPathComponent()
        }
        return directory.appendingPathComponent("framefarm").path
    }

    /// The CLI with `arguments`, not started yet.
    static func process(_ arguments: [String], environment extra: [String: String] = [:]) -> Process {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        var environment = ProcessInfo.processInfo.environment.merging(extra) { $1 }
        // `make test-sanitize` preloads lavapipe into the CLI processes only (see the Makefile for why; preloaded
        // into the swift driver it would crash the linker).
        if let preload = environment["FRAMEFARM_TEST_CLI_PRELOAD"], !preload.isEmpty { environment["LD_PRELOAD"] = preload }
        process.environment = environment
        return process
    }

    /// - Parameter unprivileged: run as `nobody` when the tests run as root (who may remove what it likes), through
    ///   setpriv.
    static func run(_ arguments: [String], environment extra: [String: String] = [:], in directory: String? = nil,
                    unprivileged: Bool = false) throws -> Run {
        let process = process(arguments, environment: extra)
        if unprivileged, getuid() == 0 {
            process.arguments = ["--reuid=65534", "--regid=65534", "--clear-groups", executable] + arguments
            process.executableURL = URL(fileURLWithPath: "/usr/bin/setpriv")
        }
        process.currentDirectoryURL = directory.map { URL(fileURLWithPath: $0) }
        let output = Pipe(), errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        let stdout = output.fileHandleForReading.readDataToEndOfFile()
        let stderr = errors.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return Run(status: process.terminationStatus, stdout: String(decoding: stdout, as: UTF8.self),
                   stderr: String(decoding: stderr, as: UTF8.self))
    }

    @Test func exitStatusIsZeroOneOrTwo() throws {
        let directory = TemporaryDirectory()
        let good = try makeSample(in: directory)
        let missing = directory.file("missing.mp4")
        #expect(try Self.run(["probe", good]).status == 0)
        let partly = try Self.run(["probe", "--json", good, missing])
        #expect(partly.status == 1)
        #expect(partly.stderr == "framefarm: \(missing): no such file\n")
        let reports = try JSONSerialization.jsonObject(with: Data(partly.stdout.utf8)) as? [[String: Any]]
        #expect(reports?.count == 1)
        for key in ["path", "codec", "codedWidth", "codedHeight", "sampleAspectRatio", "rotation", "displayWidth",
                    "displayHeight", "aspectRatio", "aspectClass", "defaultMode", "durationSeconds", "frameRate",
                    "contentRect", "contentAspectRatio"] {
            #expect(reports?.first?[key] != nil, "probe --json lacks \(key)")
        }
        let usage = try Self.run(["preview", good, "--out", directory.file("out"), "--devices", "iphone-99"])
        #expect(usage.status == 2)
        #expect(usage.stderr.contains("iphone-16-pro"), "an unknown device lists the valid ids")
        #expect(!usage.stderr.contains("Fatal error") && !usage.stderr.contains("Backtrace"))
    }

    /// The aspect class is of the long side over the short: `probe` says when that long side stands up, so that a
    /// tall phone video's `ultra-wide` is not read as a wide one.
    @Test func probeSaysWhenTheLongSideStandsUp() throws {
        let directory = TemporaryDirectory()
        let tall = try makeSample(in: directory, name: "tall.mp4") { $0.size = PixelSize(width: 180, height: 500) }
        let wide = try makeSample(in: directory, name: "wide.mp4") { $0.size = PixelSize(width: 500, height: 180) }
        let probe = try Self.run(["probe", tall, wide])
        let lines = probe.stdout.split(separator: "\n").filter { $0.contains("display ") }
        #expect(lines.count == 2 && lines[0].contains("ultra-wide (standing up)") && lines[1].contains("ultra-wide,"), "\(lines)")
    }

    /// A video with bars in its first half only, made by `sample --padding-until`: `probe --json` says partial,
    /// with the rect where the bars show and its share, and a poster keeps the whole frame (bars not removed).
    @Test func partialPaddingIsReportedAndNotRemoved() throws {
        let directory = TemporaryDirectory()
        let video = directory.file("partial.mp4")
        let made = try Self.run(["sample", "--out", video, "--duration", "6", "--size", "320x180", "--pillarbox",
                                 "--padding-until", "3", "--keyframe-interval", "0.5", "--preset", "ultrafast"])
        #expect(made.status == 0, "\(made.stderr)")
        let probe = try Self.run(["probe", "--json", video])
        let report = try #require((try JSONSerialization.jsonObject(with: Data(probe.stdout.utf8)) as? [[String: Any]])?.first)
        #expect(report["padding"] as? String == "partial")
        #expect(report["paddingDetected"] as? Bool == false)
        let samples = report["paddingSamples"] as? Int ?? 0
        #expect(samples >= 6)
        let partial = try #require(report["partialPadding"] as? [String: Any])
        let rect = try #require(partial["contentRect"] as? [String: Int])
        // 4:3 in a 320x180 frame: 240 wide, centred.
        let expected: [String: Int] = ["x": 40, "y": 0, "width": 240, "height": 180]
        #expect(rect == expected)
        let share = partial["share"] as? Double ?? 0
        #expect(abs(share - 0.5) <= 0.2)
        let out = directory.file("out")
        #expect(try Self.run(["poster", video, "--out", out]).status == 0)
        let manifest = try JSONDecoder().decode(VideoManifest.self,
                                                from: Data(contentsOf: URL(fileURLWithPath: out + "/partial/manifest.json")))
        let poster = try #require(manifest.poster?.files.first { $0.file == "poster.jpg" })
        #expect(poster.width == 320 && poster.height == 180)
        #expect(manifest.probe.padding == .partial)
        // Bars in part of the video are not even likely: --remove-padding force keeps them too.
        #expect(try Self.run(["poster", video, "--out", out, "--remove-padding", "force"]).status == 0)
        let forced = try JSONDecoder().decode(VideoManifest.self,
                                              from: Data(contentsOf: URL(fileURLWithPath: out + "/partial/manifest.json")))
        #expect(forced.poster?.settings["removePadding"] == "force")
        #expect(forced.poster?.files.first { $0.file == "poster.jpg" }?.width == 320)
    }

    /// `thumbnails --poster` writes both in one process, the poster with its own options; the poster's options
    /// without `--poster` are a usage error.
    @Test func thumbnailsWithPosterWriteBoth() throws {
        let directory = TemporaryDirectory()
        let good = try makeSample(in: directory)
        let out = directory.file("out")
        let run = try Self.run(["thumbnails", good, "--out", out, "--count", "3", "--poster", "--poster-widths", "100",
                                "--poster-at", "25%", "--json"])
        #expect(run.status == 0, "\(run.stderr)")
        let manifest = try JSONDecoder().decode(VideoManifest.self,
                                                from: Data(contentsOf: URL(fileURLWithPath: out + "/sample/manifest.json")))
        #expect(manifest.thumbnails?.count == 3)
        #expect(manifest.poster?.files.map(\.file).contains("poster-100.jpg") == true)
        #expect(manifest.poster?.settings["at"] == "25.0%", "\(manifest.poster?.settings ?? [:])")
        for file in ["poster-100.jpg", "thumbnails/sheet-0001.jpg"] {
            #expect(OutputLayout.isNonEmptyFile(out + "/sample/" + file), "\(file)")
        }
        #expect(run.stdout.contains("\"command\" : \"thumbnails+poster\""), "\(run.stdout)")
        let usage = try Self.run(["thumbnails", good, "--out", out, "--poster-widths", "100"])
        #expect(usage.status == 2 && usage.stderr.contains("--poster"), "\(usage.stderr)")
        for (arguments, message) in [(["--width", "160", "--widths", "160,320"], "not both"),
                                     (["--widths", "160,160"], "twice"), (["--widths", "160,4000"], "16 to 1920"),
                                     (["--max-sheet-pixels", "65501"], "at most 65500 for jpeg"),
                                     (["--max-sheet-pixels", "16384", "--format", "webp"], "at most 16383 for webp"),
                                     // A negative number is out of range (it was taken for an option: "Missing value");
                                     // a list with an empty item or a stray separator is refused, not read in part.
                                     (["--interval", "-5"], "--interval must be at least 0.001 s"),
                                     (["--count", "-1"], "--count must be at least 1"),
                                     (["--grid", "1x1x"], "grid must be CxR"), (["--widths", "160,,320"], "widths must be"),
                                     (["--manifests", ""], "manifest")] {
            let bad = try Self.run(["thumbnails", good, "--out", out] + arguments)
            #expect(bad.status == 2 && bad.stderr.contains(message), "\(arguments): \(bad.stderr)")
        }
        // Thumbnails closer than the frames mostly repeat them: said (60,000 tiles of 600 frames went unremarked).
        let close = try Self.run(["thumbnails", good, "--out", directory.file("close"), "--interval", "0.01"])
        #expect(close.status == 0 && close.stderr.contains("warning: thumbnails 0.01 s apart, closer than the video's frames"),
                "\(close.stderr)")
        // A negative time is refused as a time (it was taken for a missing value); so are a hexadecimal one (read as
        // 16 s) and an exponent.
        for command in [["poster", "--at"], ["preview", "--at"], ["thumbnails", "--poster", "--poster-at"]] {
            for time in ["-1", "0x10", "1e308"] {
                let bad = try Self.run(command + [time, good, "--out", out])
                #expect(bad.status == 2 && bad.stderr.contains("invalid frame time '\(time)'"), "\(command): \(bad.stderr)")
            }
        }
        // An --out given with a trailing slash, as the docs' examples give it, is named without a doubled one.
        let slashed = try Self.run(["poster", good, "--out", out + "/", "--widths", "160"])
        #expect(slashed.status == 0 && slashed.stderr.contains("Contact sheet: \(out)/index.html"), "\(slashed.stderr)")
        let twice = try Self.run(["poster", good, "--out", out, "--widths", "320,320"])
        #expect(twice.status == 2 && twice.stderr.contains("the widths list a width twice"), "\(twice.stderr)")
    }

    /// `--jobs N` runs the batch with N inputs in flight, as its run record says; a count out of range is a usage
    /// error that names the range, for `probe` and `lint` too.
    @Test func jobsSetsTheInputsInFlight() throws {
        let directory = TemporaryDirectory()
        let good = try makeSample(in: directory)
        let inputs = try (0..<3).map { index in
            let link = directory.file("clip-\(index).mp4")
            try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: good)
            return link
        }
        let out = directory.file("out")
        let run = try Self.run(["poster"] + inputs + ["--out", out, "--jobs", "3", "--quiet"])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(RunRecord.all(outputRoot: out).map(\.jobs) == [3])
        #expect((0..<3).allSatisfy { OutputLayout.isNonEmptyFile(out + "/clip-\($0)/poster.jpg") })
        for count in ["0", "65", "two"] {
            for command in [["poster", good, "--out", out], ["probe", good], ["lint", good]] {
                let bad = try Self.run(command + ["--jobs", count])
                #expect(bad.status == 2 && bad.stderr.contains("--jobs"), "\(command[0]) --jobs \(count): \(bad.stderr)")
            }
        }
    }

    /// The loader is opened at run time: without it the binary still starts, and says what to install, once
    /// however many inputs there are (the context starts in the background while they are probed).
    @Test func aMissingVulkanLoaderIsOneClearError() throws {
        let directory = TemporaryDirectory()
        let good = try makeSample(in: directory)
        let run = try Self.run(["thumbnails", good, good, "--out", directory.file("out")],
                               environment: ["FRAMEFARM_VULKAN_LOADER": directory.file("no-libvulkan.so.1")])
        #expect(run.status == 1)
        #expect(run.stderr.hasPrefix("framefarm: cannot open the Vulkan loader ("))
        #expect(run.stderr.contains("libvulkan1") && run.stderr.contains("mesa-vulkan-drivers"))
        #expect(run.stderr.split(separator: "\n").count == 1, "one line: \(run.stderr)")
        // No output; only the run's record, so that `report` can say why every input failed.
        let made = (try? FileManager.default.contentsOfDirectory(atPath: directory.file("out"))) ?? []
        #expect(made == [".framefarm"], "nothing but the run record written: \(made)")
        // Commands that need no GPU still work without the loader.
        let probe = try Self.run(["probe", good], environment: ["FRAMEFARM_VULKAN_LOADER": directory.file("none")])
        #expect(probe.status == 0)
    }

    /// A device asked for and not there is said once, naming what asked for it (`FRAMEFARM_GPU`, set in a job's
    /// environment, is easily forgotten), and `--json` still gets the summary, each input failed.
    @Test func aGPUThatIsNotThereNamesWhatAskedForIt() throws {
        let directory = TemporaryDirectory()
        let good = try makeSample(in: directory)
        let fromEnvironment = try Self.run(["poster", good, "--out", directory.file("a")],
                                           environment: ["FRAMEFARM_GPU": "no-such-gpu"])
        #expect(fromEnvironment.status == 1)
        #expect(fromEnvironment.stderr.hasPrefix("framefarm: FRAMEFARM_GPU=no-such-gpu: no Vulkan device matches"))
        #expect(fromEnvironment.stderr.split(separator: "\n").count == 1, "one line: \(fromEnvironment.stderr)")
        let fromFlag = try Self.run(["poster", good, "--out", directory.file("b"), "--gpu", "7", "--json"],
                                    environment: ["FRAMEFARM_GPU": "no-such-gpu"])
        #expect(fromFlag.status == 1 && fromFlag.stderr.hasPrefix("framefarm: --gpu 7: no Vulkan device matches"))
        let summary = try #require(try JSONSerialization.jsonObject(with: Data(fromFlag.stdout.utf8)) as? [String: Any])
        let inputs = try #require(summary["inputs"] as? [[String: Any]])
        #expect(summary["failed"] as? Int == 1 && inputs.first?["status"] as? String == "failed", "\(summary)")
    }

    /// An `--out` that cannot take outputs is said once, naming it and why, as a usage error, before any input.
    @Test func anOutputFolderThatCannotBeWrittenIsSaidOnce() throws {
        let directory = TemporaryDirectory()
        let good = try makeSample(in: directory)
        let file = directory.write("file", Data([1]))
        for (out, reason) in [(file, "not a folder"), (file + "/sub", "cannot be made: \(file) is not a folder")] {
            let run = try Self.run(["poster", good, "--out", out])
            #expect(run.status == 2 && run.stderr == "framefarm: --out \(out): \(reason)\n", "\(run.stderr)")
        }
    }

    /// Renders for a device from a devices file are redone when the file changes the device's figures (its
    /// pixels here), and skipped while it does not; built-in devices are recorded by id alone.
    @Test func aChangedDevicesFileRedoesItsRenders() throws {
        let directory = TemporaryDirectory()
        let good = try makeSample(in: directory) { $0.durationSeconds = 1 }
        func devicesFile(width: Int, height: Int) throws -> String {
            let device: [String: Any] = [
                "id": "lobby", "name": "Lobby", "kind": "tv", "nativePixels": ["width": width, "height": height],
                "scale": 1, "safeAreaLandscape": ["top": 0, "left": 0, "bottom": 0, "right": 0], "orientations": ["landscape"],
            ]
            return directory.write("devices.json", try JSONSerialization.data(withJSONObject: ["devices": [device]]))
        }
        let out = directory.file("out"), render = out + "/sample/preview/lobby-landscape-fit.png"
        func preview() throws -> String {
            let run = try Self.run(["preview", good, "--out", out, "--devices-file", directory.file("devices.json"),
                                    "--devices", "lobby,pip-iphone", "--modes", "fit", "--json"])
            #expect(run.status == 0, "\(run.stderr)")
            return try #require(run.stdout.firstMatch(of: #/"status" : "([a-z-]+)"/#)).1.description
        }
        _ = try devicesFile(width: 400, height: 240)
        #expect(try preview() == "done" && readImage(render).width == 400)
        #expect(try preview() == "up-to-date")
        _ = try devicesFile(width: 320, height: 200)
        #expect(try preview() == "done" && readImage(render).width == 320)
        let devices = ManifestStore.read(out + "/sample/manifest.json")?.preview?.settings["devices"] ?? ""
        #expect(devices.hasPrefix("lobby@") && devices.hasSuffix(",pip-iphone"), "\(devices)")
    }

    /// Values out of range are usage errors that say so, nothing written: a negative number was "Missing value"
    /// (taken for an option), and a negative lead, a zero duration or SAR, a pixel limit of 0 were taken.
    @Test func valuesOutOfRangeAreRefusedByName() throws {
        let directory = TemporaryDirectory()
        let video = try makeSample(in: directory) { $0.durationSeconds = 1 }
        let made = directory.file("made.mp4"), out = directory.file("out")
        let cases: [([String], String)] = [
            (["sample", "--out", made, "--fps", "-5"], "--fps must be N or N/D"),
            (["sample", "--out", made, "--black-lead", "-1"], "--black-lead must be 0 seconds or more"),
            (["sample", "--out", made, "--fade-in", "-0.5"], "--fade-in must be 0 seconds or more"),
            (["sample", "--out", made, "--black-lead", "-.5"], "--black-lead must be 0 seconds or more"),
            (["sample", "--out", made, "--blur", "-1-2"], "--blur must be FROM-TO seconds, 0 or more"),
            (["sample", "--out", made, "--duration", "0"], "--duration must be above 0"),
            (["sample", "--out", made, "--sar", "0:1"], "--sar must be N:D above 0"),
            (["sample", "--out", made, "--bframes", "-1"], "--bframes must be 0 or more"),
            (["poster", video, "--out", out, "--widths", "-5"], "widths must be at least 16 px"),
            (["preview", video, "--out", out, "--max-pixels", "0"], "a whole number of pixels, 1 or more"),
            (["probe", video, "--max-pixels", "-1"], "a whole number of pixels, 1 or more"),
        ]
        for (arguments, reason) in cases {
            let run = try Self.run(arguments)
            #expect(run.status == 2 && run.stderr.contains(reason) && !run.stderr.contains("Missing value"),
                    "\(arguments): \(run.stderr)")
        }
        #expect(!FileManager.default.fileExists(atPath: made) && !FileManager.default.fileExists(atPath: out))
    }

    /// Every option with a default says it in `--help`, as docs/commands.md does (those parsed by a transform
    /// showed none).
    @Test func helpGivesTheDefaultsTheDocsGive() throws {
        let cases: [(String, [String])] = [
            ("poster", ["(default: auto)", "(default: 1920,640,160)"]),
            ("preview", ["(default: fit,fill)", "(default: poster)", "(default: auto)"]),
            ("thumbnails", ["(default: 10x10)", "(default: auto)"]),
            ("sample", ["(default: 1280x720)"]),
            ("probe", ["(default: highest)"]),
            ("lint", ["(default: highest)"]),
        ]
        for (command, defaults) in cases {
            // ArgumentParser wraps help at the terminal's width: joined, a default split over two lines reads whole.
            let help = try Self.run([command, "--help"]).stdout.split(whereSeparator: \.isWhitespace).joined(separator: " ")
            for text in defaults { #expect(help.contains(text), "\(command) --help lacks \(text)") }
        }
    }

    /// `--verbose` says each input's time, as its help says (it said only the device); `--json` gives it too.
    @Test func verboseSaysEachInputsTime() throws {
        let directory = TemporaryDirectory()
        let video = try makeSample(in: directory) { $0.durationSeconds = 1 }
        let run = try Self.run(["poster", video, "--out", directory.file("out"), "--widths", "160", "--verbose", "--json"])
        let timing = try Regex("framefarm: \(video): done in [0-9]+\\.[0-9]{2} s\n")
        #expect(run.status == 0 && run.stderr.contains(timing), "\(run.stderr)")
        let summary = try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any]
        let seconds = ((summary?["inputs"] as? [[String: Any]])?.first?["seconds"] as? Double) ?? -1
        #expect(seconds > 0 && seconds < 600, "\(seconds)")
    }

    /// On a terminal 40 columns wide the progress bar fits in 39 (it was 70 to 80 wide, wrapping at every
    /// redraw), and a failure line clears it first rather than continuing its line.
    @Test func theProgressBarFitsTheTerminal() throws {
        let directory = TemporaryDirectory()
        let inputs = try (0..<3).map { try makeSample(in: directory, name: "v\($0).mp4") { $0.durationSeconds = 4 } }
        let bad = directory.write("bad.mp4", Data("not a video".utf8))
        let command = ([Self.executable, "thumbnails"] + inputs + [bad, "--out", directory.file("out"), "--interval", "0.5"])
            .map { "'\($0)'" }.joined(separator: " ")
        // script(1) runs it on a terminal of its own.
        let shell = Process()
        shell.executableURL = URL(fileURLWithPath: "/usr/bin/script")
        shell.arguments = ["-qfec", "stty cols 40; " + command, "/dev/null"]
        let output = Pipe()
        shell.standardOutput = output
        try shell.run()
        let seen = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        shell.waitUntilExit()
        let bars = seen.replacingOccurrences(of: "\u{1B}[K", with: "").split(whereSeparator: { $0 == "\r" || $0 == "\n" })
            .filter { $0.hasPrefix("framefarm [") }
        #expect(!bars.isEmpty && bars.allSatisfy { $0.count <= 39 }, "\(bars.map(\.count))")
        #expect(seen.contains("\r\u{1B}[Kframefarm: \(bad): not a video file"), "the failure line starts clean")
    }

    /// A devices file's mistake is one line naming the file and the place, exit 2, for `devices` and for a
    /// command that renders (it was ArgumentParser's "Error:" with the top-level usage after it).
    @Test func aDevicesFilesMistakeIsOneLine() throws {
        let directory = TemporaryDirectory()
        let good = try makeSample(in: directory) { $0.durationSeconds = 1 }
        let file = directory.write("devices.json", Data("{\"devices\": [\n".utf8))
        let expected = "framefarm: \(file): devices file: not valid JSON: line 2, column 1: the file ends where a value belongs\n"
        for arguments in [["devices", "--devices-file", file],
                          ["preview", good, "--out", directory.file("out"), "--devices-file", file]] {
            let run = try Self.run(arguments)
            #expect(run.status == 2 && run.stderr == expected, "\(arguments[0]): \(run.stderr)")
        }
        #expect(!FileManager.default.fileExists(atPath: directory.file("out")))
    }

    /// A failure is one line even for a file whose name holds a newline: control characters are written escaped.
    @Test func aFailureIsOneLineWhateverTheFileName() throws {
        let directory = TemporaryDirectory()
        let bad = directory.write("bad\nname\t.mp4", Data("not a video".utf8))
        let run = try Self.run(["poster", bad, "--out", directory.file("out"), "--quiet"])
        #expect(run.status == 1)
        #expect(run.stderr == "framefarm: \(directory.path)/bad\\nname\\t.mp4: not a video file FFmpeg can read "
                + "(Invalid data found when processing input)\n", "\(run.stderr)")
    }

    /// SIGINT once: the inputs in progress are finished and the rest are not started. Twice: quit at once. Either
    /// way the exit status is 130 and no temporary file is left.
    @Test(arguments: [1, 2]) func interruptingTheBatchStopsCleanly(signals: Int) throws {
        let directory = TemporaryDirectory()
        let inputs = try (1...4).map { index in
            try makeSample(in: directory, name: "clip\(index).mp4") { $0.durationSeconds = 20 }
        }
        let out = directory.file("out")
        let process = Self.process(["thumbnails"] + inputs + ["--out", out, "--interval", "0.1", "--json"])
        let errors = Pipe(), output = Pipe()
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        // The handlers are in place once the batch has begun writing.
        let deadline = Date().addingTimeInterval(60)
        while ((try? FileManager.default.contentsOfDirectory(atPath: out)) ?? []).isEmpty, process.isRunning,
              Date() < deadline {
            Thread.sleep(forTimeInterval: 0.005)
        }
        var stderr = ""
        for signal in 1...signals {
            kill(process.processIdentifier, SIGINT)
            // The next signal only once this one was handled: signals that arrive together are seen as one.
            while signal < signals, !stderr.contains("stopping after"),
                  case let data = errors.fileHandleForReading.availableData, !data.isEmpty {
                stderr += String(decoding: data, as: UTF8.self)
            }
        }
        stderr += String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationStatus == 130, "\(stderr)")
        let left = FileManager.default.subpaths(atPath: out)?.filter { $0.hasSuffix(".tmp") } ?? []
        #expect(left.isEmpty, "temporary files left: \(left)")
        if signals == 1 {
            #expect(stderr.contains("stopping after the inputs in progress"), "\(stderr)")
            let done = try #require(stderr.firstMatch(of: #/interrupted: (\d+) of 4 inputs done/#), "\(stderr)")
            #expect(Int(done.1)! < 4)
            // Inputs never started neither succeeded nor failed.
            struct Summary: Decodable { var succeeded: Int, failed: Int, notStarted: Int }
            let summary = try JSONDecoder().decode(Summary.self, from: output.fileHandleForReading.readDataToEndOfFile())
            #expect(summary.failed == 0 && summary.notStarted == 4 - Int(done.1)! && summary.succeeded == Int(done.1)!)
        } else {
            #expect(stderr.contains("quit at once"), "\(stderr)")
        }
    }

    @Test func batchJSONSummaryNamesEveryInput() throws {
        let directory = TemporaryDirectory()
        let good = try makeSample(in: directory)
        let broken = directory.write("broken.mp4", Data("not a video".utf8))
        let run = try Self.run(["poster", "--json", good, broken, "--out", directory.file("out"), "--widths", "160"])
        #expect(run.status == 1)
        // The documented shape of `--json`, read independently of the type that writes it.
        struct Summary: Decodable {
            struct Input: Decodable { var path: String, status: String, outputs: [String], warnings: [String] }
            var succeeded: Int, failed: Int, peakGPUMemoryBytes: Int?, inputs: [Input]
        }
        let summary = try JSONDecoder().decode(Summary.self, from: Data(run.stdout.utf8))
        #expect(summary.succeeded == 1 && summary.failed == 1)
        #expect(summary.inputs.map(\.path) == [good, broken])
        #expect(summary.inputs.map(\.status) == ["done", "failed"])
        #expect(summary.inputs[0].outputs.contains("poster.jpg"))
        // A 160-px poster's buffers: more than its own pixels, far less than a gigabyte.
        #expect((160 * 90 * 4..<(1 << 30)).contains(summary.peakGPUMemoryBytes ?? 0))
        #expect(run.stderr.contains("framefarm: \(broken): not a video file"))
        // A preview lists its renders and their review copies (fit and fill of this 16:9 video on a 16:9 TV share one).
        let preview = try Self.run(["preview", "--json", good, "--out", directory.file("out"), "--devices", "apple-tv-4k"])
        #expect(preview.status == 0, "\(preview.stderr)")
        let outputs = try JSONDecoder().decode(Summary.self, from: Data(preview.stdout.utf8)).inputs[0].outputs
        #expect(outputs.sorted() == ["manifest.json", "preview/apple-tv-4k-landscape-fill.png", "preview/apple-tv-4k-landscape-fit.png",
                                     "preview/review/apple-tv-4k-landscape-fit.jpg"], "\(outputs)")
    }

    /// `--filter` and `--linear-light` reach the GPU and the manifest: a bilinear (tent) reduction is softer than
    /// Lanczos-3; filtering light averages the pattern's fine black-and-white detail brighter than filtering the
    /// encoded values; an unknown kernel is a usage error that lists the valid ones.
    @Test func filterAndLinearLightChangeHowFramesAreScaled() throws {
        let directory = TemporaryDirectory()
        let sample = try makeSample(in: directory) { $0.size = PixelSize(width: 640, height: 360) }
        func poster(_ name: String, _ extra: [String]) throws -> (image: RGBAImage, settings: [String: String]) {
            let out = directory.file(name)
            let run = try Self.run(["poster", sample, "--out", out, "--at", "0", "--widths", "160", "--format", "png",
                                    "--quiet"] + extra)
            #expect(run.status == 0, "\(run.stderr)")
            let manifest = try JSONDecoder().decode(VideoManifest.self,
                                                    from: Data(contentsOf: URL(fileURLWithPath: out + "/sample/manifest.json")))
            return (try readImage(out + "/sample/poster-160.png"), try #require(manifest.poster).settings)
        }
        func sharpness(_ image: RGBAImage) -> Double {
            var sum = 0
            for y in 0..<image.height {
                for x in 1..<image.width { sum += abs(Int(image.pixel(x: x, y: y).green) - Int(image.pixel(x: x - 1, y: y).green)) }
            }
            return Double(sum) / Double(image.height * (image.width - 1))
        }
        func brightness(_ image: RGBAImage) -> Double {
            Double(stride(from: 1, to: image.pixels.count, by: 4).map { Int(image.pixels[$0]) }.reduce(0, +))
                / Double(image.width * image.height)
        }
        let lanczos = try poster("lanczos", [])
        let bilinear = try poster("bilinear", ["--filter", "bilinear"])
        let linear = try poster("linear", ["--linear-light"])
        #expect(lanczos.settings["filter"] == "lanczos3" && lanczos.settings["linearLight"] == "off")
        #expect(bilinear.settings["filter"] == "bilinear" && linear.settings["linearLight"] == "on")
        #expect(sharpness(bilinear.image) < sharpness(lanczos.image) * 0.95,
                "bilinear \(sharpness(bilinear.image)) vs lanczos3 \(sharpness(lanczos.image))")
        #expect(brightness(linear.image) > brightness(lanczos.image) + 1,
                "linear light \(brightness(linear.image)) vs encoded \(brightness(lanczos.image))")

        let bad = try Self.run(["poster", sample, "--out", directory.file("bad"), "--filter", "sinc"])
        #expect(bad.status == 2)
        #expect(bad.stderr.contains("catmull-rom"), "\(bad.stderr)")
    }

    /// `--version` names what a bug report needs: FrameFarm's version and the libraries it runs with, read from
    /// the libraries themselves (the FFmpeg version must match what `ffmpeg -version`'s libraries say).
    @Test func versionNamesTheLibrariesItRunsWith() throws {
        let run = try Self.run(["--version"])
        #expect(run.status == 0, "\(run.stderr)")
        let lines = run.stdout.split(separator: "\n").map(String.init)
        #expect(lines.count == 3, "\(run.stdout)")
        #expect(lines.first == "framefarm \(FrameFarmVersion.current)")
        #expect(lines.count > 1 && lines[1].hasPrefix("FFmpeg ") && lines[1].contains("libavcodec "))
        #expect(lines.count > 2 && lines[2].range(of: #"^Vulkan loader 1\.\d+\.\d+$"#, options: .regularExpression) != nil,
                "\(run.stdout)")
        let help = try Self.run([])
        #expect(help.status == 0 && help.stdout.contains("SUBCOMMANDS"), "no arguments prints the help")
    }

    /// lavapipe is opened by `framefarm` itself (deep-bound, `VulkanLoader`) before the Vulkan loader would open it,
    /// and only by a command that makes a device: `--version` asks the loader for its version and opens no driver
    /// (loading lavapipe and LLVM is 20 ms). The dynamic linker says who opened what (`LD_DEBUG=files`, into a file:
    /// on stderr it would fill the pipe).
    @Test func lavapipeIsOpenedByFrameFarmAndOnlyForADevice() throws {
        guard ProcessInfo.processInfo.environment["FRAMEFARM_TEST_CLI_PRELOAD"] == nil,
              !VulkanDrivers.lavapipeLibraries(environment: ProcessInfo.processInfo.environment).isEmpty else { return }
        let directory = TemporaryDirectory()
        func openings(_ arguments: [String], log: String) throws -> [Substring] {
            let run = try Self.run(arguments, environment: ["LD_DEBUG": "files", "LD_DEBUG_OUTPUT": directory.file(log)])
            #expect(run.status == 0, "\(run.stderr)")
            // The dynamic linker writes to LD_DEBUG_OUTPUT.<pid>.
            let logs = try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { $0.hasPrefix(log + ".") }
            return try logs.map { try String(contentsOfFile: directory.file($0), encoding: .utf8) }
                .flatMap { $0.split(separator: "\n") }
                .filter { $0.contains("libvulkan_lvp.so [0];  dynamically loaded by") }
        }
        let version = try openings(["--version"], log: "version")
        #expect(version.isEmpty, "\(version)")
        let sample = try makeSample(in: directory)
        let opened = try openings(["poster", sample, "--out", directory.file("out")], log: "poster")
        #expect(opened.count == 1 && opened[0].hasSuffix("dynamically loaded by \(Self.executable) [0]"), "\(opened)")
    }
}
