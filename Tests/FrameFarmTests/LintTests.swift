import Foundation
import Testing
@testable import FrameFarm
import FrameFarmSamples

/// `framefarm lint` through the real binary: every rule has an input made here that triggers it and a clean one
/// that does not; exit codes, `--json` and the JUnit file (read by the junitparser package) are checked.
@Suite struct LintTests {
    /// The rule ids `lint --json` reports for `path`, with the exit status.
    private func lint(_ paths: [String], _ extra: [String] = []) throws -> (status: Int32, results: [[String: Any]]) {
        let run = try CommandLineTests.run(["lint", "--json"] + extra + paths)
        let results = try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [[String: Any]] ?? []
        return (run.status, results)
    }

    private func rules(_ result: [String: Any]) -> Set<String> {
        Set((result["findings"] as? [[String: Any]] ?? []).compactMap { $0["rule"] as? String })
    }

    /// A clean video raises only the informational aspect class, and passes unless infos fail the run.
    @Test func aCleanVideoPasses() throws {
        let directory = TemporaryDirectory()
        let clean = try makeSample(in: directory) {
            $0.durationSeconds = 11
            $0.keyframeIntervalSeconds = 1
        }
        // Matroska has no decode times: its packets' presentation times come in decode order, reordered by the
        // B-frames, and must not read as a variable rate or as jumps.
        let matroska = try makeSample(in: directory, name: "clean.mkv") {
            $0.durationSeconds = 11
            $0.keyframeIntervalSeconds = 1
        }
        let (status, results) = try lint([clean, matroska])
        #expect(status == 0)
        #expect(results.count == 2 && results.allSatisfy { rules($0) == ["aspect-class"] }, "\(results)")
        #expect(try lint([clean], ["--fail-on", "info"]).status == 1)
    }

    /// A GIF as FFmpeg writes it without a palette pass: an RGB picture in a palette with an ordered dither, its
    /// aspect byte read as 64:64. Its alternate rows differ (the dither), but it has no fields; it is square; and
    /// untagged RGB is sRGB to every viewer. None of that may read as interlaced, anamorphic or colour-guessed.
    @Test func aDitheredGIFIsTheSquareProgressiveRGBPictureItIs() throws {
        let directory = TemporaryDirectory()
        let gif = directory.file("dithered.gif")
        try KeyframeSeekTests.ffmpeg(["-f", "lavfi", "-i", "testsrc2=s=320x180:r=5:d=11", gif])
        let found = rules(try #require(try lint([gif]).results.first))
        #expect(found.isDisjoint(with: ["interlaced", "non-square-pixels", "color-tags-missing"]), "\(found)")
        #expect(found.contains("aspect-class"))
        let probe = try CommandLineTests.run(["probe", "--json", gif])
        let report = try #require((try JSONSerialization.jsonObject(with: Data(probe.stdout.utf8)) as? [[String: Any]])?.first)
        #expect(report["sampleAspectRatio"] as? String == "1:1" && report["combing"] == nil, "\(report)")
    }

    /// A one-keyframe clip of 1.8 s whose audio starts 1 s before it: the seek spans the video, not the audio's
    /// lead, so it stays within the 2-s limit (it was judged a 2.8-s gap).
    @Test func aSingleKeyframeSpansTheVideoNotTheAudioLead() throws {
        let directory = TemporaryDirectory()
        let late = try makeSampleWithAudioLead(in: directory, name: "late.mp4", videoSeconds: 1.8, keyframeInterval: 10,
                                               leadSeconds: 1, audio: "aac")
        let result = try #require(try lint([late]).results.first)
        #expect(!rules(result).contains("keyframe-interval"), "\(result)")
        let probe = try CommandLineTests.run(["probe", "--json", late])
        #expect(probe.stdout.contains("\"videoStartSeconds\" : 1"), "the lead is there to be left out: \(probe.stdout)")
    }

    /// Each rule's own input; the clean one above triggers none of them.
    @Test func everyRuleHasAnInputThatTriggersIt() throws {
        let directory = TemporaryDirectory()
        func sample(_ name: String, _ configure: (inout SampleOptions) -> Void) throws -> String {
            try makeSample(in: directory, name: name + ".mp4") {
                $0.durationSeconds = 11
                $0.keyframeIntervalSeconds = 1
                configure(&$0)
            }
        }
        let cases: [(path: String, rule: String)] = [
            (try sample("letterbox") { $0.letterbox = true }, "baked-in-padding"),
            (try sample("ultra-wide") { $0.size = PixelSize(width: 480, height: 160) }, "fill-crops-too-much"),
            (try sample("anamorphic") { $0.sampleAspectRatio = SampleAspectRatio(4, 3) }, "non-square-pixels"),
            (try sample("rotated") { $0.rotation = 90 }, "rotation-metadata"),
            (try sample("mirrored") { $0.mirrored = true }, "mirrored"),
            (try sample("interlaced") { $0.interlaced = true }, "interlaced"),
            (try sample("long-gop") { $0.keyframeIntervalSeconds = 12 }, "keyframe-interval"),
            (try sample("medium-gop") { $0.keyframeIntervalSeconds = 4 }, "keyframe-interval"),
            (try sample("hdr") {
                $0.pixelFormat = "yuv420p10le"
                $0.hdrTransfer = .pq
            }, "hdr-metadata-missing"),
            (try sample("short") { $0.durationSeconds = 4 }, "too-short-for-track"),
            (try Self.oddSizedY4M(in: directory), "odd-dimensions"),
            (try Self.cutShort(in: directory), "cut-short"),
            (Self.audioOnlyWAV(in: directory), "no-video-stream"),
            (directory.write("notes.mp4", Data("not a video".utf8)), "not-a-video"),
            (directory.file("gone.mp4"), "unreadable"),
            (try sample("untagged") { $0.colorTagged = false }, "color-tags-missing"),
            // Woven fields encoded as progressive, with no field flag: only the combing tells (at SD size, where
            // the sample's moving edges run long enough down the frame).
            (try sample("combed") {
                $0.size = PixelSize(width: 720, height: 576)
                $0.interlaced = true
                $0.fieldsFlagged = false
            }, "interlaced"),
            (try Self.damagedKeyframe(in: directory), "damaged-data"),
            (try sample("vfr") { $0.variableFrameRate = true }, "variable-frame-rate"),
            (try sample("black-lead") {
                $0.blackLeadSeconds = 5
                $0.fadeInSeconds = 2
            }, "black-opening"),
            (try makeSample(in: directory, name: "spliced.ts") {
                $0.durationSeconds = 11
                $0.keyframeIntervalSeconds = 1
                $0.timestampJump = (at: 4, by: 30)
            }, "timestamp-jump"),
        ]
        let (status, results) = try lint(cases.map(\.path))
        #expect(status == 1, "errors among the findings fail the run")
        #expect(results.count == cases.count)
        for (result, expected) in zip(results, cases) {
            #expect(rules(result).contains(expected.rule), "\(expected.rule): \(rules(result))")
        }
        // A keyframe every 12 s is over the 10-s error limit; every 4 s only over the 2-s warning limit.
        let severities = results.map { result in
            (result["findings"] as? [[String: Any]] ?? []).first { $0["rule"] as? String == "keyframe-interval" }?["severity"] as? String
        }
        #expect(severities[6] == "error")
        #expect(severities[7] == "warning")
        // The splice's 30-s jump lies between two keyframes a second apart: a jump, not a 31-s group of pictures.
        #expect(!rules(results[results.count - 1]).contains("keyframe-interval"), "\(results[results.count - 1])")
        // Black to 5 s, then a fade whose keyframe at 5 s is still black: the first keyframe with a picture is at 6 s.
        let black = (results[results.count - 2]["findings"] as? [[String: Any]] ?? []).first { $0["rule"] as? String == "black-opening" }
        #expect((black?["message"] as? String)?.contains("every keyframe before 6.00 s") == true, "\(black ?? [:])")
        let jump = (results.last?["findings"] as? [[String: Any]] ?? []).first { $0["rule"] as? String == "timestamp-jump" }
        #expect((jump?["message"] as? String)?.hasPrefix("timestamps jump 30.000 s at 3.9") == true, "\(jump ?? [:])")
    }

    /// A clean sample with the bytes of its keyframe at 5 s zeroed (the middle padding sample decodes it).
    /// A playlist's segment that is missing is `unreadable` (a delivery whose upload is incomplete), one whose bytes
    /// are no media is `not-a-video`: before, both were `not-a-video`.
    @Test func aPlaylistsMissingSegmentIsUnreadableAndAForeignOneNotAVideo() throws {
        let directory = TemporaryDirectory()
        for name in ["missing", "foreign"] {
            let made = try CommandLineTests.run(["sample", "--out", directory.file(name + ".m3u8"), "--duration", "4", "--size", "320x180",
                                                 "--fps", "10", "--keyframe-interval", "2", "--preset", "ultrafast"])
            #expect(made.status == 0, "\(made.stderr)")
        }
        try FileManager.default.removeItem(atPath: directory.file("missing-000.ts"))
        try Data("not a segment".utf8).write(to: URL(fileURLWithPath: directory.file("foreign-000.ts")))
        let (status, results) = try lint([directory.file("missing.m3u8"), directory.file("foreign.m3u8")])
        #expect(status == 1)
        #expect(results.map(rules) == [["unreadable"], ["not-a-video"]], "\(results)")
    }

    private static func damagedKeyframe(in directory: TemporaryDirectory) throws -> String {
        let clean = try makeSample(in: directory, name: "to-damage.mp4") {
            $0.durationSeconds = 11
            $0.keyframeIntervalSeconds = 1
        }
        var data = try Data(contentsOf: URL(fileURLWithPath: clean))
        // The index is last, so the file's bytes follow the frames: 44% to 50% of them hold 5.0 s.
        data.replaceSubrange((data.count * 44 / 100)..<(data.count / 2), with: Data(count: data.count / 2 - data.count * 44 / 100))
        return directory.write("damaged.mp4", data)
    }

    /// The delivery profiles check what their targets play, each from an input made here: `apple-hls` H.264 up to
    /// High 4.2 in MP4 or TS, HEVC up to Main 10 in MP4 as 'hvc1', 60 fps at most; `web` H.264, VP9 and AV1 in
    /// MP4 (index first) or WebM. The default profile does not run these rules at all.
    /// The findings a manifest records speak of the outputs it lists: a 4-s clip is too short for a track at the
    /// default 10 s, not for the track its `thumbnails --interval 1` made, and a folder with no track (a poster's,
    /// a preview's) says nothing of tracks (every short clip's review page warned of one).
    @Test func theManifestsFindingsSpeakOfTheTrackMade() throws {
        let directory = TemporaryDirectory()
        let clip = try makeSample(in: directory, name: "short.mp4") { $0.durationSeconds = 4 }
        func rules(_ arguments: [String]) throws -> [String] {
            let out = directory.file("out-\(arguments.count)")
            let run = try CommandLineTests.run([arguments[0], clip, "--out", out] + arguments.dropFirst())
            #expect(run.status == 0, "\(run.stderr)")
            return try #require(ManifestStore.read(out + "/short/manifest.json")).lint?.map(\.rule.rawValue) ?? []
        }
        #expect(try !rules(["poster"]).contains("too-short-for-track"))
        #expect(try rules(["thumbnails"]).contains("too-short-for-track"))
        #expect(try !rules(["thumbnails", "--interval", "1"]).contains("too-short-for-track"))
    }

    @Test func deliveryProfilesCheckCodecContainerAndFrameRate() throws {
        let directory = TemporaryDirectory()
        func sample(_ name: String, _ configure: (inout SampleOptions) -> Void = { _ in }) throws -> String {
            try makeSample(in: directory, name: name) {
                $0.keyframeIntervalSeconds = 1
                configure(&$0)
            }
        }
        let delivery: Set = ["codec", "container", "frame-rate"]
        let cases: [(path: String, appleHLS: Set<String>, web: Set<String>)] = [
            (try sample("h264.mp4"), [], ["container"]),
            (try sample("faststart.mp4") { $0.indexFirst = true }, [], []),
            (try sample("h264.ts"), [], ["container"]),
            (try sample("high444.mp4") { $0.pixelFormat = "yuv444p" }, ["codec"], ["codec", "container"]),
            (try sample("level51.mp4") { $0.level = 5.1 }, ["codec"], ["container"]),
            (try sample("fast.mp4") { $0.frameRate = (120, 1) }, ["frame-rate"], ["container"]),
            (try sample("hev1.mp4") { $0.encoder = "libx265" }, ["container"], ["codec", "container"]),
            (try sample("hvc1.mp4") {
                $0.encoder = "libx265"
                $0.codecTag = "hvc1"
                $0.indexFirst = true
            }, [], ["codec"]),
            (try sample("hevc.ts") { $0.encoder = "libx265" }, ["container"], ["codec"]),
            (try sample("vp9.webm") { $0.encoder = "libvpx-vp9" }, ["codec"], []),
            (try sample("vp9-444.webm") {
                $0.encoder = "libvpx-vp9"
                $0.pixelFormat = "yuv444p"
            }, ["codec"], ["codec"]),
            // HDR: Apple's players take it in HEVC alone (spec 1.7), browsers not in H.264; and in 8 bits it bands.
            (try sample("pq8.mp4") {
                $0.hdrTransfer = .pq
                $0.hdrPeakLuminance = 1000
                $0.indexFirst = true
            }, ["codec"], ["codec"]),
            (try sample("pq10.mp4") {
                $0.encoder = "libx265"
                $0.codecTag = "hvc1"
                $0.indexFirst = true
                $0.pixelFormat = "yuv420p10le"
                $0.hdrTransfer = .pq
                $0.hdrPeakLuminance = 1000
            }, [], ["codec"]),
        ]
        for profile in ["apple-hls", "web"] {
            let (_, results) = try lint(cases.map(\.path), ["--profile", profile])
            #expect(results.count == cases.count)
            for (result, expected) in zip(results, cases) {
                let found = rules(result).intersection(delivery)
                #expect(found == (profile == "web" ? expected.web : expected.appleHLS), "\(profile) \(expected.path): \(result)")
            }
        }
        let (_, plain) = try lint(cases.map(\.path))
        #expect(plain.allSatisfy { Set($0["rulesRun"] as? [String] ?? []).isDisjoint(with: delivery) && rules($0).isDisjoint(with: delivery) })
        // 8-bit PQ in H.264 breaks both HDR limits, each said.
        let pq8 = try lint([directory.file("pq8.mp4")], ["--profile", "apple-hls"]).results.first?["findings"] as? [[String: Any]] ?? []
        #expect(Set(pq8.filter { $0["rule"] as? String == "codec" }.compactMap { $0["message"] as? String })
                == ["PQ video in h264: the target plays HDR in hevc", "PQ video in 8 bits: HDR is played in 10 bits or more, and bands in fewer"],
                "\(pq8)")
        // A profile named as its codec names it ("Profile 1 profile" before).
        for (file, profile, message) in [("vp9-444.webm", "web", "vp9 Profile 1: the target plays vp9 in Profile 0, Profile 2"),
                                         ("high444.mp4", "apple-hls", "h264 High 4:4:4 Predictive profile: the target plays h264 in")] {
            let found = try lint([directory.file(file)], ["--profile", profile]).results.first?["findings"] as? [[String: Any]] ?? []
            #expect(found.contains { ($0["message"] as? String)?.hasPrefix(message) == true }, "\(found)")
        }
    }

    /// Each suite of a JUnit file as junitparser reads it: name, tests, failures, the failed cases, and per failed
    /// case how many `failure` elements it holds.
    private func parseJUnit(_ path: String) throws -> (lines: [String], status: Int32) {
        let script = """
            import sys, junitparser
            xml = junitparser.JUnitXml.fromfile(sys.argv[1])
            for suite in xml:
                failures = [(case.name, len([r for r in case.result if isinstance(r, junitparser.Failure)])) for case in suite]
                failed = sorted(name for name, count in failures if count)
                print(repr(suite.name), suite.tests, suite.failures, ",".join(failed), max([c for _, c in failures] + [0]))
            """
        let python = Process()
        python.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        python.arguments = ["-c", script, path]
        let output = Pipe()
        python.standardOutput = output
        try python.run()
        let printed = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        python.waitUntilExit()
        return (printed.split(separator: "\n").map(String.init), python.terminationStatus)
    }

    /// The JUnit file parses with junitparser: a suite per input, a case per rule run, failures at --fail-on. A
    /// name with a control character (no XML may hold one raw: it made the file unreadable) and a newline still
    /// parses, the newline kept.
    @Test func theJUnitReportParsesWithARealParser() throws {
        let directory = TemporaryDirectory()
        let letterbox = try makeSample(in: directory, name: "letterbox & <co>.mp4") {
            $0.durationSeconds = 11
            $0.keyframeIntervalSeconds = 1
            $0.letterbox = true
        }
        let junit = directory.file("lint.xml")
        let odd = directory.write("odd\u{01}name\nnext.mp4", Data("no".utf8))
        // A folder in the list is an input that cannot be read, not a reason to check none (it stopped the run).
        let folder = directory.file("a folder")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let run = try CommandLineTests.run(["lint", "--fail-on", "warning", "--junit", junit, letterbox,
                                            directory.write("broken.mp4", Data("no".utf8)), odd,
                                            "--inputs-from", directory.write("list.txt", Data(folder.utf8))])
        #expect(run.status == 1, "\(run.stderr)")
        let (lines, status) = try parseJUnit(junit)
        #expect(status == 0, "junitparser refused the file")
        #expect(lines.count == 4)
        #expect(lines.last == "'\(folder)' 3 1 unreadable 1", "\(lines)")
        // 2.39:1 content also crops 26% in fill on a 16:9 phone.
        #expect(lines.first == "'\(letterbox)' \(LintSettings().rules.count) 2 baked-in-padding,fill-crops-too-much 1")
        #expect(lines.dropFirst().first == "'\(directory.file("broken.mp4"))' 3 1 not-a-video 1")
        #expect(lines.dropFirst(2).first == "'\(directory.path)/odd\\\\x01name\\nnext.mp4' 3 1 not-a-video 1", "\(lines)")
    }

    /// Two findings of one rule fail its testcase once (Ant's schema allows one `failure` a testcase, and CI servers
    /// show only the first), with both in its text; the suite counts failed testcases.
    @Test func aRuleWithTwoFindingsFailsItsTestcaseOnce() throws {
        let directory = TemporaryDirectory()
        let result = LintResult(path: "two.mp4", rulesRun: [.container, .codec],
                                findings: [LintFinding(.container, .warning, "first"), LintFinding(.container, .error, "second")])
        let junit = directory.write("two.xml", Data(LintJUnitWriter.document([result], failOn: .warning).utf8))
        let (lines, status) = try parseJUnit(junit)
        #expect(status == 0)
        #expect(lines == ["'two.mp4' 2 1 container 1"])
        let xml = try String(contentsOfFile: junit, encoding: .utf8)
        #expect(xml.contains("<failure type=\"error\" message=\"first (and 1 more)\">warning: first&#10;error: second</failure>"), "\(xml)")
    }

    /// A bad --fail-on is a usage error (exit 2), with one line naming it.
    @Test func usageErrorsExitTwo() throws {
        let run = try CommandLineTests.run(["lint", "--fail-on", "fatal", "x.mp4"])
        #expect(run.status == 2)
        #expect(run.stderr.contains("fail-on"))
        #expect(try CommandLineTests.run(["lint", "--inputs-from", "/nonexistent/list.txt"]).status == 2)
        // A list that names nothing fails, in one line, rather than pass a delivery nobody checked.
        let directory = TemporaryDirectory()
        let empty = try CommandLineTests.run(["lint", "--inputs-from", directory.write("empty.txt", Data("# none\n\n".utf8))])
        #expect(empty.status == 2 && empty.stderr == "framefarm: no inputs: \(directory.file("empty.txt")) lists none\n", "\(empty.stderr)")
    }

    /// A printed profile is a policy file that reads back to that profile's settings; apple-hls holds keyframes
    /// to its 2-s guidance and a 6-s segment, where the default profile allows 10 s.
    @Test func profilesPrintAsPoliciesThatReadBack() throws {
        for profile in LintProfile.allCases {
            let printed = try CommandLineTests.run(["lint", "--print-profile", profile.rawValue])
            #expect(printed.status == 0)
            let read = try LintPolicy.settings(parsing: printed.stdout, file: "printed.json")
            #expect(read == profile.settings, "\(profile)")
        }
        let directory = TemporaryDirectory()
        let sparse = try makeSample(in: directory) {
            $0.durationSeconds = 22
            $0.keyframeIntervalSeconds = 7
        }
        func severity(_ results: [[String: Any]]) -> String? {
            (results.first?["findings"] as? [[String: Any]])?.first { $0["rule"] as? String == "keyframe-interval" }?["severity"] as? String
        }
        let plain = try lint([sparse])
        #expect(plain.status == 0 && severity(plain.results) == "warning")
        let hls = try lint([sparse], ["--profile", "apple-hls"])
        #expect(hls.status == 1 && severity(hls.results) == "error")
    }

    /// A policy file turns rules off (they no longer run), changes severities and thresholds; what it gets wrong
    /// is a usage error naming the file, the line and the rule.
    @Test func aPolicyFileSetsRulesAndItsMistakesNameTheLine() throws {
        let directory = TemporaryDirectory()
        let short = try makeSample(in: directory) {
            $0.durationSeconds = 6
            $0.keyframeIntervalSeconds = 3
        }
        let policy = directory.write("policy.json", Data("""
            {
              "rules": {
                "too-short-for-track": {"enabled": false},
                "aspect-class": {"severity": "error"},
                "keyframe-interval": {"warningSeconds": 4}
              }
            }
            """.utf8))
        let (status, results) = try lint([short], ["--policy-file", policy])
        #expect(status == 1)
        #expect(rules(results[0]) == ["aspect-class"], "\(results)")
        let rulesRun = results[0]["rulesRun"] as? [String] ?? []
        #expect(!rulesRun.contains("too-short-for-track") && rulesRun.contains("keyframe-interval"))
        #expect((results[0]["findings"] as? [[String: Any]])?.first?["severity"] as? String == "error")
        let mistakes: [(String, String)] = [
            ("{\n  \"rules\": {\n    \"keyframe-intervals\": {}\n  }\n}", ":3: unknown rule \"keyframe-intervals\""),
            ("{\n  \"rules\": {\n\n    \"fill-crops-too-much\": {\"percent\": 140}\n  }\n}", ":4: rule \"fill-crops-too-much\": percent"),
            ("{\"rules\": {\"interlaced\": {\"enabled\": 0}}}", ":1: rule \"interlaced\": enabled must be true or false"),
            ("{\"rules\": {\"mirrored\": {\"threshold\": 3}}}", ":1: rule \"mirrored\": unknown key \"threshold\""),
            ("{\"profile\": \"web-2\"}", ":1: unknown profile"),
            ("{\"rules\": {\"codec\": {\"allowed\": {\"h264\": {\"maxLevel\": \"4.2\"}}}}}",
             ":1: rule \"codec\": allowed \"h264\" maxLevel must be one of h264's levels: 1, 1.1, 1.2"),
            // No such level, and a codec whose level is never read: both would pass anything without a word.
            ("{\"rules\": {\"codec\": {\"enabled\": true, \"allowed\": {\"h264\": {\"maxLevel\": 4.7}}}}}",
             ":1: rule \"codec\": allowed \"h264\" maxLevel must be one of h264's levels: 1, 1.1, 1.2, 1.3, 2, 2.1"),
            ("{\"rules\": {\"codec\": {\"enabled\": true, \"allowed\": {\"mpeg2video\": {\"maxLevel\": 4}}}}}",
             ":1: rule \"codec\": allowed \"mpeg2video\" maxLevel: levels are read for av1, h264, hevc, vp9 only"),
            ("[1, 2]", ": not a JSON object"),
            // Names FFmpeg does not use, which would fail every input as what the target plays.
            ("{\"rules\": {\"codec\": {\"enabled\": true, \"allowed\": {\"h265\": {}}}}}",
             ":1: rule \"codec\": unknown codec \"h265\""),
            ("{\"rules\": {\"codec\": {\"enabled\": true, \"allowed\": {\"h264\": {\"profiles\": [\"Hihg\"]}}}}}",
             ":1: rule \"codec\": unknown h264 profile \"Hihg\" (FFmpeg names h264's Baseline, Constrained Baseline, Main"),
            ("{\"rules\": {\"container\": {\"enabled\": true, \"containers\": {\"h264\": [\"mp5\"]}}}}",
             ":1: rule \"container\": unknown container \"mp5\""),
            // A rule that would pass everything, and limits for a rule left off.
            ("{\"rules\": {\"frame-rate\": {\"enabled\": true}}}",
             ":1: rule \"frame-rate\": enabled with no limits, it would pass every input: give max"),
            ("{\"rules\": {\"frame-rate\": {\"max\": 30}}}",
             ":1: rule \"frame-rate\": limits given to a disabled rule, which does not run: add \"enabled\": true"),
        ]
        for (index, (text, expected)) in mistakes.enumerated() {
            let file = directory.write("bad\(index).json", Data(text.utf8))
            let run = try CommandLineTests.run(["lint", "--policy-file", file, short])
            #expect(run.status == 2 && run.stderr.contains(file + expected), "\(run.stderr)")
        }
        // Real names and limits read, a profile's rule switched off with its limits left in is what it says.
        let named = directory.write("named.json", Data("""
            {"profile": "apple-hls", "rules": {"codec": {"enabled": true, "allowed": {"hevc": {"profiles": ["Main 10"]}}},
             "container": {"enabled": false, "containers": {"h264": ["mpegts"]}}, "frame-rate": {"max": 30}}}
            """.utf8))
        let (namedStatus, namedResults) = try lint([short], ["--policy-file", named])
        #expect(namedStatus == 1 && rules(namedResults[0]).contains("codec") && !rules(namedResults[0]).contains("container"),
                "\(namedResults)")
    }

    /// 4:2:0 Y4M with an odd width (FFmpeg reads it; encoders refuse to make one).
    static func oddSizedY4M(in directory: TemporaryDirectory) throws -> String {
        let (width, height) = (321, 180)
        var data = Data("YUV4MPEG2 W\(width) H\(height) F25:1 Ip A1:1 C420jpeg\n".utf8)
        for _ in 0..<3 {
            data.append(contentsOf: Array("FRAME\n".utf8))
            data.append(Data(repeating: 120, count: width * height))
            data.append(Data(repeating: 128, count: 2 * ((width + 1) / 2) * (height / 2)))
        }
        return directory.write("odd.y4m", data)
    }

    /// An MP4 with its index first, cut to half its length (a download cut short).
    static func cutShort(in directory: TemporaryDirectory) throws -> String {
        let whole = try makeSample(in: directory, name: "whole.mp4") {
            $0.durationSeconds = 11
            $0.keyframeIntervalSeconds = 1
            $0.indexFirst = true
        }
        let data = try Data(contentsOf: URL(fileURLWithPath: whole))
        return directory.write("cut.mp4", data.prefix(data.count / 2))
    }

    /// One second of silence as 16-bit mono PCM WAV: a file FFmpeg reads, with no video stream.
    static func audioOnlyWAV(in directory: TemporaryDirectory) -> String {
        let samples = 8000
        func le32(_ value: Int) -> [UInt8] { (0..<4).map { UInt8((value >> (8 * $0)) & 0xff) } }
        func le16(_ value: Int) -> [UInt8] { (0..<2).map { UInt8((value >> (8 * $0)) & 0xff) } }
        var bytes = Array("RIFF".utf8) + le32(36 + 2 * samples) + Array("WAVEfmt ".utf8) + le32(16) + le16(1) + le16(1)
        bytes += le32(8000) + le32(16000) + le16(2) + le16(16) + Array("data".utf8) + le32(2 * samples)
        bytes += [UInt8](repeating: 0, count: 2 * samples)
        return directory.write("silence.wav", Data(bytes))
    }
}

/// `lint` and `probe` print a line per finding and a path per report: a newline or a right-to-left override in a
/// file's name is written escaped, as on stderr, so that a script reads each line whole and a person reads it as
/// written. Before, such a name split a finding over two lines, or showed the rest of its line reversed.
@Suite struct TextOutputNameTests {
    @Test func oddNamesKeepTheirLinesWhole() throws {
        let directory = TemporaryDirectory()
        let odd = try makeSample(in: directory, name: "two\nlines\u{202E}.mp4") { $0.durationSeconds = 1 }
        let shown = directory.path + "/two\\nlines\\u{202E}.mp4"
        let lint = try CommandLineTests.run(["lint", odd])
        let lines = lint.stdout.split(separator: "\n")
        #expect(lines.count >= 2 && lines.dropLast().allSatisfy { $0.hasPrefix(shown + ": ") }, "\(lint.stdout)")
        let probe = try CommandLineTests.run(["probe", odd])
        #expect(probe.status == 0 && probe.stdout.hasPrefix(shown + "\n") && !probe.stdout.contains("\u{202E}"), "\(probe.stdout)")
    }
}
