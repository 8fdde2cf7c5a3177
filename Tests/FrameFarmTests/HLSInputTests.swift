import Foundation
import Testing
@testable import FrameFarm

/// An HLS media playlist as an input: `sample --out x.m3u8` writes one (MPEG-TS segments beside it, named after it),
/// and a track cut from it shows, at every cue, the frame its cue starts at, across the segments' boundaries.
@Suite struct HLSInputTests {
    /// With MPEG-4 Part 2, whose headers the muxer does not repeat in each segment, too (its segments were
    /// undecodable). `sample` makes the playlist's folder.
    /// `sample --out path`: `seconds` of 320x180 at 10 fps, a keyframe every 2 s (the frame code at t is t x 10),
    /// with `extra` options; it must succeed.
    static func samplePlaylist(_ path: String, seconds: Int = 6, _ extra: [String] = []) throws {
        let made = try CommandLineTests.run(["sample", "--out", path, "--duration", String(seconds), "--size", "320x180",
                                             "--fps", "10", "--keyframe-interval", "2", "--preset", "ultrafast"] + extra)
        try #require(made.status == 0, "\(made.stderr)")
    }

    /// `show.mpd` in `directory`: three representations (640x360, 1280x720, 320x180, bandwidth rising in that
    /// order, ids v0 to v2) of `samplePlaylist`'s video in fragmented MP4 segments listed one by one, `rN-init.mp4`
    /// and `rN-000.m4s` to `rN-002.m4s`.
    static func sampleManifest(in directory: TemporaryDirectory) throws -> String {
        var representations = ""
        for (index, (width, height)) in [(640, 360), (1280, 720), (320, 180)].enumerated() {
            try samplePlaylist(directory.file("r\(index).m3u8"), ["--size", "\(width)x\(height)", "--fmp4"])
            let segments = (0..<3).map { "<SegmentURL media=\"r\(index)-\(String(format: "%03d", $0)).m4s\"/>" }.joined()
            representations += """
                <Representation id="v\(index)" mimeType="video/mp4" codecs="avc1.42c01e" width="\(width)" height="\(height)" \
                bandwidth="\((index + 1) * 500_000)"><SegmentList timescale="10" duration="20">\
                <Initialization sourceURL="r\(index)-init.mp4"/>\(segments)</SegmentList></Representation>

                """
        }
        return directory.write("show.mpd", Data("""
            <?xml version="1.0" encoding="UTF-8"?>
            <MPD xmlns="urn:mpeg:dash:schema:mpd:2011" type="static" mediaPresentationDuration="PT6S" minBufferTime="PT2S" \
            profiles="urn:mpeg:dash:profile:isoff-on-demand:2011"><Period><AdaptationSet contentType="video" segmentAlignment="true">
            \(representations)</AdaptationSet></Period></MPD>

            """.utf8))
    }

    @Test(arguments: ["libx264", "mpeg4"]) func aPlaylistIsOneVideoWithExactTimesAcrossSegments(encoder: String) throws {
        let directory = TemporaryDirectory()
        let playlist = directory.file("made/show.m3u8")
        // 10 fps with a keyframe (and a segment) every 2 s; cues every 0.7 s fall inside and across segments.
        let made = try CommandLineTests.run(["sample", "--out", playlist, "--duration", "8", "--size", "320x180",
                                             "--fps", "10", "--keyframe-interval", "2", "--preset", "ultrafast", "--encoder", encoder])
        #expect(made.status == 0, "\(made.stderr)")
        let names = try FileManager.default.contentsOfDirectory(atPath: directory.file("made")).sorted()
        #expect(names == ["show-000.ts", "show-001.ts", "show-002.ts", "show-003.ts", "show.m3u8"], "\(names)")
        let text = try String(contentsOfFile: playlist, encoding: .utf8)
        #expect(text.contains("#EXT-X-PLAYLIST-TYPE:VOD") && text.contains("#EXT-X-ENDLIST"))

        let out = directory.file("out")
        let run = try CommandLineTests.run(["thumbnails", playlist, "--out", out, "--interval", "0.7"])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(try ThumbnailTests.expectTilesOnTheirFrames(in: out + "/show/thumbnails/", fps: 10).count == 12)
    }

    /// A multivariant playlist is one video read at one rendition: `auto` takes the smallest at least twice the
    /// thumbnail width, the others are there on request (`highest`, `lowest`, a size, an index), and the manifest
    /// says which and why. Every tile shows the frame its cue starts at, across segments, with MPEG-TS and with
    /// fragmented MP4 segments; a rendition the ladder lacks fails that input alone, with one line listing them.
    @Test(arguments: [false, true])
    func aLadderIsOneVideoReadAtTheRenditionAsked(fragmentedMP4: Bool) throws {
        let directory = TemporaryDirectory()
        // Listed out of size order, as real ladders often are.
        let sizes = ["1280x720", "320x180", "640x360"]
        var master = "#EXTM3U\n#EXT-X-VERSION:7\n"
        for (index, size) in sizes.enumerated() {
            let made = try CommandLineTests.run(["sample", "--out", directory.file("v\(index).m3u8"), "--duration", "6",
                                                 "--size", size, "--fps", "10", "--keyframe-interval", "2",
                                                 "--preset", "ultrafast"] + (fragmentedMP4 ? ["--fmp4"] : []))
            #expect(made.status == 0, "\(made.stderr)")
            master += "#EXT-X-STREAM-INF:BANDWIDTH=\((index + 1) * 500_000),RESOLUTION=\(size)\nv\(index).m3u8\n"
        }
        let playlist = directory.write("show.m3u8", Data(master.utf8))
        func thumbnails(_ rendition: String?) throws -> [String: Any] {
            let out = directory.file("out-\(rendition ?? "default")")
            let run = try CommandLineTests.run(["thumbnails", playlist, "--out", out, "--interval", "0.7"]
                                               + (rendition.map { ["--rendition", $0] } ?? []))
            #expect(run.status == 0, "\(run.stderr)")
            let folder = out + "/show/thumbnails/"
            #expect(try ThumbnailTests.expectTilesOnTheirFrames(in: folder, fps: 10).count == 9)
            let manifest = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: out + "/show/manifest.json")))
            return ((manifest as? [String: Any])?["probe"] as? [String: Any])?["rendition"] as? [String: Any] ?? [:]
        }
        let auto = try thumbnails(nil)
        #expect(auto["index"] as? Int == 1 && auto["width"] as? Int == 320 && auto["count"] as? Int == 3, "\(auto)")
        #expect((auto["reason"] as? String)?.hasPrefix("auto: the smallest at least 320 px wide") == true, "\(auto)")
        #expect(auto["bandwidth"] as? Int == 1_000_000)
        for (asked, width) in [("highest", 1280), ("lowest", 320), ("640x360", 640), ("0", 1280)] {
            #expect(try thumbnails(asked)["width"] as? Int == width, "\(asked)")
        }
        let probe = try CommandLineTests.run(["probe", "--json", playlist])
        #expect(probe.stdout.contains("\"width\" : 1280"), "probe reads the highest by default: \(probe.stdout)")

        let single = try makeSample(in: directory, name: "single.mp4")
        let bad = try CommandLineTests.run(["thumbnails", playlist, single, "--out", directory.file("out-bad"), "--rendition", "5"])
        #expect(bad.status == 1)
        #expect(bad.stderr.contains("\(playlist): no rendition 5 (the input has 0: 1280x720, 1: 320x180, 2: 640x360)"), "\(bad.stderr)")
        #expect(FileManager.default.fileExists(atPath: directory.file("out-bad") + "/single/thumbnails/thumbnails.vtt"))
    }

    /// The playlist's own timeline: segments stamped from 10 s (a live capture's clock) and an
    /// `#EXT-X-PROGRAM-DATE-TIME` before each segment shift no cue; the first tile is the first frame.
    @Test func programDateTimeAndAStartAfterZeroDoNotShiftTheCues() throws {
        let directory = TemporaryDirectory()
        let playlist = directory.file("live.m3u8")
        let made = try CommandLineTests.run(["sample", "--out", playlist, "--duration", "6", "--size", "320x180", "--fps", "10",
                                             "--keyframe-interval", "2", "--start-time", "10", "--preset", "ultrafast"])
        #expect(made.status == 0, "\(made.stderr)")
        var lines: [String] = []
        var second = 0
        for line in try String(contentsOfFile: playlist, encoding: .utf8).split(separator: "\n").map(String.init) {
            if line.hasPrefix("#EXTINF") {
                lines.append(String(format: "#EXT-X-PROGRAM-DATE-TIME:2026-03-01T12:00:%02d.000Z", second))
                second += 2
            }
            lines.append(line)
        }
        try (lines.joined(separator: "\n") + "\n").write(toFile: playlist, atomically: true, encoding: .utf8)
        let out = directory.file("out")
        let run = try CommandLineTests.run(["thumbnails", playlist, "--out", out, "--interval", "0.7"])
        #expect(run.status == 0, "\(run.stderr)")
        let folder = out + "/live/thumbnails/"
        let cues = try ThumbnailTests.expectTilesOnTheirFrames(in: folder, fps: 10)
        #expect(cues.first?.start == 0 && abs((cues.last?.end ?? 0) - 6) < 0.01, "\(cues.map(\.start))")
    }

    /// A DASH manifest is one video too: its representations (here fragmented MP4 segments listed one by one)
    /// are renditions, picked the same way, with every tile on its frame.
    @Test func aDASHManifestIsOneVideoReadAtTheRenditionAsked() throws {
        let directory = TemporaryDirectory()
        let manifest = try Self.sampleManifest(in: directory)
        for (asked, width) in [("auto", 320), ("highest", 1280)] {
            let out = directory.file("out-\(asked)")
            let run = try CommandLineTests.run(["thumbnails", manifest, "--out", out, "--interval", "0.7", "--rendition", asked])
            #expect(run.status == 0, "\(run.stderr)")
            let folder = out + "/show/thumbnails/"
            #expect(try ThumbnailTests.expectTilesOnTheirFrames(in: folder, fps: 10).count == 9)
            let probe = try #require(ManifestStore.read(out + "/show/manifest.json")?.probe)
            #expect(probe.rendition?.width == width && probe.rendition?.count == 3 && probe.codedWidth == width, "\(asked)")
        }
    }

    /// A local manifest given on a relative path (FFmpeg's dash demuxer cannot resolve its segments from one), without
    /// the `profiles` FFmpeg's probe looks for: every tile on its frame, and keyframe seeking on its keyframes. A segment missing from disk fails the HLS playlist that lists it, naming it, rather than
    /// leave the seconds it held showing the frame before.
    @Test func aRelativeManifestIsReadAndAMissingSegmentFailsItsPlaylist() throws {
        let directory = TemporaryDirectory()
        try Self.samplePlaylist(directory.file("r0.m3u8"), ["--fmp4"])
        let segments = (0..<3).map { "<SegmentURL media=\"r0-\(String(format: "%03d", $0)).m4s\"/>" }.joined()
        try """
            <?xml version="1.0"?>
            <MPD xmlns="urn:mpeg:dash:schema:mpd:2011" type="static" mediaPresentationDuration="PT6S"><Period>
            <AdaptationSet contentType="video"><Representation id="0" mimeType="video/mp4" width="320" height="180" \
            bandwidth="500000"><SegmentList timescale="10" duration="20"><Initialization sourceURL="r0-init.mp4"/>\(segments)\
            </SegmentList></Representation></AdaptationSet></Period></MPD>

            """.write(toFile: directory.file("show.mpd"), atomically: true, encoding: .utf8)
        let run = try CommandLineTests.run(["thumbnails", "show.mpd", "--out", "out", "--interval", "0.7"], in: directory.path)
        #expect(run.status == 0, "\(run.stderr)")
        #expect(try ThumbnailTests.expectTilesOnTheirFrames(in: directory.file("out/show/thumbnails/"), fps: 10).count == 9)
        #expect(try #require(ManifestStore.read(directory.file("out/show/manifest.json"))?.probe).fileFormat == "dash")
        // Seeking in its segments lands on the keyframe at or before each cue (FFmpeg 5.1's hls demuxer, given such
        // segments as a playlist, seeks to garbage).
        let keyframes = try CommandLineTests.run(["thumbnails", "show.mpd", "--out", "out-key", "--interval", "1",
                                                  "--seek", "keyframe"], in: directory.path)
        #expect(keyframes.status == 0, "\(keyframes.stderr)")
        let cues = try ThumbnailTests.parseVTT(String(contentsOfFile: directory.file("out-key/show/thumbnails/thumbnails.vtt"),
                                                      encoding: .utf8))
        let sheet = try readImage(directory.file("out-key/show/thumbnails/") + cues[0].file)
        #expect(cues.map { sheet.frameCode(in: $0.rect) } == [0, 0, 20, 20, 40, 40])

        // A rendition's playlist missing from a ladder: left out, as players leave it, and said; a ladder of none
        // that can be read fails naming one, not taken for a ladder without video.
        let ladder = directory.write("ladder.m3u8", Data("""
            #EXTM3U
            #EXT-X-STREAM-INF:BANDWIDTH=2000000,RESOLUTION=640x360
            gone.m3u8
            #EXT-X-STREAM-INF:BANDWIDTH=500000,RESOLUTION=320x180
            r0.m3u8

            """.utf8))
        let skipped = "cannot read \(directory.file("gone.m3u8")), which the playlist lists: No such file or directory"
        let probed = try CommandLineTests.run(["probe", "--json", ladder])
        #expect(probed.status == 0, "\(probed.stderr)")
        let report = try #require((try JSONSerialization.jsonObject(with: Data(probed.stdout.utf8)) as? [[String: Any]])?.first)
        #expect(report["skippedRenditions"] as? [String] == [skipped] && report["displayWidth"] as? Int == 320, "\(report)")
        let track = try CommandLineTests.run(["thumbnails", ladder, "--out", directory.file("out-ladder"), "--interval", "1"])
        #expect(track.status == 0 && track.stderr.contains("warning: a rendition is left out of the ladder, as players leave it: "
                                                           + skipped), "\(track.stderr)")
        #expect(try ThumbnailTests.expectTilesOnTheirFrames(in: directory.file("out-ladder/ladder/thumbnails/"), fps: 10).count == 6)
        // Kept with the track, so the review page and `report` say it (it was said on stderr only).
        let manifest = try #require(ManifestStore.read(directory.file("out-ladder/ladder/manifest.json")))
        #expect(manifest.thumbnails?.warnings.contains { $0.hasSuffix(skipped) } == true, "\(manifest.warnings)")
        let page = try String(contentsOfFile: directory.file("out-ladder/index.html"), encoding: .utf8)
        #expect(page.contains("a rendition is left out of the ladder"))
        let none = directory.write("none.m3u8", Data("#EXTM3U\n#EXT-X-STREAM-INF:BANDWIDTH=2000000\ngone.m3u8\n".utf8))
        let gone = try CommandLineTests.run(["probe", none])
        #expect(gone.status == 1)
        #expect(gone.stderr.contains("framefarm: \(none): " + skipped), "\(gone.stderr)")

        try FileManager.default.removeItem(atPath: directory.file("r0-001.m4s"))
        let missing = try CommandLineTests.run(["thumbnails", directory.file("r0.m3u8"), "--out", directory.file("out-missing"),
                                                "--interval", "1"])
        #expect(missing.status == 1)
        #expect(missing.stderr.contains("framefarm: \(directory.file("r0.m3u8")): cannot read \(directory.file("r0-001.m4s")), which the "
                                        + "playlist lists: No such file or directory"), "\(missing.stderr)")
    }

    /// A playlist is sought by opening it again from the segment that holds the target. FFmpeg 5.1's hls demuxer
    /// seeks fragmented-MP4 segments to garbage (`--seek keyframe` found no frame at all), and MPEG-TS ones to the
    /// first keyframe of the target's segment. Segments of two keyframes each, byte ranges of one file (the later
    /// ones without an offset), alone and as a ladder's second rendition: every keyframe tile shows the keyframe at
    /// or before its cue, the second of a segment's included, and every exact tile its frame.
    @Test(arguments: [true, false]) func segmentsAreSoughtToTheKeyframeAtOrBefore(fragmentedMP4: Bool) throws {
        let directory = TemporaryDirectory()
        for (name, size, fmp4) in [("r", "320x180", fragmentedMP4), ("big", "640x360", false)] {
            let made = try CommandLineTests.run(["sample", "--out", directory.file(name + ".m3u8"), "--duration", "6", "--size", size,
                                                 "--fps", "10", "--keyframe-interval", "1", "--preset", "ultrafast"]
                                                + (fmp4 ? ["--fmp4"] : []))
            #expect(made.status == 0, "\(made.stderr)")
        }
        let segment = fragmentedMP4 ? "m4s" : "ts"
        let parts = try (0..<6).map { try Data(contentsOf: URL(fileURLWithPath: directory.file("r-00\($0).\(segment)"))) }
        _ = directory.write("whole.\(segment)", parts.reduce(Data(), +))
        var ranges = "#EXTM3U\n#EXT-X-VERSION:7\n#EXT-X-TARGETDURATION:2\n#EXT-X-PLAYLIST-TYPE:VOD\n"
            + (fragmentedMP4 ? "#EXT-X-MAP:URI=\"r-init.mp4\"\n" : "")
        for pair in 0..<3 {
            ranges += "#EXTINF:2.0,\n#EXT-X-BYTERANGE:\(parts[2 * pair].count + parts[2 * pair + 1].count)\(pair == 0 ? "@0" : "")"
                + "\nwhole.\(segment)\n"
        }
        let media = directory.write("ranges.m3u8", Data((ranges + "#EXT-X-ENDLIST\n").utf8))
        let ladder = directory.write("ladder.m3u8", Data("""
            #EXTM3U
            #EXT-X-STREAM-INF:BANDWIDTH=2000000,RESOLUTION=640x360
            big.m3u8
            #EXT-X-STREAM-INF:BANDWIDTH=500000,RESOLUTION=320x180
            ranges.m3u8

            """.utf8))
        for input in [media, ladder] {
            let name = URL(fileURLWithPath: input).deletingPathExtension().lastPathComponent
            let keyframes = try CommandLineTests.run(["thumbnails", input, "--out", directory.file("key"), "--interval", "0.5",
                                                      "--seek", "keyframe"])
            #expect(keyframes.status == 0, "\(keyframes.stderr)")
            let folder = directory.file("key/\(name)/thumbnails/")
            let cues = try ThumbnailTests.parseVTT(String(contentsOfFile: folder + "thumbnails.vtt", encoding: .utf8))
            #expect(try ThumbnailTests.frameNumbers(cues, folder: folder) == cues.map { Int($0.start) * 10 }, "\(name)")
            let exact = try CommandLineTests.run(["thumbnails", input, "--out", directory.file("exact"), "--interval", "0.7"])
            #expect(exact.status == 0, "\(exact.stderr)")
            #expect(try ThumbnailTests.expectTilesOnTheirFrames(in: directory.file("exact/\(name)/thumbnails/"), fps: 10).count == 9)
        }
    }

    /// A manifest of megabytes (a long video's timeline, a segment's URL signed each) is read; one past 16 MiB is
    /// refused in one line, rather than cut short and called malformed XML.
    @Test func aLargeManifestIsReadAndAnOversizedOneIsRefused() throws {
        let directory = TemporaryDirectory()
        try Self.samplePlaylist(directory.file("r0.m3u8"), seconds: 4, ["--fmp4"])
        func manifest(_ name: String, megabytes: Int) -> String {
            directory.write(name, Data("""
                <?xml version="1.0"?>
                <!-- \(String(repeating: "x", count: megabytes << 20)) -->
                <MPD xmlns="urn:mpeg:dash:schema:mpd:2011" type="static" mediaPresentationDuration="PT4S"><Period>
                <AdaptationSet contentType="video"><Representation id="0" mimeType="video/mp4" width="320" height="180" \
                bandwidth="500000"><SegmentList timescale="10" duration="20"><Initialization sourceURL="r0-init.mp4"/>\
                <SegmentURL media="r0-000.m4s"/><SegmentURL media="r0-001.m4s"/></SegmentList></Representation>
                </AdaptationSet></Period></MPD>

                """.utf8))
        }
        let large = manifest("large.mpd", megabytes: 2), oversized = manifest("oversized.mpd", megabytes: 17)
        let run = try CommandLineTests.run(["thumbnails", large, oversized, "--out", directory.file("out"), "--interval", "1"])
        #expect(run.status == 1)
        #expect(try ThumbnailTests.expectTilesOnTheirFrames(in: directory.file("out/large/thumbnails/"), fps: 10).count == 4)
        #expect(run.stderr.contains("framefarm: \(oversized): cannot read this DASH manifest: it is larger than 16 MiB"), "\(run.stderr)")
    }

    /// Local segments FFmpeg would open and read nothing from, or decrypt to garbage: an empty file, a folder, an
    /// AES-128 segment cut short. Each fails its playlist naming the segment.
    @Test func emptyFolderAndUndecryptableSegmentsFailTheirPlaylist() throws {
        let directory = TemporaryDirectory()
        for (name, encrypt) in [("empty", false), ("folder", false), ("cut", true)] {
            let made = try CommandLineTests.run(["sample", "--out", directory.file(name + ".m3u8"), "--duration", "6", "--size", "320x180",
                                                 "--fps", "10", "--keyframe-interval", "2", "--preset", "ultrafast"]
                                                + (encrypt ? ["--encrypt"] : []))
            #expect(made.status == 0, "\(made.stderr)")
        }
        try Data().write(to: URL(fileURLWithPath: directory.file("empty-001.ts")))
        try FileManager.default.removeItem(atPath: directory.file("folder-001.ts"))
        try FileManager.default.createDirectory(atPath: directory.file("folder-001.ts"), withIntermediateDirectories: false)
        let cut = directory.file("cut-001.ts")
        try FileManager.default.contents(atPath: cut)!.dropLast(5).write(to: URL(fileURLWithPath: cut))
        let inputs = ["empty", "folder", "cut"].map { directory.file($0 + ".m3u8") }
        let run = try CommandLineTests.run(["thumbnails"] + inputs + ["--out", directory.file("out"), "--interval", "1"])
        #expect(run.status == 1)
        for (input, reason) in zip(inputs, ["file is empty (0 bytes)", "is a directory, not a file", "cannot decrypt it: "]) {
            let segment = input.replacingOccurrences(of: ".m3u8", with: "-001.ts")
            #expect(run.stderr.contains("framefarm: \(input): cannot read \(segment), which the playlist lists: \(reason)"), "\(run.stderr)")
        }
    }

    /// A segment that is no media (an error page a server saved in its place) fails its playlist naming it and how it
    /// begins: FFmpeg read it as holding nothing and went on, so the next segment's frames stood in for it.
    @Test func aSegmentThatIsNoMediaFailsItsPlaylist() throws {
        let directory = TemporaryDirectory()
        let playlist = directory.file("page.m3u8")
        try Self.samplePlaylist(playlist)
        let segment = directory.file("page-001.ts")
        try Data("<!DOCTYPE html>\n<title>Bad Gateway</title>\n".utf8).write(to: URL(fileURLWithPath: segment))
        let run = try CommandLineTests.run(["thumbnails", playlist, "--out", directory.file("out"), "--interval", "1"])
        #expect(run.status == 1)
        #expect(run.stderr.contains("framefarm: \(playlist): cannot read \(segment), which the playlist lists: it is not in a format "
                                    + "segments come in (MPEG-TS, MP4, WebM, AAC, MP3, AC-3): it begins \"<!DOCTYPE html>\""), "\(run.stderr)")
        #expect(!FileManager.default.fileExists(atPath: directory.file("out/page/thumbnails")))
    }

    /// A fragmented-MP4 segment cut short (an upload that stopped) fails its playlist naming it: FFmpeg read its
    /// missing frames from the next segment's bytes, and the tiles there froze without a word.
    @Test func aFragmentedMP4SegmentCutShortFailsItsPlaylist() throws {
        let directory = TemporaryDirectory()
        let playlist = directory.file("cut.m3u8")
        try Self.samplePlaylist(playlist, ["--fmp4"])
        let segment = directory.file("cut-001.m4s")
        let whole = try Data(contentsOf: URL(fileURLWithPath: segment))
        try whole.prefix(whole.count * 2 / 3).write(to: URL(fileURLWithPath: segment))
        let run = try CommandLineTests.run(["thumbnails", playlist, "--out", directory.file("out"), "--interval", "1"])
        #expect(run.status == 1)
        #expect(run.stderr.contains("framefarm: \(playlist): cannot read \(segment), which the playlist lists: it is cut short: its "
                                    + "'mdat' box needs \(whole.count) bytes, the file has \(whole.count * 2 / 3)"), "\(run.stderr)")
    }

    /// AES-128 segments with a key the playlist points to (a file, or inline as a data: URI) are read: every tile on
    /// its frame.
    /// DRM that needs a license server (FairPlay in a rendition playlist of an HLS ladder, Widevine in a DASH
    /// manifest) fails its input with one line naming the system, and the batch goes on.
    @Test func encryptedSegmentsAreReadAndDRMIsOneClearLine() throws {
        let directory = TemporaryDirectory()
        let playlist = directory.file("locked.m3u8")
        try Self.samplePlaylist(playlist, seconds: 4, ["--encrypt"])
        #expect(try String(contentsOfFile: playlist, encoding: .utf8).contains("#EXT-X-KEY:METHOD=AES-128,URI=\"locked.key\""))
        let segment = try Data(contentsOf: URL(fileURLWithPath: directory.file("locked-000.ts")))
        #expect(!(segment[0] == 0x47 && segment[188] == 0x47), "the segment is plain MPEG-TS")

        try """
            #EXTM3U
            #EXT-X-STREAM-INF:BANDWIDTH=500000,RESOLUTION=320x180
            fairplay.m3u8

            """.write(toFile: directory.file("store.m3u8"), atomically: true, encoding: .utf8)
        try """
            #EXTM3U
            #EXT-X-TARGETDURATION:2
            #EXT-X-KEY:METHOD=SAMPLE-AES,URI="skd://key42",KEYFORMAT="com.apple.streamingkeydelivery",KEYFORMATVERSIONS="1"
            #EXTINF:2.0,
            locked-000.ts
            #EXT-X-ENDLIST

            """.write(toFile: directory.file("fairplay.m3u8"), atomically: true, encoding: .utf8)
        try """
            <?xml version="1.0"?>
            <MPD xmlns="urn:mpeg:dash:schema:mpd:2011" type="static" mediaPresentationDuration="PT4S"><Period>
            <AdaptationSet mimeType="video/mp4"><ContentProtection schemeIdUri="urn:mpeg:dash:mp4protection:2011" value="cenc"/>
            <ContentProtection schemeIdUri="urn:uuid:EDEF8BA9-79D6-4ACE-A3C8-27DCD51D21ED"/>
            <Representation id="0" bandwidth="500000" width="320" height="180"><BaseURL>clip.mp4</BaseURL></Representation>
            </AdaptationSet></Period></MPD>

            """.write(toFile: directory.file("widevine.mpd"), atomically: true, encoding: .utf8)
        let out = directory.file("out")
        let run = try CommandLineTests.run(["thumbnails", playlist, directory.file("store.m3u8"), directory.file("widevine.mpd"),
                                            "--out", out, "--interval", "0.7"])
        #expect(run.status == 1)
        let lines = run.stderr.split(separator: "\n").filter { $0.contains("DRM-protected") }
        #expect(lines.count == 2, "\(run.stderr)")
        #expect(lines.contains { $0.hasPrefix("framefarm: \(directory.file("store.m3u8")): DRM-protected (FairPlay)") }, "\(lines)")
        #expect(lines.contains { $0.hasPrefix("framefarm: \(directory.file("widevine.mpd")): DRM-protected (Widevine)") }, "\(lines)")
        #expect(!FileManager.default.fileExists(atPath: out + "/store") && !FileManager.default.fileExists(atPath: out + "/widevine"))
        let folder = out + "/locked/thumbnails/"
        try ThumbnailTests.expectTilesOnTheirFrames(in: folder, fps: 10)

        // The key inline, as a data: URI (which FFmpeg's list of media extensions would refuse).
        let key = try Data(contentsOf: URL(fileURLWithPath: directory.file("locked.key"))).base64EncodedString()
        try String(contentsOfFile: playlist, encoding: .utf8)
            .replacingOccurrences(of: "URI=\"locked.key\"", with: "URI=\"data:application/octet-stream;base64,\(key)\"")
            .write(toFile: directory.file("inline.m3u8"), atomically: true, encoding: .utf8)
        let inline = try CommandLineTests.run(["thumbnails", directory.file("inline.m3u8"), "--out", out, "--interval", "0.7"])
        #expect(inline.status == 0, "\(inline.stderr)")
        try ThumbnailTests.expectTilesOnTheirFrames(in: out + "/inline/thumbnails/", fps: 10)
    }

    /// A live stream (an HLS playlist still growing, directly or as a ladder's rendition; a dynamic DASH manifest)
    /// has no end to read: FFmpeg would reload it for as long as it grows. Each fails at once with one line; the
    /// same playlist finished is read.
    @Test func aLiveStreamIsOneClearLineNotAWaitWithoutEnd() throws {
        let directory = TemporaryDirectory()
        let playlist = directory.file("show.m3u8")
        try Self.samplePlaylist(playlist, seconds: 4)
        let finished = try String(contentsOfFile: playlist, encoding: .utf8)
        #expect(finished.contains("#EXT-X-ENDLIST"))
        let growing = finished.split(separator: "\n").filter { !$0.hasPrefix("#EXT-X-ENDLIST") && !$0.hasPrefix("#EXT-X-PLAYLIST-TYPE") }
        try (growing.joined(separator: "\n") + "\n").write(toFile: directory.file("live.m3u8"), atomically: true, encoding: .utf8)
        try "#EXTM3U\n#EXT-X-STREAM-INF:BANDWIDTH=500000,RESOLUTION=320x180\nlive.m3u8\n"
            .write(toFile: directory.file("ladder.m3u8"), atomically: true, encoding: .utf8)
        try """
            <?xml version="1.0"?>
            <MPD xmlns="urn:mpeg:dash:schema:mpd:2011" type="dynamic" availabilityStartTime="2026-01-01T00:00:00Z"><Period>
            <AdaptationSet mimeType="video/mp4"><Representation id="0" bandwidth="500000" width="320" height="180">
            <BaseURL>clip.mp4</BaseURL></Representation></AdaptationSet></Period></MPD>

            """.write(toFile: directory.file("dynamic.mpd"), atomically: true, encoding: .utf8)
        let inputs = ["live.m3u8", "ladder.m3u8", "dynamic.mpd"].map(directory.file)
        let run = try CommandLineTests.run(["thumbnails"] + inputs + [playlist, "--out", directory.file("out"), "--interval", "1"])
        #expect(run.status == 1)
        for input in inputs {
            #expect(run.stderr.contains("framefarm: \(input): a live stream (an HLS playlist without #EXT-X-ENDLIST"), "\(run.stderr)")
        }
        #expect(FileManager.default.fileExists(atPath: directory.file("out/show/thumbnails/thumbnails.vtt")))
    }
}

