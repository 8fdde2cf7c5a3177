import Foundation
import FrameFarmMedia
import Testing
@testable import FrameFarm

/// DASH manifests over http, against a real nginx (`WebServer`): a representation's one file (SegmentBase), or its
/// segments (SegmentTemplate) as an HLS playlist FFmpeg reads from memory, are read by FrameFarm's own reader, as any
/// remote input is, so they get `--header`, `--io-timeout`, bounded range requests and the manifest's token, and
/// only the representation picked is read; what a remote manifest may name is checked before FFmpeg sees it.
@Suite(.serialized, .enabled(if: WebServer.available, "nginx is not installed: apt-get install nginx to run these tests"))
struct RemoteDASHTests {
    private static let query = RemoteInputTests.query
    private static let signature = RemoteInputTests.signature

    /// Three representations (1280x720, 320x180, 640x360, ids 0-2) of 6 s at 10 fps under `videos/show/`, and a
    /// manifest there listing them: each one MP4 file (`v<id>.mp4`, SegmentBase), or `segmented`, fragmented-MP4
    /// segments of 2 s (`v<id>-init.mp4`, `v<id>-000.m4s` ...) by a `$Number$` template. `base` gives each
    /// representation's BaseURL (before the file's name).
    private func serveLadder(_ server: WebServer, segmented: Bool, manifest: String = "show.mpd",
                             base: (Int) -> String = { _ in "" }) throws -> String {
        let folder = server.root + "/videos/show"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        var representations = ""
        for (index, size) in ["1280x720", "320x180", "640x360"].enumerated() {
            let sample = folder + "/v\(index)" + (segmented ? ".m3u8" : ".mp4")
            if !FileManager.default.fileExists(atPath: sample) {
                let made = try CommandLineTests.run(["sample", "--out", sample, "--duration", "6", "--size", size, "--fps", "10",
                                                     "--keyframe-interval", "2", "--preset", "ultrafast"] + (segmented ? ["--fmp4"] : []))
                try #require(made.status == 0, "\(made.stderr)")
            }
            let sides = size.split(separator: "x")
            let media = segmented ? "<BaseURL>\(base(index).isEmpty ? "./" : base(index))</BaseURL>"
                : "<BaseURL>\(base(index))v\(index).mp4</BaseURL><SegmentBase/>"
            representations += "<Representation id=\"\(index)\" width=\"\(sides[0])\" height=\"\(sides[1])\" "
                + "bandwidth=\"\((index + 1) * 500_000)\">\(media)</Representation>\n"
        }
        let template = segmented ? """
            <SegmentTemplate timescale="10" duration="20" startNumber="0" initialization="v$RepresentationID$-init.mp4" \
            media="v$RepresentationID$-$Number%03d$.m4s"/>
            """ : ""
        try """
            <?xml version="1.0" encoding="UTF-8"?>
            <MPD xmlns="urn:mpeg:dash:schema:mpd:2011" type="static" mediaPresentationDuration="PT6S" minBufferTime="PT2S"
             profiles="urn:mpeg:dash:profile:isoff-on-demand:2011"><Period><AdaptationSet contentType="video" mimeType="video/mp4">
            \(template)\(representations)</AdaptationSet></Period></MPD>
            """.write(toFile: folder + "/" + manifest, atomically: true, encoding: .utf8)
        return folder
    }

    /// The file a representation's failure names: its one file, or (`segmented`) the segment named.
    private func file(_ id: Int, segmented: Bool, segment: String = "init.mp4") -> String {
        segmented ? "v\(id)-\(segment)" : "v\(id).mp4"
    }

    /// `auto` reads the 320-px representation and nothing of the others (FFmpeg's dash demuxer would analyse
    /// them all), every request a bounded range carrying the manifest's token; every keyframe tile shows the keyframe
    /// at or before its cue, and the manifest records the rendition and the DASH format.
    @Test(arguments: [false, true]) func aRemoteManifestIsReadInRangeRequestsThatCarryItsToken(segmented: Bool) throws {
        let server = try WebServer()
        let folder = try serveLadder(server, segmented: segmented)
        let out = server.folder.file("out")
        let run = try CommandLineTests.run(["thumbnails", server.url("videos/show/show.mpd") + Self.query, "--out", out,
                                            "--interval", "0.7", "--seek", "keyframe"])
        #expect(run.status == 0, "\(run.stderr)")
        let cues = try ThumbnailTests.parseVTT(String(contentsOfFile: out + "/show/thumbnails/thumbnails.vtt", encoding: .utf8))
        let sheet = try readImage(out + "/show/thumbnails/" + cues[0].file)
        // The keyframe at or before each cue (a keyframe every 2 s at 10 fps).
        #expect(cues.map { sheet.frameCode(in: $0.rect) } == cues.map { Int($0.start / 2) * 20 }, "\(cues.map(\.start))")
        let probe = try #require(ManifestStore.read(out + "/show/manifest.json")?.probe)
        #expect(probe.rendition?.width == 320 && probe.rendition?.count == 3 && probe.codedWidth == 320)
        #expect(probe.fileFormat == "dash")

        let requests = server.accessLog.filter { $0.contains("/videos/show/") }
        for line in requests {
            #expect(line.contains(Self.signature), "a request without the manifest's token: \(line)")
            #expect(line.range(of: #""bytes=[0-9]+-[0-9]+" (200|206) "#, options: .regularExpression) != nil, "unbounded: \(line)")
        }
        let picked = segmented ? ["v1-init.mp4", "v1-000.m4s", "v1-001.m4s", "v1-002.m4s"] : ["v1.mp4"]
        // Each segment asked for once, however often the playlist is opened again to seek (`RangeCache`).
        for name in picked {
            let count = requests.filter { $0.contains("/" + name) }.count
            #expect(segmented ? count == 1 : count > 0, "\(name): \(count) requests")
        }
        #expect(!requests.contains { $0.contains("/v0") || $0.contains("/v2") }, "\(requests)")
        #expect(!run.stdout.contains(Self.signature) && !run.stderr.contains(Self.signature))

        // A manifest's URL need not end in .mpd: it is known by its content.
        try FileManager.default.copyItem(atPath: folder + "/show.mpd", toPath: folder + "/manifest")
        let probed = try CommandLineTests.run(["probe", "--json", server.url("videos/show/manifest")])
        #expect(probed.status == 0, "\(probed.stderr)")
        let report = try #require((try JSONSerialization.jsonObject(with: Data(probed.stdout.utf8)) as? [[String: Any]])?.first)
        #expect(report["fileFormat"] as? String == "dash" && report["codedWidth"] as? Int == 1280, "\(report)")
        // Nor need it be where the media are: a short link redirects to it, and what it names is relative to where
        // the redirect led.
        let short = try CommandLineTests.run(["thumbnails", server.url("go/show-mpd"), "--out", server.folder.file("short"),
                                              "--interval", "1"])
        #expect(short.status == 0, "\(short.stderr)")
        #expect(try ThumbnailTests.expectTilesOnTheirFrames(in: server.folder.file("short") + "/show-mpd/thumbnails/", fps: 10).count == 6)
    }

    /// A private origin's `--header` reaches the representation's file or segments.
    @Test(arguments: [false, true]) func headersReachTheRepresentationsFiles(segmented: Bool) throws {
        let server = try WebServer()
        _ = try serveLadder(server, segmented: segmented)
        let out = server.folder.file("out")
        let input = server.url("private/show/show.mpd")
        let refused = try CommandLineTests.run(["thumbnails", input, "--out", out, "--interval", "1"])
        #expect(refused.status == 1 && refused.stderr.contains("\(input): HTTP 401 Unauthorized"), "\(refused.stderr)")
        let run = try CommandLineTests.run(["thumbnails", input, "--out", out, "--interval", "1",
                                            "--header", "Authorization: Bearer opensesame"])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(try ThumbnailTests.expectTilesOnTheirFrames(in: out + "/show/thumbnails/", fps: 10).count == 6)
        let last = file(1, segmented: segmented, segment: "002.m4s")
        #expect(server.accessLog.contains { $0.contains("/private/show/\(last)") && $0.contains(" 206 ") })
    }

    /// A representation's segment the server does not have (FFmpeg's dash demuxer skipped a missing segment), one
    /// on a server that stalls past `--io-timeout`, and a manifest naming this machine's files: each fails its input
    /// with one line naming what, and nothing after a failed segment is asked for. A representation whose one file is
    /// gone is left out, as players leave it (a warning naming it), and another is read.
    @Test(arguments: [false, true]) func aFileThatCannotBeReadFailsItsInputNamingIt(segmented: Bool) throws {
        let server = try WebServer()
        let stalling = try server.proxy("stall")
        let folder = try serveLadder(server, segmented: segmented)
        _ = try serveLadder(server, segmented: segmented, manifest: "stalled.mpd") { _ in server.url("videos/show/", port: stalling) }
        _ = try serveLadder(server, segmented: segmented, manifest: "local.mpd") { _ in "file:///etc/" }
        // Only a representation that is not the one picked names a local file: still refused.
        _ = try serveLadder(server, segmented: segmented, manifest: "hidden.mpd") { $0 == 2 ? "file:///etc/" : "" }
        let gone = file(1, segmented: segmented, segment: "001.m4s")
        try FileManager.default.removeItem(atPath: folder + "/" + gone)
        let missing = server.url("videos/show/show.mpd")
        let out = server.folder.file("out")
        let inputs = [missing, server.url("videos/show/stalled.mpd") + Self.query, server.url("videos/show/local.mpd"),
                      server.url("videos/show/hidden.mpd")]
        let started = Date()
        let run = try CommandLineTests.run(["thumbnails"] + inputs + ["--out", out, "--layout", "hashed", "--io-timeout", "2"])
        #expect(Date().timeIntervalSince(started) < 40)
        #expect(run.status == 1)
        let lines = run.stderr.split(separator: "\n").map(String.init).filter { !$0.contains("inputs done in") }
        let cannotRead = "cannot read \(server.url("videos/show/" + gone)), which the manifest lists: HTTP 404 Not Found"
        #expect(lines.contains("framefarm: \(missing): " + (segmented ? cannotRead : "warning: a rendition is left out of the "
                                                             + "ladder, as players leave it: representation 1 (320x180): " + cannotRead)),
                "\(lines)")
        #expect(lines.contains("framefarm: \(server.url("videos/show/stalled.mpd")): cannot read "
                               + "\(server.url("videos/show/" + file(1, segmented: segmented), port: stalling)), which the manifest "
                               + "lists: timed out: no data from the server for 2 s (--io-timeout)"), "\(lines)")
        for (manifest, id) in [("local", 0), ("hidden", 2)] {
            #expect(lines.contains { $0.hasPrefix("framefarm: \(server.url("videos/show/\(manifest).mpd")): cannot read this DASH "
                                                  + "manifest: it names 'file:")
                                     && $0.hasSuffix("\(file(id, segmented: segmented))', which is not an http(s) URL") }, "\(lines)")
        }
        #expect(lines.count == 4, "\(lines)")
        // Once a segment has failed, the segments after it are not asked for (FFmpeg would go on to each of them).
        if segmented { #expect(!server.accessLog.contains { $0.contains("/videos/show/v1-002.m4s") }) }
        #expect(!run.stderr.contains(Self.signature))
        let entries = try FileManager.default.contentsOfDirectory(atPath: out).filter { !$0.hasPrefix(".") && $0 != "index.html" }
        #expect(entries.count == (segmented ? 0 : 1), "failed inputs leave nothing behind: \(entries)")
    }

    /// A manifest listing two CDNs (`BaseURL`s), the first of them down (503 to everything): it is read through
    /// the second, as players fail over, the first asked once. Before, the input failed with the first's 503.
    @Test func aManifestIsReadThroughTheCDNThatAnswers() throws {
        let server = try WebServer()
        let folder = try serveLadder(server, segmented: true)
        let manifest = try String(contentsOfFile: folder + "/show.mpd", encoding: .utf8)
            .replacingOccurrences(of: "<Period>", with: "<BaseURL>\(server.url("cdn-down/show/"))</BaseURL>"
                                  + "<BaseURL>\(server.url("videos/show/"))</BaseURL><Period>")
        try manifest.write(toFile: folder + "/cdns.mpd", atomically: true, encoding: .utf8)
        let out = server.folder.file("out")
        let run = try CommandLineTests.run(["thumbnails", server.url("videos/show/cdns.mpd"), "--out", out, "--interval", "1",
                                            "--seek", "keyframe", "--rendition", "320x180"])
        #expect(run.status == 0, "\(run.stderr)")
        let track = out + "/cdns/thumbnails/"
        let cues = try ThumbnailTests.parseVTT(String(contentsOfFile: track + "thumbnails.vtt", encoding: .utf8))
        #expect(try ThumbnailTests.frameNumbers(cues, folder: track) == [0, 0, 20, 20, 40, 40])
        #expect(server.accessLog.filter { $0.contains("/cdn-down/") }.count == 1, "\(server.accessLog)")
    }
}
