import Foundation
import Testing
@testable import FrameFarm

/// A playlist whose segments change timeline at `#EXT-X-DISCONTINUITY` (an advertisement stitched into a
/// programme), or a DASH manifest of several periods: each run of segments is placed where the durations before it
/// end, as players place it, whatever its own timestamps say, and is decoded with its own codec parameters.
@Suite struct HLSDiscontinuityTests {
    /// The programme (320x180, frames 0 to 29), an advertisement at another size (frames 100 to 129), and the
    /// programme from its start again: 3 s each, a keyframe a second, each made as an HLS playlist of its own whose
    /// timestamps start at zero.
    private static let runs = [("programme", "320x180", 0), ("advert", "480x270", 100), ("programme", "320x180", 0)]

    private static func makeRuns(in directory: TemporaryDirectory, fragmentedMP4: Bool) throws {
        for (name, size, firstFrame) in runs where !FileManager.default.fileExists(atPath: directory.file(name + ".m3u8")) {
            let made = try CommandLineTests.run(["sample", "--out", directory.file(name + ".m3u8"), "--duration", "3", "--size", size,
                                                 "--fps", "10", "--keyframe-interval", "1", "--preset", "ultrafast",
                                                 "--first-frame-number", String(firstFrame)] + (fragmentedMP4 ? ["--fmp4"] : []))
            #expect(made.status == 0, "\(made.stderr)")
        }
    }

    /// Every tile of `input`'s tracks, exact and keyframe, shows the frame players show at its cue: the runs one
    /// after another, each from its start.
    private static func expectTilesOnThePlayersFrames(_ input: String, in directory: TemporaryDirectory) throws {
        func expectedFrame(_ time: Double, keyframe: Bool) -> Int {
            let run = min(2, Int(time / 3)), within = time - Double(3 * run)
            return runs[run].2 + (keyframe ? Int(within + 1e-6) * 10 : Int((within * 10 + 1e-6).rounded(.down)))
        }
        let name = URL(fileURLWithPath: input).deletingPathExtension().lastPathComponent
        for seek in ["exact", "keyframe"] {
            let run = try CommandLineTests.run(["thumbnails", input, "--out", directory.file(seek), "--interval", "0.7",
                                                "--seek", seek])
            #expect(run.status == 0, "\(run.stderr)")
            let folder = directory.file("\(seek)/\(name)/thumbnails/")
            let cues = try ThumbnailTests.parseVTT(String(contentsOfFile: folder + "thumbnails.vtt", encoding: .utf8))
            #expect(cues.count == 13)
            #expect(try ThumbnailTests.frameNumbers(cues, folder: folder) == cues.map { expectedFrame($0.start, keyframe: seek == "keyframe") },
                    "\(name) \(seek)")
        }
    }

    /// The runs stitched into one playlist; with fragmented MP4 the advertisement has an initialization section of
    /// its own. `lint` finds no break in the timestamps.
    @Test(arguments: [false, true]) func runsAreReadOnThePlaylistsTimeline(fragmentedMP4: Bool) throws {
        let directory = TemporaryDirectory()
        let input = try Self.stitchedRuns(in: directory, fragmentedMP4: fragmentedMP4)
        try Self.expectTilesOnThePlayersFrames(input, in: directory)
        let lint = try CommandLineTests.run(["lint", input])
        #expect(!lint.stdout.contains("timestamp-jump") && !lint.stdout.contains("damaged"), "\(lint.stdout)")
    }

    /// `runs` made and stitched into one playlist, a discontinuity before each run after the first.
    private static func stitchedRuns(in directory: TemporaryDirectory, fragmentedMP4: Bool) throws -> String {
        try makeRuns(in: directory, fragmentedMP4: fragmentedMP4)
        var playlist = "#EXTM3U\n#EXT-X-VERSION:7\n#EXT-X-TARGETDURATION:1\n#EXT-X-PLAYLIST-TYPE:VOD\n"
        for (index, (name, _, _)) in runs.enumerated() {
            // Its initialization section (fragmented MP4) and segments, without the playlist's own header and end.
            let lines = try String(contentsOfFile: directory.file(name + ".m3u8"), encoding: .utf8).split(separator: "\n")
            let first = try #require(lines.firstIndex { $0.hasPrefix("#EXT-X-MAP") || $0.hasPrefix("#EXTINF") })
            playlist += (index > 0 ? "#EXT-X-DISCONTINUITY\n" : "")
                + lines[first...].filter { $0 != "#EXT-X-ENDLIST" }.joined(separator: "\n") + "\n"
        }
        return directory.write("stitched.m3u8", Data((playlist + "#EXT-X-ENDLIST\n").utf8))
    }

    /// An advertisement larger than `--max-pixels` (480x270 against 100,000 in a 320x180 programme) fails the input,
    /// naming its first segment and the limit, in every command and seek mode. The input's size is its first
    /// run's, so the advert's frames were refused by the decoder alone: counted as damaged data, with the tiles
    /// there showing the programme's last frame, or failing the run as undecodable.
    @Test(arguments: [false, true]) func anAdvertLargerThanTheLimitFailsTheInputNamingIt(fragmentedMP4: Bool) throws {
        let directory = TemporaryDirectory()
        let input = try Self.stitchedRuns(in: directory, fragmentedMP4: fragmentedMP4)
        let segment = directory.file("advert-000." + (fragmentedMP4 ? "m4s" : "ts"))
        for command in [["thumbnails", "--interval", "0.5", "--seek", "exact"], ["thumbnails", "--interval", "0.5", "--seek", "keyframe"],
                        ["poster"], ["lint"]] {
            let run = try CommandLineTests.run(command + [input, "--max-pixels", "100000"]
                                               + (command[0] == "lint" ? [] : ["--out", directory.file("out")]))
            #expect(run.status == 1, "\(command)")
            #expect((run.stderr + run.stdout).contains("cannot read \(segment), which the playlist lists: frame size 480x270 exceeds "
                                                       + "the limit of 100000 pixels (raise it with --max-pixels)"), "\(command) \(run.stderr)")
        }
        #expect(!FileManager.default.fileExists(atPath: directory.file("out/stitched/thumbnails")))
    }

    /// A 4:3 advertisement in a 16:9 programme is shown as players show it: fitted inside the programme's
    /// picture, centred between black bars, in every tile (sheets of 3x2, so the advert's tiles share sheets with
    /// the programme's) and in the poster; a preview places it on each screen by its own shape. Before the
    /// programme (a pre-roll), the video is still the programme's size and shape (it was the advert's), and the
    /// advert's own picture is no baked-in pillarbox of the programme. A PAL advert of the programme's 720x576 whose
    /// pixels are 4:3's (16:15) in an anamorphic 16:9 programme (64:45) is fitted the same way (it was stretched).
    @Test(arguments: zip([false, true, false], [false, false, true]))
    func anAdvertOfAnotherShapeIsFittedBetweenBlackBars(preRoll: Bool, anamorphic: Bool) throws {
        let directory = TemporaryDirectory()
        var segments: [String: [String]] = [:]
        let shapes = anamorphic ? [["--size", "720x576", "--sar", "64:45"], ["--size", "720x576", "--sar", "16:15"]]
            : [["--size", "320x180"], ["--size", "240x180"]]
        for (name, shape, firstFrame, seconds) in [("programme", shapes[0], 0, 6), ("advert", shapes[1], 100, 3)] {
            let made = try CommandLineTests.run(["sample", "--out", directory.file(name + ".m3u8"), "--duration", String(seconds),
                                                 "--fps", "10", "--keyframe-interval", "1", "--preset", "ultrafast",
                                                 "--first-frame-number", String(firstFrame)] + shape)
            #expect(made.status == 0, "\(made.stderr)")
            segments[name] = (0..<seconds).map { "#EXTINF:1.0,\n\(name)-00\($0).ts\n" }
        }
        let programme = segments["programme"]!, advert = segments["advert"]!.joined()
        // Each run: whether it is the advert, and its length in seconds.
        let runs = preRoll ? [(true, 3), (false, 6)] : [(false, 3), (true, 3), (false, 3)]
        let body = preRoll ? advert + "#EXT-X-DISCONTINUITY\n" + programme.joined()
            : programme[0..<3].joined() + "#EXT-X-DISCONTINUITY\n" + advert + "#EXT-X-DISCONTINUITY\n" + programme[0..<3].joined()
        let input = directory.write("stitched.m3u8", Data(("#EXTM3U\n#EXT-X-TARGETDURATION:1\n#EXT-X-PLAYLIST-TYPE:VOD\n"
            + body + "#EXT-X-ENDLIST\n").utf8))
        /// Whether the frame on screen at `time` is the advert's, and its number.
        func onScreen(_ time: Double) -> (advert: Bool, frame: Int) {
            var start = 0.0, index = 0
            while index + 1 < runs.count, time >= start + Double(runs[index].1) - 1e-6 {
                start += Double(runs[index].1)
                index += 1
            }
            let isAdvert = runs[index].0
            return (isAdvert, (isAdvert ? 100 : 0) + Int(((time - start) * 10 + 1e-6).rounded(.down)))
        }
        /// Within a picture `rect` 16:9, the advert's 4:3 is three quarters of the width, in the middle.
        func advertPart(of rect: PixelRect) -> PixelRect {
            PixelRect(x: rect.x + rect.width / 8, y: rect.y, width: rect.width * 3 / 4, height: rect.height)
        }
        /// The darkest the brightest pixel of the bars beside the advert's part of `rect` may be, two pixels
        /// away from the picture (JPEG rings a little there), and the picture's own first column, which is not black.
        func expectBars(in image: RGBAImage, beside rect: PixelRect, _ label: String) {
            let picture = advertPart(of: rect)
            let bars = Array(rect.x..<(picture.x - 2)) + Array((picture.maxX + 2)..<rect.maxX)
            let brightest = bars.flatMap { x in (rect.y..<rect.maxY).map { image.luma(x: x, y: $0) } }.max() ?? 255
            #expect(brightest < 24, "\(label): bars as bright as \(brightest)")
            let edge = (rect.y..<rect.maxY).map { image.luma(x: picture.x + 1, y: $0) }.reduce(0, +) / Double(rect.height)
            #expect(edge > 40, "\(label): the picture's first column averages \(edge)")
        }

        let run = try CommandLineTests.run(["thumbnails", input, "--out", directory.file("out"), "--interval", "0.7", "--grid", "3x2"])
        #expect(run.status == 0, "\(run.stderr)")
        let folder = directory.file("out/stitched/thumbnails/")
        let cues = try ThumbnailTests.parseVTT(String(contentsOfFile: folder + "thumbnails.vtt", encoding: .utf8))
        #expect(cues.count == 13 && Set(cues.map(\.file)).count == 3)
        #expect(cues.allSatisfy { $0.rect.size == PixelSize(width: 160, height: 90) })
        for cue in cues {
            let sheet = try readImage(folder + cue.file)
            let expected = onScreen(cue.start)
            if expected.advert {
                #expect(sheet.frameCode(in: advertPart(of: cue.rect)) == expected.frame, "tile at \(cue.start)")
                expectBars(in: sheet, beside: cue.rect, "tile at \(cue.start)")
            } else {
                #expect(sheet.frameCode(in: cue.rect) == expected.frame, "tile at \(cue.start)")
            }
        }

        let advertTime = preRoll ? "1.05" : "4.05"
        let poster = try CommandLineTests.run(["poster", input, "--out", directory.file("out"), "--at", advertTime])
        #expect(poster.status == 0, "\(poster.stderr)")
        let image = try readImage(directory.file("out/stitched/poster.jpg"))
        #expect(image.size == (anamorphic ? PixelSize(width: 1024, height: 576) : PixelSize(width: 320, height: 180)))
        #expect(image.frameCode(in: advertPart(of: PixelRect(size: image.size))) == 110)
        expectBars(in: image, beside: PixelRect(size: image.size), "poster")

        // On a portrait phone the advert fitted by its own shape fills the screen's width, as the programme does.
        let preview = try CommandLineTests.run(["preview", input, "--out", directory.file("out"), "--at", advertTime,
                                                "--devices", "iphone-16-pro", "--orientations", "portrait"])
        #expect(preview.status == 0, "\(preview.stderr)")
        let fit = try readImage(directory.file("out/stitched/preview/iphone-16-pro-portrait-fit.png"))
        let middle = fit.height / 2
        #expect(fit.luma(x: 2, y: middle) > 40 && fit.luma(x: fit.width - 3, y: middle) > 40)
        #expect(fit.frameCode(in: PixelRect(x: 0, y: middle - fit.width * 3 / 8, width: fit.width, height: fit.width * 3 / 4)) == 110)
    }

    /// An advertisement's own bars (a letterboxed 4:3 advert in a 16:9 programme) are not the video's: `probe`
    /// finds no padding (it reported bars in a third of the video, measured in the advert's pixels).
    @Test func anAdvertsOwnBarsAreNotTheVideos() throws {
        let directory = TemporaryDirectory()
        for (name, size, extra) in [("programme", "320x180", [String]()), ("advert", "240x180", ["--letterbox"])] {
            let made = try CommandLineTests.run(["sample", "--out", directory.file(name + ".m3u8"), "--duration", "3", "--size", size,
                                                 "--fps", "10", "--keyframe-interval", "1", "--preset", "ultrafast"] + extra)
            #expect(made.status == 0, "\(made.stderr)")
        }
        func segments(_ name: String) -> String { (0..<3).map { "#EXTINF:1.0,\n\(name)-00\($0).ts\n" }.joined() }
        let input = directory.write("stitched.m3u8", Data(("#EXTM3U\n#EXT-X-TARGETDURATION:1\n#EXT-X-PLAYLIST-TYPE:VOD\n"
            + segments("programme") + "#EXT-X-DISCONTINUITY\n" + segments("advert") + "#EXT-X-DISCONTINUITY\n"
            + segments("programme") + "#EXT-X-ENDLIST\n").utf8))
        let probe = try CommandLineTests.run(["probe", input])
        #expect(probe.status == 0, "\(probe.stderr)")
        #expect(probe.stdout.contains("no baked-in padding") && !probe.stdout.contains("bars in part"), "\(probe.stdout)")
    }

    /// An advert of the programme's shape at another size (640x360 in a 320x180 programme, both letterboxed to
    /// 2.39:1) is previewed as the programme is, its baked-in bars removed as the poster removes them (the preview
    /// placed it by its own size and kept them).
    @Test func anAdvertOfTheProgrammesShapeIsPreviewedWithoutItsBars() throws {
        let directory = TemporaryDirectory()
        for (name, size, seconds) in [("programme", "320x180", 3), ("advert", "640x360", 2)] {
            let made = try CommandLineTests.run(["sample", "--out", directory.file(name + ".m3u8"), "--duration", String(seconds),
                                                 "--size", size, "--letterbox", "--fps", "10", "--keyframe-interval", "1",
                                                 "--preset", "ultrafast"])
            #expect(made.status == 0, "\(made.stderr)")
        }
        func segments(_ name: String, _ count: Int) -> String { (0..<count).map { "#EXTINF:1.0,\n\(name)-00\($0).ts\n" }.joined() }
        let input = directory.write("stitched.m3u8", Data(("#EXTM3U\n#EXT-X-TARGETDURATION:1\n#EXT-X-PLAYLIST-TYPE:VOD\n"
            + segments("programme", 3) + "#EXT-X-DISCONTINUITY\n" + segments("advert", 2) + "#EXT-X-DISCONTINUITY\n"
            + segments("programme", 3) + "#EXT-X-ENDLIST\n").utf8))
        let preview = try CommandLineTests.run(["preview", input, "--out", directory.file("out"), "--at", "4", "--devices", "iphone-16-pro",
                                                "--modes", "fit", "--orientations", "landscape"])
        #expect(preview.status == 0, "\(preview.stderr)")
        let manifest = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: directory.file("out/stitched/manifest.json"))))
        let section = try #require((manifest as? [String: Any])?["preview"] as? [String: Any])
        #expect(section["paddingRemoved"] as? Bool == true)
        let drawn = try #require(((section["renders"] as? [[String: Any]])?.first?["destination"]) as? [String: Int])
        #expect(Double(drawn["width"] ?? 0) / Double(drawn["height"] ?? 1) > 2.2, "\(drawn)")
    }

    /// A DASH manifest of three periods (fragmented-MP4 segments listed by `SegmentList`) is read the same way.
    @Test func dashPeriodsAreReadOnThePresentationsTimeline() throws {
        let directory = TemporaryDirectory()
        try Self.makeRuns(in: directory, fragmentedMP4: true)
        var periods = ""
        for (index, (name, size, _)) in Self.runs.enumerated() {
            let (width, height) = (size.split(separator: "x")[0], size.split(separator: "x")[1])
            periods += "<Period start=\"PT\(3 * index)S\"><AdaptationSet mimeType=\"video/mp4\">"
                + "<Representation id=\"\(name)\" width=\"\(width)\" height=\"\(height)\" bandwidth=\"100000\">"
                // The advert's offset disagrees with its media (which starts at 0): it is placed by its media.
                + "<SegmentList timescale=\"1\" duration=\"1\"\(index == 1 ? " presentationTimeOffset=\"1000\"" : "")>"
                + "<Initialization sourceURL=\"\(name)-init.mp4\"/>"
                + (0..<3).map { "<SegmentURL media=\"\(name)-00\($0).m4s\"/>" }.joined() + "</SegmentList></Representation></AdaptationSet></Period>\n"
        }
        let input = directory.write("periods.mpd", Data("""
            <?xml version="1.0"?>
            <MPD xmlns="urn:mpeg:dash:schema:mpd:2011" type="static" mediaPresentationDuration="PT9S">
            \(periods)</MPD>

            """.utf8))
        try Self.expectTilesOnThePlayersFrames(input, in: directory)
    }

    /// Periods cut out of a programme mid-segment, as server-side ad insertion cuts them: the programme (frames 0 to
    /// 59, 2-s segments) shows for 3.5 s, though its second segment goes on to 4 s; an advertisement (frames 100 to
    /// 129) for 3 s, or with a gap, for 2.5 s before the next period starts; then the programme again from 3.5 s
    /// (`@presentationTimeOffset`, in a SegmentTemplate timeline), though its first segment starts at 2 s. Every
    /// tile shows the frame a player shows, the track lasts the 9 s of the periods, and in the gap the advert's last
    /// shown frame holds; lint finds no jump back in time. The periods were placed one after another by their
    /// segments' durations (11 s), so every tile from 3.5 s on was off by up to a segment.
    @Test(arguments: [false, true]) func dashPeriodsShowOnlyTheirOwnPartOfTheirSegments(gap: Bool) throws {
        let directory = TemporaryDirectory()
        for (name, seconds, keyframes, first) in [("programme", "6", "2", "0"), ("advert", "3", "1", "100")] {
            let made = try CommandLineTests.run(["sample", "--out", directory.file(name + ".m3u8"), "--duration", seconds, "--size", "320x180",
                                                 "--fps", "10", "--keyframe-interval", keyframes, "--preset", "ultrafast",
                                                 "--first-frame-number", first, "--fmp4"])
            #expect(made.status == 0, "\(made.stderr)")
        }
        func period(_ start: String, _ duration: String, _ segments: String) -> String {
            "<Period start=\"\(start)\" duration=\"\(duration)\"><AdaptationSet mimeType=\"video/mp4\">"
                + "<Representation id=\"v\" width=\"320\" height=\"180\" bandwidth=\"100000\">\(segments)</Representation></AdaptationSet></Period>\n"
        }
        let input = directory.write("periods.mpd", Data(("<?xml version=\"1.0\"?>\n<MPD xmlns=\"urn:mpeg:dash:schema:mpd:2011\" type=\"static\" "
            + "mediaPresentationDuration=\"PT9S\">\n"
            + period("PT0S", "PT3.5S", "<SegmentList timescale=\"1\" duration=\"2\"><Initialization sourceURL=\"programme-init.mp4\"/>"
                     + "<SegmentURL media=\"programme-000.m4s\"/><SegmentURL media=\"programme-001.m4s\"/></SegmentList>")
            + period("PT3.5S", gap ? "PT2.5S" : "PT3S", "<SegmentList timescale=\"1\" duration=\"1\"><Initialization sourceURL=\"advert-init.mp4\"/>"
                     + (0..<3).map { "<SegmentURL media=\"advert-00\($0).m4s\"/>" }.joined() + "</SegmentList>")
            + period("PT6.5S", "PT2.5S", "<SegmentTemplate timescale=\"10\" presentationTimeOffset=\"35\" startNumber=\"1\" "
                     + "media=\"programme-$Number%03d$.m4s\" initialization=\"programme-init.mp4\">"
                     + "<SegmentTimeline><S t=\"20\" d=\"20\" r=\"1\"/></SegmentTimeline></SegmentTemplate>")
            + "</MPD>\n").utf8))
        func expectedFrame(_ time: Double, keyframe: Bool) -> Int {
            func frames(_ seconds: Double, every keyframeSeconds: Double) -> Int {
                Int(keyframe ? (seconds / keyframeSeconds + 1e-6).rounded(.down) * keyframeSeconds * 10 : (seconds * 10 + 1e-6).rounded(.down))
            }
            if time < 3.5 { return frames(time, every: 2) }
            // The advert's last shown frame (2.4 s of it) holds in the gap.
            if time < 6.5 { return 100 + frames(min(time - 3.5, gap && !keyframe ? 2.4 : 3), every: 1) }
            return frames(time - 3, every: 2)
        }
        for seek in ["exact", "keyframe"] {
            let run = try CommandLineTests.run(["thumbnails", input, "--out", directory.file(seek), "--interval", "0.5", "--seek", seek])
            #expect(run.status == 0, "\(run.stderr)")
            let folder = directory.file("\(seek)/periods/thumbnails/")
            let cues = try ThumbnailTests.parseVTT(String(contentsOfFile: folder + "thumbnails.vtt", encoding: .utf8))
            #expect(cues.count == 18 && cues.last?.end == 9, "\(cues.count) cues to \(cues.last?.end ?? 0) s")
            #expect(try ThumbnailTests.frameNumbers(cues, folder: folder) == cues.map { expectedFrame($0.start, keyframe: seek == "keyframe") },
                    "\(seek)")
        }
        // The programme's packets before its period are not a jump back in time.
        let lint = try CommandLineTests.run(["lint", input])
        #expect(!lint.stdout.contains("timestamp-jump"), "\(lint.stdout)")
    }

    /// A manifest of one period cut from a live programme (a live-to-VOD clip) starts at its
    /// `@presentationTimeOffset`, 3.5 s into media whose first segment starts at 2 s: its first tile, its poster at 0
    /// and every later tile show the programme from 3.5 s, as a player shows it. Before, the clip started with the
    /// segment, 1.5 s early.
    @Test func aSinglePeriodStartsAtItsOffsetInsideItsFirstSegment() throws {
        let directory = TemporaryDirectory()
        try HLSInputTests.samplePlaylist(directory.file("programme.m3u8"), ["--fmp4"])
        let input = directory.write("clip.mpd", Data(("<?xml version=\"1.0\"?>\n<MPD xmlns=\"urn:mpeg:dash:schema:mpd:2011\" type=\"static\" "
            + "mediaPresentationDuration=\"PT2.5S\"><Period><AdaptationSet mimeType=\"video/mp4\">"
            + "<Representation id=\"v\" width=\"320\" height=\"180\" bandwidth=\"100000\">"
            + "<SegmentTemplate timescale=\"10\" presentationTimeOffset=\"35\" startNumber=\"1\" "
            + "media=\"programme-$Number%03d$.m4s\" initialization=\"programme-init.mp4\">"
            + "<SegmentTimeline><S t=\"20\" d=\"20\" r=\"1\"/></SegmentTimeline></SegmentTemplate>"
            + "</Representation></AdaptationSet></Period></MPD>\n").utf8))
        for seek in ["exact", "keyframe"] {
            let run = try CommandLineTests.run(["thumbnails", input, "--out", directory.file(seek), "--interval", "0.5", "--seek", seek])
            #expect(run.status == 0, "\(run.stderr)")
            let folder = directory.file("\(seek)/clip/thumbnails/")
            let cues = try ThumbnailTests.parseVTT(String(contentsOfFile: folder + "thumbnails.vtt", encoding: .utf8))
            #expect(cues.count == 5 && cues.last?.end == 2.5, "\(cues.count) cues to \(cues.last?.end ?? 0) s")
            // Exact: the frame on screen 3.5 s on from the media's start; keyframe: the keyframe at or before it
            // (frame 20, media time 2 s, shown from the clip's start).
            let expected = cues.map { cue in
                let frame = Int(((cue.start + 3.5) * 10 + 1e-6).rounded(.down))
                return seek == "exact" ? frame : frame / 20 * 20
            }
            #expect(try ThumbnailTests.frameNumbers(cues, folder: folder) == expected, "\(seek)")
        }
        let poster = try CommandLineTests.run(["poster", input, "--out", directory.file("poster"), "--at", "0"])
        #expect(poster.status == 0, "\(poster.stderr)")
        let image = try readImage(directory.file("poster/clip/poster.jpg"))
        #expect(image.frameCode() == 35)
    }

    /// A discontinuity whose timestamps carry on (a packager's cut, not a new timeline) moves nothing, even where
    /// the durations before it are a little off (the first says 2.3 s of its 2).
    @Test func aRunThatCarriesOnTheTimelineStaysWhereItIs() throws {
        let directory = TemporaryDirectory()
        let source = directory.file("show.m3u8")
        try HLSInputTests.samplePlaylist(source)
        let text = try String(contentsOfFile: source, encoding: .utf8).replacingOccurrences(of: "#EXTINF:2.000000,\nshow-000",
                                                                                            with: "#EXTINF:2.300000,\nshow-000")
        #expect(text.contains("2.300000"))
        let cut = try #require(text.range(of: "#EXTINF", options: .backwards))
        let input = directory.write("cut.m3u8", Data(text.replacingCharacters(in: cut.lowerBound..<cut.lowerBound,
                                                                               with: "#EXT-X-DISCONTINUITY\n").utf8))
        let run = try CommandLineTests.run(["thumbnails", input, "--out", directory.file("out"), "--interval", "0.7"])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(try ThumbnailTests.expectTilesOnTheirFrames(in: directory.file("out/cut/thumbnails/"), fps: 10).count == 9)
    }

    /// A run of segments after a discontinuity that gives no picture fails the input in one line naming its first
    /// segment, rather than leave the last frame before it on screen: MPEG-TS segments under a fragmented-MP4
    /// programme's `#EXT-X-MAP` (which applies to every segment after it), and after an MPEG-TS programme a
    /// segment of bytes that are no format, and MPEG-TS whose video is blanked (every packet and timestamp there,
    /// no picture).
    @Test func aRunThatGivesNoPictureFailsTheInputNamingIt() throws {
        let directory = TemporaryDirectory()
        for (name, fmp4) in [("fragmented", true), ("programme", false), ("advert", false)] {
            let made = try CommandLineTests.run(["sample", "--out", directory.file(name + ".m3u8"), "--duration", "2", "--size", "320x180",
                                                 "--fps", "10", "--keyframe-interval", "1", "--preset", "ultrafast"] + (fmp4 ? ["--fmp4"] : []))
            #expect(made.status == 0, "\(made.stderr)")
        }
        let advert = try Data(contentsOf: URL(fileURLWithPath: directory.file("advert-000.ts")))
        _ = directory.write("noise.ts", Data((0..<6000).map { UInt8(truncatingIfNeeded: $0 &* 7919 >> 3) }))
        _ = directory.write("blank.ts", Self.blankingVideo(of: advert))
        for (programme, segment, reason) in [("fragmented", "advert-000.ts", "no video could be read from it"),
                                             ("programme", "noise.ts", ""), ("programme", "blank.ts", "none of its frames could be decoded")] {
            let before = try String(contentsOfFile: directory.file(programme + ".m3u8"), encoding: .utf8)
                .replacingOccurrences(of: "#EXT-X-ENDLIST\n", with: "")
            let input = directory.write("with-\(segment).m3u8", Data((before + "#EXT-X-DISCONTINUITY\n#EXTINF:1.0,\n\(segment)\n"
                                                                       + "#EXT-X-ENDLIST\n").utf8))
            for seek in ["exact", "keyframe"] {
                let run = try CommandLineTests.run(["thumbnails", input, "--out", directory.file("out"), "--interval", "0.5", "--seek", seek])
                #expect(run.status == 1, "\(segment) \(seek)")
                #expect(run.stderr.contains("cannot read \(directory.file(segment)), which the playlist lists: \(reason)"), "\(run.stderr)")
                #expect(!FileManager.default.fileExists(atPath: directory.file("out/with-\(segment)/thumbnails")))
            }
        }
    }

    /// `ts` (FFmpeg's MPEG-TS, the video on PID 0x100) with every byte of the video after the PES headers zeroed.
    private static func blankingVideo(of ts: Data) -> Data {
        var bytes = [UInt8](ts)
        for start in stride(from: 0, to: bytes.count - 187, by: 188) where bytes[start] == 0x47 {
            guard Int(bytes[start + 1] & 0x1F) << 8 | Int(bytes[start + 2]) == 0x100 else { continue }
            var payload = start + 4
            if bytes[start + 3] & 0x20 != 0 { payload += 1 + Int(bytes[start + 4]) }  // adaptation field
            if bytes[start + 1] & 0x40 != 0 { payload += 9 + Int(bytes[payload + 8]) }  // a PES packet starts here
            for index in payload..<(start + 188) { bytes[index] = 0 }
        }
        return Data(bytes)
    }
}
