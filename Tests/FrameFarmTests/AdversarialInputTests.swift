import Foundation
import FrameFarmMedia
import Testing
@testable import FrameFarm

/// The hostile-input corpus, generated here (nothing binary is committed). Each case states its expected
/// outcome: the error it must give, or the facts it must produce.
@Suite struct AdversarialInputTests {
    private func probe(_ path: String, maxPixels: Int = 8192 * 8192) -> Result<ProbeReport, InputFailure> {
        Prober.probe(paths: [path], maxPixels: maxPixels)[0]
    }

    private func expectFailure(_ path: String, containing reason: String, maxPixels: Int = 8192 * 8192,
                               sourceLocation: SourceLocation = #_sourceLocation) {
        switch probe(path, maxPixels: maxPixels) {
        case .success: Issue.record("\(path) should fail with '\(reason)'", sourceLocation: sourceLocation)
        case .failure(let failure):
            #expect(failure.reason.contains(reason), "\(failure)", sourceLocation: sourceLocation)
        }
    }

    private func thumbnails(_ path: String, out: String, _ configure: (inout ThumbnailOptions) -> Void = { _ in })
        throws -> (cues: [ThumbnailTests.Cue], folder: String, warnings: [String]) {
        try ThumbnailTests.track(path, out: out, configure: configure)
    }

    @Test(arguments: [0, 90, 180, 270], [false, true])
    func mirroredDisplayMatricesProbeAsMirrored(rotation: Int, mirrored: Bool) throws {
        let directory = TemporaryDirectory()
        let path = try makeSample(in: directory) {
            $0.durationSeconds = 0.2
            $0.rotation = rotation
            $0.mirrored = mirrored
        }
        let report = try probe(path).get()
        #expect(report.rotation == rotation && report.mirrored == mirrored)
        let turned = rotation % 180 != 0
        #expect(report.displayWidth == (turned ? 180 : 320) && report.displayHeight == (turned ? 320 : 180))
    }

    /// The frame code is not symmetric, so it reads back only when the mirror is undone: tiles are mirrored
    /// (before the turn), not just turned.
    @Test(arguments: [0, 90, 180, 270])
    func mirroredVideosGiveMirroredTilesOfTheRightFrame(rotation: Int) throws {
        let directory = TemporaryDirectory()
        let path = try makeSample(in: directory) {
            $0.durationSeconds = 1
            $0.rotation = rotation
            $0.mirrored = true
        }
        let (cues, folder, _) = try thumbnails(path, out: directory.file("out")) { $0.spacing = .interval(0.5) }
        #expect(cues.count == 2)
        let sheet = try readImage(folder + cues[0].file)
        for cue in cues {
            let rect = cue.rect
            let turned = rotation % 180 != 0
            let codedWidth = turned ? rect.height : rect.width, codedHeight = turned ? rect.width : rect.height
            // Reads the code in the picture's own orientation: where coded pixel (x, y) lands once mirrored (or
            // not), then turned clockwise.
            func code(undoingMirror: Bool) -> Int? {
                FrameCode.read(width: codedWidth, height: codedHeight) { x, y in
                    let x = undoingMirror ? codedWidth - 1 - x : x
                    let (column, row) = switch rotation {
                    case 90: (codedHeight - 1 - y, x)
                    case 180: (codedWidth - 1 - x, codedHeight - 1 - y)
                    case 270: (y, codedWidth - 1 - x)
                    default: (x, y)
                    }
                    return sheet.luma(x: rect.x + column, y: rect.y + row)
                }
            }
            let expected = Int((cue.start * 25 + 1e-6).rounded(.down))
            #expect(code(undoingMirror: true) == expected, "rotation \(rotation) at \(cue.start) s")
            #expect(code(undoingMirror: false) != expected, "rotation \(rotation) at \(cue.start) s: not mirrored")
        }
    }

    /// An hour at 1 fps in 16x16: what a long video costs is its frames, not its length. The track covers the
    /// whole hour and each tile shows the frame on screen at its cue (the sample has one at every whole second).
    @Test func anHourLongTinyVideoGetsItsWholeTrack() throws {
        let directory = TemporaryDirectory()
        let path = try makeSample(in: directory, name: "hour.mp4") {
            $0.size = PixelSize(width: 16, height: 16)
            $0.frameRate = (1, 1)
            $0.durationSeconds = 3600
        }
        #expect(abs(try probe(path).get().durationSeconds - 3600) < 0.01)
        let out = directory.file("out")
        // At 16x16 the clock's black backing covers the top rows of every frame, which is padding by the
        // detector's rule; cropping it would move the code band, so tiles show the whole frame.
        let (cues, folder, _) = try thumbnails(path, out: out) { $0.removePadding = .off }
        // The default interval, 10 s, over 3600 s: 360 cues on four 10x10 sheets (the last one 6 rows).
        #expect(cues.count == 360)
        #expect(cues.map(\.start) == (0..<360).map { Double($0 * 10) })
        #expect(cues.last?.end == 3600)
        let sheetFiles = (1...4).map { String(format: "sheet-%04d.jpg", $0) }
        #expect(Set(cues.map(\.file)) == Set(sheetFiles))
        for (index, file) in sheetFiles.enumerated() {
            let sheet = try readImage(folder + file)
            let tiles = cues.filter { $0.file == file }
            #expect(tiles.count == (index < 3 ? 100 : 60))
            #expect(sheet.width == 1600 && sheet.height == 160 * (index < 3 ? 10 : 6))
            #expect(tiles.allSatisfy { $0.rect.size == PixelSize(width: 160, height: 160) })
            #expect(tiles.allSatisfy { PixelRect(size: sheet.size).contains($0.rect) })
            #expect(Set(tiles.map(\.rect)).count == tiles.count, "two tiles in one place")
            // One frame a second: the frame on screen at a cue is numbered by its start.
            #expect(tiles.map { sheet.frameCode(in: $0.rect) } == tiles.map { Int($0.start) }, "\(file)")
        }
        let playlist = try String(contentsOfFile: folder + "thumbnails.m3u8", encoding: .utf8)
        let segments = playlist.split(separator: "\n").filter { $0.hasPrefix("#EXTINF:") }
            .map { Double($0.dropFirst(8).dropLast())! }
        #expect(segments == [1000, 1000, 1000, 600])
        let manifest = try #require(ManifestStore.read(out + "/hour/manifest.json"))
        #expect(manifest.thumbnails?.frameTimes == cues.map(\.start))
    }

    /// Two 3-second MPEG-TS samples concatenated, as `cat` joins recordings: the second's timestamps start at
    /// `secondStart` and its frames are numbered on from the first's (75 ...), so every tile says which part
    /// and which frame it shows. Returns the joined file, the frame codes read from its tiles by cue start, and
    /// the thumbnails' warnings.
    private func joinedTransportStreams(firstStart: Double, secondStart: Double, in directory: TemporaryDirectory)
        throws -> (path: String, tiles: [(start: Double, code: Int?)], warnings: [String]) {
        func part(_ name: String, start: Double, firstFrame: Int) throws -> Data {
            let path = try makeSample(in: directory, name: name) {
                $0.durationSeconds = 3
                $0.keyframeIntervalSeconds = 1
                $0.startSeconds = start
                $0.firstFrameNumber = firstFrame
            }
            return try Data(contentsOf: URL(fileURLWithPath: path))
        }
        let joined = directory.write("joined.ts", try part("first.ts", start: firstStart, firstFrame: 0)
            + part("second.ts", start: secondStart, firstFrame: 75))
        let (cues, folder, warnings) = try thumbnails(joined, out: directory.file("out")) { $0.spacing = .interval(0.5) }
        let codes = try ThumbnailTests.frameNumbers(cues, folder: folder)
        return (joined, zip(cues, codes).map { ($0.start, $1) }, warnings)
    }

    /// Timestamps are taken as the container gives them, as ffprobe and a player's seek bar do: a jump forward
    /// is a stretch where the last frame before it stays on screen.
    @Test func aTimestampJumpForwardIsAHeldFrame() throws {
        let directory = TemporaryDirectory()
        let (path, tiles, warnings) = try joinedTransportStreams(firstStart: 0, secondStart: 30, in: directory)
        #expect(abs(try probe(path).get().durationSeconds - 33) < 0.05)
        #expect(tiles.map(\.start) == (0..<66).map { Double($0) / 2 })
        for (start, code) in tiles {
            let expected = start < 3 ? Int(start * 25) : start < 30 ? 74 : 75 + Int((start - 30) * 25)
            #expect(code == expected, "at \(start) s")
        }
        // The parts' continuity counters don't follow on at the seam, which the demuxer flags as damage: one
        // packet at the seam, however many of the seeks into the gap read it again.
        #expect(warnings.count == 1)
        #expect(warnings.allSatisfy { $0.hasPrefix("damaged data at 2.9") && $0.contains(": 1 packet(s)") },
                "\(warnings)")
    }

    /// After a jump back, time is still read from the first timestamp on: frames stamped before it (the whole
    /// second part here) are not on the timeline, and the first part's tiles are exact.
    @Test func framesStampedBeforeTheFirstTimestampAreOffTheTimeline() throws {
        let directory = TemporaryDirectory()
        let (path, tiles, _) = try joinedTransportStreams(firstStart: 10, secondStart: 0, in: directory)
        #expect(abs(try probe(path).get().durationSeconds - 3) < 0.05)
        #expect(tiles.map(\.start) == (0..<6).map { Double($0) / 2 })
        #expect(tiles.map(\.code) == tiles.map { Int($0.start * 25) })
    }

    /// When a jump back makes times repeat, a tile shows one of the frames stamped at its time, from either part,
    /// and never anything else.
    @Test func repeatedTimestampsShowAFrameOfThatTime() throws {
        let directory = TemporaryDirectory()
        let (path, tiles, _) = try joinedTransportStreams(firstStart: 0, secondStart: 1, in: directory)
        #expect(abs(try probe(path).get().durationSeconds - 4) < 0.05)
        #expect(tiles.map(\.start) == (0..<8).map { Double($0) / 2 })
        for (start, code) in tiles {
            let first = start < 3 ? Int(start * 25) : nil, second = start >= 1 ? 75 + Int((start - 1) * 25) : nil
            #expect(code != nil && (code == first || code == second), "at \(start) s: \(String(describing: code))")
        }
    }

    @Test func truncatedTransportStreamsGiveWhatTheyHave() throws {
        let directory = TemporaryDirectory()
        let path = try makeSample(in: directory, name: "whole.ts") { $0.durationSeconds = 4; $0.keyframeIntervalSeconds = 1 }
        let data = try Data(contentsOf: URL(fileURLWithPath: path))
        for percent in [10, 50, 90] {
            let cut = directory.write("cut\(percent).ts", data.prefix(data.count * percent / 100))
            let report = try probe(cut).get()
            // The duration comes from the last timestamp that survived.
            #expect(report.durationSeconds > 0 && report.durationSeconds <= 4.1, "\(percent)%: \(report.durationSeconds)")
        }
    }

    /// The muxer writes the index last: a copy cut short has no index, and says so.
    @Test func anMP4CutShortBeforeItsIndexSaysSo() throws {
        let directory = TemporaryDirectory()
        let path = try makeSample(in: directory)
        let data = try Data(contentsOf: URL(fileURLWithPath: path))
        for percent in [10, 50, 90] {
            expectFailure(directory.write("cut\(percent).mp4", data.prefix(data.count * percent / 100)),
                          containing: "cut short before its index was written")
        }
    }

    /// A web MP4 (index first) cut short, as an interrupted download leaves it: probe says where its data stops,
    /// every command goes on, and what lies past the cut shows the last frame (or keyframe) before it, with a
    /// warning that says so.
    @Test func anMP4CutShortAfterItsIndexShowsWhatItHolds() throws {
        let directory = TemporaryDirectory()
        let whole = try makeSample(in: directory, name: "whole.mp4") {
            $0.durationSeconds = 4
            $0.keyframeIntervalSeconds = 1
            $0.indexFirst = true
        }
        #expect(try probe(whole).get().cutShortAtSeconds == nil)
        let data = try Data(contentsOf: URL(fileURLWithPath: whole))
        let path = directory.write("cut.mp4", data.prefix(data.count * 6 / 10))
        // Where the frames stop, read one after another: the cut the index gives is the next frame's time. A
        // frame-threaded decoder reports the packet the cut goes through when its frame is due: that read goes on too.
        func lastFrameTime(threads: Int) throws -> Double? {
            let reader = try FrameReader(path: path, threads: threads)
            var lastTime: Double?
            while let frame = try reader.nextFrame() { lastTime = frame.timeSeconds }
            return lastTime
        }
        let held = try #require(try lastFrameTime(threads: 1))
        #expect(try lastFrameTime(threads: 4) == held)
        let cut = try #require(try probe(path).get().cutShortAtSeconds)
        #expect(held > 1 && held < 3.5 && cut >= held - 1e-6 && cut <= held + 1.0 / 25 + 1e-3, "cut \(cut), last frame \(held)")
        let lastBeforeCut = Int(((cut - 1e-3) * 25).rounded(.down))

        for seek in [SeekMode.exact, .keyframe] {
            let (cues, folder, warnings) = try thumbnails(path, out: directory.file("out-\(seek)")) {
                $0.spacing = .interval(0.5)
                $0.seek = seek
            }
            #expect(cues.count == 8)
            let expected = cues.map { cue in
                let number = min(Int((cue.start * 25 + 1e-6).rounded(.down)), lastBeforeCut)
                return seek == .exact ? number : number / 25 * 25  // a keyframe every second
            }
            #expect(try ThumbnailTests.frameNumbers(cues, folder: folder) == expected, "\(seek)")
            // The first cue whose own frame is past the last one the file holds: the first that holds that frame.
            let firstPast = try #require(cues.first { Int(($0.start * 25 + 1e-6).rounded(.down)) > lastBeforeCut }).start
            #expect(warnings.contains { $0.hasPrefix("cut short: video data stops at about")
                && $0.contains(String(format: "thumbnails from %.3f s on show the last", firstPast)) }, "\(warnings)")
        }

        var options = PreviewOptions()
        options.devices = [DeviceCatalog.builtIn.device(id: "pip-iphone")!]
        options.frame = .percent(90)
        let summary = PreviewJob.run(inputs: [path], outputRoot: directory.file("out-preview"), options: options,
                                     gpu: SharedGPU.service)
        #expect(summary.failed == 0, "\(summary.failures)")
        let manifest = try #require(ManifestStore.read(directory.file("out-preview/cut/manifest.json")))
        #expect(abs(try #require(manifest.preview).frameTimeSeconds - Double(lastBeforeCut) / 25) < 1e-3)
        #expect(manifest.probe.cutShortAtSeconds == cut)
        let warnings = summary.inputs[0].warnings.map(\.description)
        #expect(warnings.contains { $0.contains("the frame at 3.600 s was asked for") }, "\(warnings)")
        #expect(!warnings.contains { $0.hasPrefix("damaged data") }, "the packet cut through is the cut's: \(warnings)")
    }

    /// Damage before the frame shown, in its GOP, may show in it (concealed, then carried by prediction): the
    /// preview says so; one of a frame before the damage does not.
    @Test func aPreviewPastDamagedDataInItsGOPWarns() throws {
        let directory = TemporaryDirectory()
        let path = try makeSample(in: directory) { $0.durationSeconds = 4; $0.keyframeIntervalSeconds = 4 }
        var data = try Data(contentsOf: URL(fileURLWithPath: path))
        // The index is last: the middle of the file is the middle of the frames, around 2 s.
        let middle = data.count / 2
        data.replaceSubrange(middle..<(middle + data.count / 20), with: Data(count: data.count / 20))
        let damaged = directory.write("damaged.mp4", data)
        var options = PreviewOptions()
        options.devices = [DeviceCatalog.builtIn.device(id: "pip-iphone")!]
        for (time, warns) in [(3.5, true), (0.5, false)] {
            options.frame = .seconds(time)
            let summary = PreviewJob.run(inputs: [damaged], outputRoot: directory.file("out"), options: options,
                                         gpu: SharedGPU.service, force: true)
            #expect(summary.failed == 0, "\(summary.failures)")
            let warnings = summary.inputs[0].warnings.map(\.description)
            #expect(warnings.contains { $0.hasPrefix("damaged data") && $0.hasSuffix("on the way to the frame shown, which may show it") } == warns,
                    "at \(time) s: \(warnings)")
        }
    }

    /// Matroska recorded live (or piped) states no duration: the last packet gives it, read on past the first
    /// scan's 3000 packets, plus that frame's own time (100 frames at 25 fps last 4 s, not 3.96).
    @Test(arguments: [(4.0, 25), (31.0, 100)])
    func aStreamWithoutADurationLastsToItsLastFrame(seconds: Double, rate: Int) throws {
        let directory = TemporaryDirectory()
        let path = try makeSample(in: directory, name: "live.mkv") {
            $0.size = PixelSize(width: 64, height: 36)
            $0.frameRate = (rate, 1)
            $0.durationSeconds = seconds
            $0.liveStream = true
        }
        let report = try probe(path).get()
        #expect(abs(report.durationSeconds - seconds) < 1e-6, "\(report.durationSeconds)")
    }

    @Test func aFileWithNoStreamsHasNoVideoStream() {
        let directory = TemporaryDirectory()
        expectFailure(directory.write("metadata.txt", Data(";FFMETADATA1\ntitle=nothing here\n".utf8)),
                      containing: "no video stream")
    }

    @Test func aHeaderClaiming60000SquaredIsRefusedBeforeAllocation() {
        let directory = TemporaryDirectory()
        // YUV4MPEG2 stream headers and the start of one frame. 60000x60000 is past what FFmpeg itself accepts;
        // 9000x9000 is within FFmpeg's limits and is refused by --max-pixels (default 8192x8192).
        func y4m(_ side: Int) -> Data { Data("YUV4MPEG2 W\(side) H\(side) F25:1 Ip A1:1 C420jpeg\nFRAME\n".utf8) + Data(count: 4096) }
        expectFailure(directory.write("huge.y4m", y4m(60000)), containing: "not a video file")
        expectFailure(directory.write("big.y4m", y4m(9000)), containing: "frame size 9000x9000 exceeds the limit of 67108864 pixels")
        expectFailure(directory.write("big.y4m", y4m(9000)), containing: "no frame could be decoded", maxPixels: 9000 * 9000)
        // A PNG whose IHDR claims the same: refused by the decoder's own size check, clearly and without a crash.
        // A PNG signature and an IHDR chunk claiming 60000x60000 RGB, and nothing else.
        var png = Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0, 13])
        png.append(contentsOf: Array("IHDR".utf8))
        for value in [UInt32(60000), UInt32(60000)] { withUnsafeBytes(of: value.bigEndian) { png.append(contentsOf: $0) } }
        png.append(contentsOf: [8, 2, 0, 0, 0, 0, 0, 0, 0])
        expectFailure(directory.write("huge.png", png), containing: "no frame could be decoded")
    }

    @Test func stillImagesAreOneFrameVideos() throws {
        let directory = TemporaryDirectory()
        let image = RGBAImage(width: 64, height: 48, fill: (200, 40, 40, 255))
        let path = directory.write("still.png", try ImageEncoder().encode(image, format: .png))
        let report = try probe(path).get()
        #expect(report.displayWidth == 64 && report.displayHeight == 48)
        #expect(!report.paddingDetected)
    }

    @Test(arguments: [(1, 1), (2, 2), (1, 400), (7, 3), (33, 17)])
    func tinyAndOddSizesProbe(width: Int, height: Int) throws {
        let directory = TemporaryDirectory()
        let path = try makeSample(in: directory, name: "odd.mkv") {
            $0.size = PixelSize(width: width, height: height)
            $0.durationSeconds = 0.2
            $0.encoder = "ffv1"
            $0.pixelFormat = "yuv420p"
        }
        let report = try probe(path).get()
        #expect(report.displayWidth == width && report.displayHeight == height)
    }

    @Test(arguments: [(0, 1), (1000, 1), (1, 1000)])
    func unknownOrAbsurdSampleAspectRatiosCountAsSquare(numerator: Int, denominator: Int) throws {
        let directory = TemporaryDirectory()
        let path = try makeSample(in: directory, name: "sar.mkv") {
            $0.sampleAspectRatio = SampleAspectRatio(numerator, denominator)
            $0.durationSeconds = 0.2
        }
        let report = try probe(path).get()
        #expect(report.displayWidth == 320 && report.displayHeight == 180)
    }

    /// A named pipe among the inputs fails with one line and the batch goes on: opening it waited for a writer,
    /// so the batch (or `probe`) never ended. (Should the pipe still be opened, a writer comes every 2 s after 30 s,
    /// so that the test ends.)
    @Test func aNamedPipeFailsWithOneLine() throws {
        let directory = TemporaryDirectory()
        let library = directory.file("library")
        try FileManager.default.createDirectory(atPath: library, withIntermediateDirectories: true)
        _ = try makeSample(in: directory, name: "library/good.mp4") { $0.durationSeconds = 1 }
        let pipe = library + "/pipe.mp4"
        try #require(mkfifo(pipe, 0o644) == 0)
        let writer = DispatchSource.makeTimerSource()
        writer.schedule(deadline: .now() + 30, repeating: 2)
        writer.setEventHandler {
            let end = open(pipe, O_WRONLY | O_NONBLOCK)
            if end >= 0 { close(end) }
        }
        writer.resume()
        defer { writer.cancel() }
        let poster = try CommandLineTests.run(["poster", "--recursive", library, "--out", directory.file("out"), "--widths", "160"])
        #expect(poster.status == 1)
        #expect(poster.stderr.contains("pipe.mp4: cannot read file: a named pipe (FIFO), not a file"), "\(poster.stderr)")
        #expect(FileManager.default.fileExists(atPath: directory.file("out/good/poster-160.jpg")))
        let probe = try CommandLineTests.run(["probe", pipe])
        #expect(probe.status == 1 && probe.stderr.contains("named pipe"), "\(probe.stderr)")
    }

    @Test func pathsWithSpacesUnicodeAndALeadingDashWork() throws {
        let directory = TemporaryDirectory()
        let path = try makeSample(in: directory, name: "-my clip é 日本.mp4")
        #expect(try probe(path).get().codedWidth == 320)
    }
}
