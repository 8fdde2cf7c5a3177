import Foundation
import Testing
import FrameFarmMedia
@testable import FrameFarm

/// Keyframe tiles show the keyframe at or before their cue however close the targets fall. With B-frames an MP4
/// index's times are decode times, shown later; a fragmented MP4's index grows as its fragments are read. Targets a
/// third of a second apart each get their own keyframe, never an earlier one kept from the target before.
@Suite struct KeyframeSeekTests {
    /// `thumbnails INPUT --interval INTERVAL --seek SEEK` into `out`, which must succeed: each cue's start and the
    /// frame number its tile shows.
    private static func tiles(of input: String, out: String, interval: String,
                              seek: String) throws -> (starts: [Double], frames: [Int?]) {
        let run = try CommandLineTests.run(["thumbnails", input, "--out", out, "--interval", interval, "--seek", seek])
        #expect(run.status == 0, "\(run.stderr)")
        let folder = out + "/" + URL(fileURLWithPath: input).deletingPathExtension().lastPathComponent + "/thumbnails/"
        let cues = try ThumbnailTests.parseVTT(String(contentsOfFile: folder + "thumbnails.vtt", encoding: .utf8))
        return (cues.map(\.start), try ThumbnailTests.frameNumbers(cues, folder: folder))
    }

    @Test(arguments: [false, true]) func everyTargetGetsTheKeyframeAtOrBefore(fragmented: Bool) throws {
        let directory = TemporaryDirectory()
        let sample = directory.file(fragmented ? "v.m3u8" : "v.mp4")
        let made = try CommandLineTests.run(["sample", "--out", sample, "--duration", "6", "--size", "320x180",
                                             "--keyframe-interval", "2", "--bframes", "2"] + (fragmented ? ["--fmp4"] : []))
        try #require(made.status == 0, "\(made.stderr)")
        var input = sample
        if fragmented {
            // The playlist's initialization segment and fragments, one after another, are one fragmented MP4.
            let pieces = ["v-init.mp4", "v-000.m4s", "v-001.m4s", "v-002.m4s"]
            input = directory.write("whole.mp4", try pieces.map { try Data(contentsOf: URL(fileURLWithPath: directory.file($0))) }
                .reduce(Data(), +))
        }
        let tiles = try Self.tiles(of: input, out: directory.file("out"), interval: "0.33", seek: "keyframe")
        #expect(tiles.starts.count == 19)
        #expect(tiles.frames == tiles.starts.map { Int($0 / 2) * 50 })
    }

    /// MPEG-TS has no index: FFmpeg's seek lands on a keyframe near the target, before it, after it or past the
    /// last one, and the frames before the next keyframe decode to garbage in HEVC. Keyframe tiles still show the
    /// keyframe at or before their cue (they showed the next one, or the first, or the tile before), and exact
    /// tiles their own frame (HEVC ones were garbage after a seek), with B-frames.
    @Test(arguments: ["libx264", "libx265"]) func mpegTSIsSoughtWithoutAnIndex(encoder: String) throws {
        let directory = TemporaryDirectory()
        let input = directory.file("v.ts")
        let made = try CommandLineTests.run(["sample", "--out", input, "--duration", "6", "--size", "320x180", "--encoder", encoder,
                                             "--keyframe-interval", "2", "--bframes", "2"])
        try #require(made.status == 0, "\(made.stderr)")
        try Self.expectEachSeekOnItsFrames(input, out: directory, interval: "0.33", cues: 19, keyframeSeconds: 2)
    }

    /// ASF (`.asf`, `.wmv`): its index maps each second to the keyframe before it, stamped with the second's time,
    /// so a keyframe tile just after a keyframe showed the one before for up to a second (from a tester).
    @Test func asfKeyframeTilesShowTheKeyframeAtOrBefore() throws {
        let directory = TemporaryDirectory()
        let input = directory.file("v.asf")
        let made = try CommandLineTests.run(["sample", "--out", input, "--duration", "9", "--size", "320x180", "--encoder", "mpeg4",
                                             "--keyframe-interval", "4"])
        try #require(made.status == 0, "\(made.stderr)")
        try Self.expectEachSeekOnItsFrames(input, out: directory, interval: "0.5", cues: 18, keyframeSeconds: 4)
    }

    /// Keyframe tiles show the keyframe at or before their cue, exact ones their own frame, for a 25-fps `input`
    /// with a keyframe every `keyframeSeconds`.
    private static func expectEachSeekOnItsFrames(_ input: String, out: TemporaryDirectory, interval: String, cues: Int,
                                                  keyframeSeconds: Int) throws {
        for seek in ["keyframe", "exact"] {
            let tiles = try tiles(of: input, out: out.file(seek), interval: interval, seek: seek)
            #expect(tiles.starts.count == cues)
            let expected = tiles.starts.map { start in
                seek == "keyframe" ? Int(start) / keyframeSeconds * keyframeSeconds * 25 : Int((start * 25 + 1e-6).rounded(.down))
            }
            #expect(tiles.frames == expected, "\(input) \(seek)")
        }
    }

    /// MPEG-2 with B-frames, in open GOPs: the keyframe is shown after the B-frames decoded after it.
    /// - MPEG-PS (`.mpg`), as FFmpeg writes it, leaves out the presentation time of frames that start inside a
    ///   packet, keyframes among them. Every keyframe tile showed the video's last keyframe (a keyframe decoded
    ///   alone had no time, taken as 0), and a frame after a seek could come out at time 0.
    /// - MP4 indexes decode times: a keyframe tile between a keyframe's entry and its showing (cues at 1.96 and
    ///   3.92 s) showed that keyframe, still to come, instead of the one before.
    /// Tiles show the keyframe at or before their cue, as a decode from the start finds them, and exact tiles their frame.
    @Test(arguments: ["mpg", "mp4"]) func mpeg2InOpenGOPsIsSought(container: String) throws {
        let directory = TemporaryDirectory()
        let input = directory.file("v." + container)
        let made = try CommandLineTests.run(["sample", "--out", input, "--duration", "12", "--size", "320x180", "--encoder", "mpeg2video",
                                             "--keyframe-interval", "2", "--bframes", "2"])
        try #require(made.status == 0, "\(made.stderr)")
        let reader = try FrameReader(path: input)
        var keyframes: [Int] = []
        while let frame = try reader.nextFrame() {
            if frame.isKeyFrame { keyframes.append(try #require(frameCode(frame))) }
        }
        #expect(keyframes.count == 7)
        for seek in ["keyframe", "exact"] {
            let tiles = try Self.tiles(of: input, out: directory.file(seek), interval: "0.245", seek: seek)
            #expect(tiles.starts.count == 49)
            let expected = tiles.starts.map { start in
                let onScreen = Int((start * 25 + 1e-6).rounded(.down))
                return seek == "keyframe" ? keyframes.last { $0 <= onScreen } : onScreen
            }
            #expect(tiles.frames == expected, "\(container) \(seek)")
        }
    }

    /// A cue on a keyframe's own time gets that keyframe, also where the video starts late (1.44 s): the start
    /// plus the cue, summed in floating point, fell a hair below the keyframe's tick and found the one before.
    @Test(arguments: ["mkv", "mp4"]) func aCueOnAKeyframeGetsItWhateverTheStart(container: String) throws {
        let directory = TemporaryDirectory()
        let input = directory.file("late." + container)
        let made = try CommandLineTests.run(["sample", "--out", input, "--duration", "7", "--size", "320x180", "--bframes", "0",
                                             "--keyframe-interval", "1", "--start-time", "1.44"])
        try #require(made.status == 0, "\(made.stderr)")
        let tiles = try Self.tiles(of: input, out: directory.file("out"), interval: "0.5", seek: "keyframe")
        #expect(tiles.starts.count == 14)
        #expect(tiles.frames == tiles.starts.map { Int($0 + 1e-6) * 25 }, "\(container)")
    }

    /// MPEG-2 in MPEG-TS cut mid-GOP, its GOPs open: the first keyframe is shown after B-frames that cannot be
    /// decoded. Keyframe tiles before it is shown show it (those between its decode and its showing showed the
    /// second keyframe, which FFmpeg's seek had landed on), and later ones the keyframe at or before, as a decode
    /// from the start shows them.
    @Test func anOpenGOPCutMidGOPShowsItsFirstKeyframeUntilThen() throws {
        let directory = TemporaryDirectory()
        let whole = directory.file("whole.ts")
        let made = try CommandLineTests.run(["sample", "--out", whole, "--duration", "4", "--size", "320x180", "--encoder", "mpeg2video",
                                             "--keyframe-interval", "1", "--bframes", "2"])
        try #require(made.status == 0, "\(made.stderr)")
        let input = directory.write("cut.ts", try Data(contentsOf: URL(fileURLWithPath: whole)).dropFirst(100 * 188))
        let reader = try FrameReader(path: input)
        var keyframes: [(time: Double, frame: Int)] = []
        while let frame = try reader.nextFrame() {
            if frame.isKeyFrame { keyframes.append((frame.timeSeconds - reader.info.startSeconds, try #require(frameCode(frame)))) }
        }
        try #require(keyframes.count >= 3)
        let tiles = try Self.tiles(of: input, out: directory.file("out"), interval: "0.04", seek: "keyframe")
        #expect(tiles.frames == tiles.starts.map { start in (keyframes.last { $0.time <= start + 1e-6 } ?? keyframes[0]).frame })
    }

    /// H.264 with B-frames in MPEG-PS, as FFmpeg's muxer writes it, leaves most packets with no timestamp at all
    /// (no decode time either, which MPEG-2's have), so frames cannot be placed: `lint` says so instead of the
    /// keyframe gaps and frame durations it measured between the few timed packets, and `thumbnails` warns. MPEG-2
    /// in the same container has every packet's time (`mpeg2InOpenGOPsIsSought`) and no such finding.
    @Test func h264InMPEGPSIsReportedForItsMissingTimestamps() throws {
        let directory = TemporaryDirectory()
        for encoder in ["libx264", "mpeg2video"] {
            let input = directory.file(encoder + ".mpg")
            let made = try CommandLineTests.run(["sample", "--out", input, "--duration", "4", "--size", "320x180", "--encoder", encoder,
                                                 "--keyframe-interval", "2", "--bframes", "3"])
            try #require(made.status == 0, "\(made.stderr)")
            let lint = try CommandLineTests.run(["lint", input])
            let untimed = lint.stdout.contains("missing-timestamps")
            #expect(untimed == (encoder == "libx264"), "\(lint.stdout)")
            if untimed {
                #expect(!lint.stdout.contains("variable-frame-rate") && !lint.stdout.contains("keyframe-interval"), "\(lint.stdout)")
                let run = try CommandLineTests.run(["thumbnails", input, "--out", directory.file("out")])
                #expect(run.status == 0 && run.stderr.contains("carry no timestamp"), "\(run.stderr)")
            }
        }
    }

    /// Without an index each keyframe target was a search of its own (a seek, keyframes decoded on to the target):
    /// 59 targets a tenth of a second apart in 2-s GOPs decoded at least 59 frames for 3 keyframes. A target
    /// between a searched keyframe and the next frame the search read is now shown that keyframe at once.
    @Test func keyframeTargetsInOneGOPOfMPEGTSAreOneSearch() throws {
        let directory = TemporaryDirectory()
        let input = directory.file("v.ts")
        let made = try CommandLineTests.run(["sample", "--out", input, "--duration", "6", "--size", "320x180",
                                             "--keyframe-interval", "2", "--bframes", "2"])
        try #require(made.status == 0, "\(made.stderr)")
        let reader = try FrameReader(path: input, keyframesOnly: true)
        let targets = (1..<60).map { Double($0) / 10 }
        let shown = try targets.map { try reader.keyframe(atOrBefore: reader.info.startSeconds + $0).flatMap(frameCode) }
        #expect(shown == targets.map { Int($0 / 2) * 50 })
        #expect(reader.framesDecoded < 20, "\(reader.framesDecoded) frames decoded")
    }

    /// An MPEG-TS recording cut mid-GOP: until its first keyframe nothing decodes cleanly, so tiles before it show
    /// that keyframe (exact tiles were all refused as "no frame could be decoded", and HEVC ones before it were
    /// garbage); after it, exact tiles show their frames and keyframe tiles the keyframe at or before.
    @Test(arguments: ["libx264", "libx265"]) func aTSCutMidGOPShowsItsFirstKeyframeUntilThen(encoder: String) throws {
        let directory = TemporaryDirectory()
        let whole = directory.file("whole.ts")
        let made = try CommandLineTests.run(["sample", "--out", whole, "--duration", "8", "--size", "320x180", "--encoder", encoder,
                                             "--keyframe-interval", "2", "--bframes", "2"])
        try #require(made.status == 0, "\(made.stderr)")
        let bytes = try Data(contentsOf: URL(fileURLWithPath: whole))
        // A quarter in, on a 188-byte packet boundary: 2 s into the first GOP.
        let input = directory.write("cut.ts", bytes.dropFirst(bytes.count / 188 / 4 * 188))
        var numbers: [String: [(start: Double, frame: Int?)]] = [:]
        for seek in ["exact", "keyframe"] {
            let tiles = try Self.tiles(of: input, out: directory.file(seek), interval: "0.5", seek: seek)
            numbers[seek] = zip(tiles.starts, tiles.frames).map { ($0, $1) }
        }
        let exact = try #require(numbers["exact"]), keyframes = try #require(numbers["keyframe"])
        let first = try #require(exact.first?.frame)
        #expect(first % 50 == 0, "the first tile shows the first keyframe")
        // The frame shown at the stream's start, from the tiles past the keyframe: the same for every one of them.
        let offsets = Set(exact.compactMap { tile in tile.frame.flatMap { $0 > first ? $0 - Int((tile.start * 25 + 1e-6).rounded(.down)) : nil } })
        #expect(offsets.count == 1, "\(exact)")
        let shownAtStart = try #require(offsets.first)
        #expect(exact.map(\.frame) == exact.map { max(first, shownAtStart + Int(($0.start * 25 + 1e-6).rounded(.down))) }, "\(encoder)")
        #expect(keyframes.map(\.frame) == exact.map { max(first, (shownAtStart + Int(($0.start * 25 + 1e-6).rounded(.down))) / 50 * 50) },
                "\(encoder)")
    }

    /// A clip cut from an open-GOP H.264 stream by a stream copy (`ffmpeg -ss 2.5 -i in -c copy out.mkv`, how people
    /// cut clips): its first keyframe is followed by a leading frame that refers to the group before the cut and
    /// carries no timestamp. The exact seek to the first cue drained the decoder early and got no frame, failing the
    /// input ("no frame could be decoded"); every job also warned of guessed timestamps for that frame, never shown.
    @Test func aStreamCopyCutOfAnOpenGOPShowsItsFramesWithoutWarnings() throws {
        let directory = TemporaryDirectory()
        let sample = try makeSample(in: directory) {
            $0.size = PixelSize(width: 320, height: 180)
            $0.frameRate = (10, 1)
            $0.durationSeconds = 6
        }
        let encoded = directory.file("open.mkv"), cut = directory.file("cut.mkv")
        try Self.ffmpeg(["-i", sample, "-c:v", "libx264", "-preset", "veryfast", "-bf", "3", "-g", "20", "-sc_threshold", "0",
                         "-x264-params", "open-gop=1", "-pix_fmt", "yuv420p", encoded])
        try Self.ffmpeg(["-ss", "2.5", "-i", encoded, "-c", "copy", cut])
        let run = try CommandLineTests.run(["thumbnails", cut, "--out", directory.file("out"), "--interval", "0.5"])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(!run.stderr.contains("timestamp"), "\(run.stderr)")
        let folder = directory.file("out/cut/thumbnails/")
        let cues = try ThumbnailTests.parseVTT(String(contentsOfFile: folder + "thumbnails.vtt", encoding: .utf8))
        let frames = try ThumbnailTests.frameNumbers(cues, folder: folder)
        // The cut starts at the keyframe before 2.5 s, frame 20; each tile shows the frame its cue starts at.
        #expect(frames.first == 20 && frames == cues.map { 20 + Int(($0.start * 10 + 1e-6).rounded(.down)) }, "\(frames)")
    }

    /// A stream copy cut from a long GOP (`ffmpeg -ss 3.3 -i in.mp4 -c copy out.mp4`): its only keyframe lies before
    /// the edit list's start, flagged to be decoded and not shown, so keyframe thumbnails decoded it and got no frame,
    /// failing the input (from a tester). It is the picture at the start, shown until the next keyframe.
    @Test func keyframeTilesOfACutWhoseOnlyKeyframeLiesBeforeItsStartShowThatKeyframe() throws {
        let directory = TemporaryDirectory()
        let sample = try makeSample(in: directory) {
            $0.frameRate = (10, 1)
            $0.durationSeconds = 8
            $0.keyframeIntervalSeconds = 20
            $0.bFrames = 2
        }
        let cut = directory.file("cut.mp4")
        try Self.ffmpeg(["-ss", "3.3", "-i", sample, "-c", "copy", "-t", "3", cut])
        let tiles = try Self.tiles(of: cut, out: directory.file("out"), interval: "0.5", seek: "keyframe")
        #expect(tiles.starts.count >= 6 && tiles.frames.allSatisfy { $0 == 0 }, "\(tiles)")
    }

    /// Runs the ffmpeg CLI, which must succeed: clips cut as users cut them.
    static func ffmpeg(_ arguments: [String]) throws {
        let path = "/usr/bin/ffmpeg"
        try #require(FileManager.default.isExecutableFile(atPath: path), "make deps-test installs the ffmpeg CLI")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = ["-v", "error", "-y"] + arguments
        try process.run()
        process.waitUntilExit()
        try #require(process.terminationStatus == 0, "ffmpeg \(arguments)")
    }
}
