import Foundation
import Testing
@testable import FrameFarm
import FrameFarmMedia

@Suite struct ProbeTests {
    @Test func anamorphicRotatedLetterboxedVideoReportsDisplayGeometry() throws {
        let directory = TemporaryDirectory()
        let path = try makeSample(in: directory) {
            $0.size = PixelSize(width: 480, height: 360)
            $0.sampleAspectRatio = SampleAspectRatio(4, 3)
            $0.rotation = 90
            $0.letterbox = true
            $0.keyframeIntervalSeconds = 0.5
        }
        let report = try Prober.probe(paths: [path]).first!.get()
        #expect(report.codedWidth == 480 && report.codedHeight == 360)
        #expect(report.sampleAspectRatio == "4:3")
        #expect(report.rotation == 90)
        // 480 coded columns of 4:3 pixels are 640 wide; turned a quarter, the display is 360x640.
        #expect(report.displayWidth == 360 && report.displayHeight == 640)
        #expect(report.paddingDetected)
        // Letterbox bars (top/bottom in coded space) become left/right bars once turned; the picture is 640/2.39
        // (rounded to even) wide in display pixels.
        let pictureWidth = Int((640.0 / 2.39 / 2).rounded()) * 2
        #expect(abs(report.contentRect.width - pictureWidth) <= 1)
        #expect(report.contentRect.height == 640)
        #expect(abs(report.contentRect.x - (360 - pictureWidth) / 2) <= 1)
        #expect(report.aspectClass == .wide)
        // Portrait 2.39:1 video on a portrait screen: the wide class fills under the HIG policy.
        #expect(report.defaultMode == .fill)
        #expect(abs((report.keyframeIntervalSeconds ?? 0) - 0.5) < 0.05)
        #expect(abs(report.durationSeconds - 2) < 0.1)
    }

    /// NTSC DV's 720x480 at 32:27 is 16:9 exactly: its shape is reported as that, not as the 853x480 it rounds to.
    @Test func anAnamorphicShapeIsReportedExactly() throws {
        let directory = TemporaryDirectory()
        let path = try makeSample(in: directory) {
            $0.size = PixelSize(width: 720, height: 480)
            $0.sampleAspectRatio = SampleAspectRatio(32, 27)
        }
        let report = try Prober.probe(paths: [path]).first!.get()
        #expect(report.displayWidth == 853 && report.displayHeight == 480)
        let sixteenNinths = (16.0 / 9 * 10_000).rounded() / 10_000
        #expect(report.aspectRatio == sixteenNinths && report.contentAspectRatio == sixteenNinths, "\(report.aspectRatio)")
    }

    /// `sample` refuses in one line, writing nothing, what it cannot write: a rotation in a container other than
    /// MP4 and MOV, the only ones that carry a display matrix here (it wrote videos that play unturned), and a
    /// start between two frames (FFmpeg failed with "Operation not permitted").
    /// The text says what lint finds of a variable frame rate and a black opening, as the JSON does (it said
    /// neither), and nothing of them for a clean video.
    @Test func theTextSaysAVariableRateAndABlackOpening() throws {
        let directory = TemporaryDirectory()
        let variable = try makeSample(in: directory, name: "vfr.mp4") { $0.durationSeconds = 3; $0.variableFrameRate = true }
        let black = try makeSample(in: directory, name: "black.mp4") {
            $0.durationSeconds = 4
            $0.blackLeadSeconds = 2
            $0.keyframeIntervalSeconds = 1
        }
        let clean = try makeSample(in: directory, name: "clean.mp4")
        let probe = try CommandLineTests.run(["probe", variable, black, clean])
        #expect(probe.status == 0, "\(probe.stderr)")
        let texts = probe.stdout.components(separatedBy: directory.path).dropFirst()
        try #require(texts.count == 3, "\(probe.stdout)")
        let parts = Array(texts)
        #expect(parts[0].contains("variable frame rate (") && !parts[0].contains("opens on black"), "\(parts[0])")
        #expect(parts[1].contains("opens on black until 2.00 s") && !parts[1].contains("variable"), "\(parts[1])")
        #expect(!parts[2].contains("variable") && !parts[2].contains("opens on black"), "\(parts[2])")
    }

    @Test func sampleRefusesWhatItCannotWrite() throws {
        let directory = TemporaryDirectory()
        for (name, arguments, message) in [("v.ts", ["--rotation", "90"], "need an .mp4 or .mov output"),
                                           ("v.mkv", ["--rotation", "90"], "need an .mp4 or .mov output"),
                                           ("v.m3u8", ["--mirrored"], "need an .mp4 or .mov output"),
                                           ("v.mpg", ["--start-time", "3.3"], "whole number of frames: 3.28 or 3.32 at 25 fps"),
                                           // Refused by FFmpeg half-way with "Generic error in an external library".
                                           ("v.mp4", ["--size", "641x361"], "libx264 needs the size in whole chroma samples of yuv420p: 641x361 is odd"),
                                           ("v.webm", ["--encoder", "libx264"], "libx264 writes h264, which webm files do not take"),
                                           ("v.mp4", ["--preset", "fastest"], "libx264 has no preset fastest (ultrafast,"),
                                           ("v.mp4", ["--level", "4.7"], "h264 has no level 4.7 (1, 1.1,"),
                                           ("v.xyz", [], "no container FFmpeg writes is named by the extension of"),
                                           // These crashed (nil unwrapped) or wrote a data stream no player reads, exit 0.
                                           ("v.mp4", ["--pixel-format", "nv12"], "nv12 is not drawn: FrameFarm draws planar Y'CbCr"),
                                           ("v.ts", ["--encoder", "libvpx-vp9"], "libvpx-vp9 writes vp9, which mpegts files do not take"),
                                           ("v.mpg", ["--encoder", "mjpeg"], "mjpeg writes mjpeg, which mpeg files do not take"),
                                           ("v.mp4", ["--encoder", "mpeg4", "--level", "3"], "a level is set for libx264 and libx265 only"),
                                           ("v.png", [], "names a still image"),
                                           // Options that did nothing without a word.
                                           ("v.mp4", ["--fmp4"], "--fmp4 and --encrypt are for an HLS (.m3u8) output"),
                                           ("v.mp4", ["--size", "2048x720", "--letterbox"], "2048x720 is as wide already"),
                                           ("v.mp4", ["--timestamp-jump", "5:1"], "--timestamp-jump at 5.0 s is past the 1.0-s sample"),
                                           ("v.y4m", ["--encoder", "libx264"], "yuv4mpegpipe files hold raw pictures, not h264"),
                                           ("v.mp4", ["--codec-tag", "hvc1"], "the tag hvc1 names hevc, not h264"),
                                           ("v.mp4", ["--size", "640x362", "--interlaced"], "needs a height in whole chroma rows of each field"),
                                           ("v.mkv", ["--hdr", "pq", "--hdr-peak", "70000"], "--hdr-peak must be 1 to 65535")] {
            let run = try CommandLineTests.run(["sample", "--out", directory.file(name), "--duration", "1"] + arguments)
            #expect(run.status == 2 && run.stderr.contains(message), "\(name): \(run.stderr)")
            #expect(!FileManager.default.fileExists(atPath: directory.file(name)))
        }
        // What a container takes, unasked: VP9 in WebM, raw pictures in Y4M, odd sizes where the encoder takes them.
        for (name, arguments, codec) in [("v.webm", [], "vp9"), ("v.y4m", [], "rawvideo"), ("v.gif", [], "gif"),
                                         ("odd.mkv", ["--size", "7x3", "--encoder", "ffv1", "--pixel-format", "yuv420p"], "ffv1")] {
            let run = try CommandLineTests.run(["sample", "--out", directory.file(name), "--duration", "0.2",
                                                "--size", "160x90"] + arguments)
            #expect(run.status == 0, "\(name): \(run.stderr)")
            let report = try Prober.probe(paths: [directory.file(name)])[0].get()
            #expect(report.codec == codec, "\(name): \(report.codec)")
        }
        // x265 takes its level in its own parameters: level 2 was written whatever was asked.
        let hevc = try CommandLineTests.run(["sample", "--out", directory.file("h.mkv"), "--duration", "0.2", "--size", "160x90",
                                             "--encoder", "libx265", "--level", "5.1"])
        #expect(hevc.status == 0, "\(hevc.stderr)")
        #expect(try Prober.probe(paths: [directory.file("h.mkv")])[0].get().codecLevel == 5.1)
    }

    /// `sample` interrupted leaves nothing: its hidden temporary beside --out went on lying there.
    @Test func anInterruptedSampleLeavesNothing() throws {
        let directory = TemporaryDirectory()
        let process = CommandLineTests.process(["sample", "--out", directory.file("long.mp4"), "--duration", "60",
                                                "--size", "1280x720", "--preset", "medium"])
        process.standardError = FileHandle.nullDevice
        try process.run()
        let deadline = Date().addingTimeInterval(20)
        while Date() < deadline, (try FileManager.default.contentsOfDirectory(atPath: directory.path)).isEmpty {
            Thread.sleep(forTimeInterval: 0.05)
        }
        #expect(!(try FileManager.default.contentsOfDirectory(atPath: directory.path)).isEmpty, "the temporary is written")
        process.terminate()
        process.waitUntilExit()
        #expect(process.terminationStatus == 128 + SIGTERM)
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == [])
    }

    /// A stream that gives no sample aspect ratio (FFmpeg's 0:1, "unknown": a Matroska track without one, WebM DASH
    /// segments) has square pixels, as players show it, and says so.
    @Test func anUnknownSampleAspectRatioIsSquare() throws {
        let directory = TemporaryDirectory()
        let path = try makeSample(in: directory, name: "unknown.mkv") { $0.sampleAspectRatio = SampleAspectRatio(0, 1) }
        let report = try Prober.probe(paths: [path]).first!.get()
        #expect(report.sampleAspectRatio == "1:1")
        #expect(report.displayWidth == report.codedWidth && report.displayHeight == report.codedHeight)
    }

    /// Untagged colour is resolved as players resolve it, BT.709 with BT.601's matrix at SD size, and said to be
    /// assumed.
    @Test func untaggedColourIsWhatPlayersAssume() throws {
        let directory = TemporaryDirectory()
        let path = try makeSample(in: directory, name: "untagged.mp4") { $0.colorTagged = false }
        let report = try Prober.probe(paths: [path]).first!.get()
        #expect(report.colorTransfer == .bt709 && report.colorPrimaries == .bt709 && report.colorMatrix == .bt601)
        #expect(report.colorTagsMissing == ["matrix", "primaries", "transfer"])
    }

    /// MP4's index lists every packet, so the keyframe interval is read from it; Matroska's and MPEG-TS's are
    /// found by reading packets. Both must find the sample's 0.8 s.
    @Test(arguments: ["mp4", "mkv", "ts"])
    func keyframeIntervalIsTheMedianGapInEveryContainer(container: String) throws {
        let directory = TemporaryDirectory()
        let path = try makeSample(in: directory, name: "gop.\(container)") {
            $0.durationSeconds = 6
            $0.keyframeIntervalSeconds = 0.8
        }
        let report = try Prober.probe(paths: [path]).first!.get()
        #expect(abs((report.keyframeIntervalSeconds ?? 0) - 0.8) < 0.05, "\(container)")
        #expect(abs(report.durationSeconds - 6) < 0.1)
    }

    /// A recording that kept its start time: MP4, MPEG-TS and Matroska all last the 4 s of video. Matroska's
    /// Duration ends the segment's timeline, which starts at 0: it said 14 s, and a track's cues ran past the end.
    @Test(arguments: ["mp4", "mkv", "ts"])
    func aVideoStartingLateLastsItsOwnDuration(container: String) throws {
        let directory = TemporaryDirectory()
        let path = try makeSample(in: directory, name: "late.\(container)") {
            $0.durationSeconds = 4
            $0.startSeconds = 10
        }
        let report = try Prober.probe(paths: [path]).first!.get()
        #expect(abs(report.durationSeconds - 4) < 0.1, "\(container): \(report.durationSeconds) s")
    }

    /// The field order the stream declares: interlaced for the interlaced sample, progressive for the usual one.
    @Test func interlacedVideoIsReportedAsSuch() throws {
        let directory = TemporaryDirectory()
        let interlaced = try makeSample(in: directory, name: "interlaced.mp4") { $0.interlaced = true }
        let progressive = try makeSample(in: directory, name: "progressive.mp4")
        let reports = try Prober.probe(paths: [interlaced, progressive]).map { try $0.get() }
        #expect(reports.map(\.interlaced) == [true, false])
    }

    @Test func policyChangesTheDefaultMode() throws {
        let directory = TemporaryDirectory()
        let path = try makeSample(in: directory) { $0.size = PixelSize(width: 480, height: 360) }
        let hig = try Prober.probe(paths: [path], policy: .hig).first!.get()
        #expect(hig.aspectClass == .standard && hig.defaultMode == .fit)
        // 4:3 filling 16:9 crops 25% of the picture.
        #expect(try Prober.probe(paths: [path], policy: .maxCrop(percent: 30)).first!.get().defaultMode == .fill)
        #expect(try Prober.probe(paths: [path], policy: .maxCrop(percent: 20)).first!.get().defaultMode == .fit)
    }

    @Test func badInputsEachGetOneClearReasonAndTheRestGoOn() throws {
        let directory = TemporaryDirectory()
        let good = try makeSample(in: directory)
        let video = try Data(contentsOf: URL(fileURLWithPath: good))
        let cases: [(path: String, reason: String)] = [
            (directory.file("missing.mp4"), "no such file"),
            (directory.path, "is a directory"),
            (directory.write("zero.mp4", Data()), "empty"),
            (directory.write("text.mp4", Data("just some text, not a video\n".utf8)), "not a video"),
            (directory.write("random.mp4", noise(count: 4096)), "not a video"),
            (directory.write("audio.wav", wavFile()), "no video stream"),
            (directory.write("music.wav", wavFile(coverArt: try ImageEncoder().encode(RGBAImage(width: 16, height: 16), format: .jpeg))),
             "no video stream"),
            (directory.write("truncated.mp4", video.prefix(video.count / 2)), "cut short before its index"),
        ]
        let results = Prober.probe(paths: cases.map(\.path) + [good])
        for (result, expected) in zip(results, cases) {
            guard case .failure(let failure) = result else {
                Issue.record("\(expected.path) should fail")
                continue
            }
            #expect(failure.path == expected.path)
            #expect(failure.reason.contains(expected.reason), "\(failure)")
            #expect(!failure.reason.contains("\n"))
        }
        #expect((try? results.last!.get()) != nil)
    }

    /// `probe` takes its inputs as `lint` and the batch commands do: from `--inputs-from` after the arguments, and
    /// each once, URLs that differ only in their query (a token) being one input. Port 9 refuses connections, so
    /// each URL left is one failure line.
    @Test func inputsComeFromAListEachOnce() throws {
        let directory = TemporaryDirectory()
        let good = try makeSample(in: directory)
        let list = directory.write("list.txt", Data(("# the library\n\(good)\nhttp://127.0.0.1:9/a.mp4?sig=1\n"
                                                     + "http://127.0.0.1:9/a.mp4?sig=2\n\(good)\n").utf8))
        let run = try CommandLineTests.run(["probe", "--json", "--inputs-from", list, "--io-timeout", "5"])
        #expect(run.status == 1, "\(run.stderr)")
        let failures = run.stderr.split(separator: "\n")
        #expect(failures.count == 1 && failures[0].hasPrefix("framefarm: http://127.0.0.1:9/a.mp4: "), "\(run.stderr)")
        #expect(!run.stderr.contains("sig="))
        let reports = try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [[String: Any]]
        #expect(reports?.count == 1 && reports?.first?["path"] as? String == good, "\(run.stdout)")
    }
}

/// The same pseudo-random bytes in every run (a linear congruential generator), so a failure can be reproduced.
private func noise(count: Int) -> Data {
    var state: UInt32 = 2_463_534_242
    return Data((0..<count).map { _ in
        state = state &* 1_664_525 &+ 1_013_904_223
        return UInt8(truncatingIfNeeded: state >> 24)
    })
}
