import Foundation
import FrameFarmMedia
import Testing
@testable import FrameFarm

/// DASH manifests over http, against a real nginx (`WebServer`): their segments are read by FrameFarm's own reader,
/// as an HLS playlist's are, so they get `--header`, `--io-timeout`, bounded range requests and the manifest's
/// token, and a segment that cannot be read fails the input naming it.
@Suite(.serialized, .enabled(if: WebServer.available, "nginx is not installed: apt-get install nginx to run these tests"))
struct RemoteDASHTests {
    private static let query = RemoteInputTests.query
    private static let signature = RemoteInputTests.signature

    /// Three representations (1280x720, 320x180, 640x360, ids 0-2) of 6 s at 10 fps, as fragmented MP4 segments of
    /// 2 s under `videos/show/` (`v<id>-init.mp4`, `v<id>-000.m4s` ...), and a manifest there whose adaptation set
    /// lists them by a `$Number$` template; `representationBase` goes into each Representation's BaseURL.
    private func serveLadder(_ server: WebServer, manifest: String = "show.mpd", representationBase: String? = nil) throws -> String {
        let folder = server.root + "/videos/show"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        var representations = ""
        for (index, size) in ["1280x720", "320x180", "640x360"].enumerated() {
            if !FileManager.default.fileExists(atPath: folder + "/v\(index).m3u8") {
                let made = try CommandLineTests.run(["sample", "--out", folder + "/v\(index).m3u8", "--duration", "6", "--size", size,
                                                     "--fps", "10", "--keyframe-interval", "2", "--preset", "ultrafast", "--fmp4"])
                try #require(made.status == 0, "\(made.stderr)")
            }
            let sides = size.split(separator: "x")
            representations += "<Representation id=\"\(index)\" width=\"\(sides[0])\" height=\"\(sides[1])\" "
                + "bandwidth=\"\((index + 1) * 500_000)\">\(representationBase.map { "<BaseURL>\($0)</BaseURL>" } ?? "")</Representation>\n"
        }
        try """
            <?xml version="1.0" encoding="UTF-8"?>
            <MPD xmlns="urn:mpeg:dash:schema:mpd:2011" type="static" mediaPresentationDuration="PT6S" minBufferTime="PT2S"
             profiles="urn:mpeg:dash:profile:isoff-live:2011"><Period><AdaptationSet contentType="video" mimeType="video/mp4">
            <SegmentTemplate timescale="10" duration="20" startNumber="0" initialization="v$RepresentationID$-init.mp4"
             media="v$RepresentationID$-$Number%03d$.m4s"/>
            \(representations)</AdaptationSet></Period></MPD>
            """.write(toFile: folder + "/" + manifest, atomically: true, encoding: .utf8)
        return folder
    }

    /// `auto` reads the 320-px representation and nothing of the others (FFmpeg's dash demuxer would analyse
    /// them all), every request a bounded range carrying the manifest's token; every tile shows its frame, and
    /// the manifest records the rendition and the DASH format.
    @Test func aRemoteManifestIsReadInRangeRequestsThatCarryItsToken() throws {
        let server = try WebServer()
        let folder = try serveLadder(server)
        let out = server.folder.file("out")
        let run = try CommandLineTests.run(["thumbnails", server.url("videos/show/show.mpd") + Self.query, "--out", out,
                                            "--interval", "0.7"])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(try ThumbnailTests.expectTilesOnTheirFrames(in: out + "/show/thumbnails/", fps: 10).count == 9)
        let probe = try #require(ManifestStore.read(out + "/show/manifest.json")?.probe)
        #expect(probe.rendition?.width == 320 && probe.rendition?.count == 3 && probe.codedWidth == 320)
        #expect(probe.fileFormat == "dash")

        let requests = server.accessLog.filter { $0.contains("/videos/show/") }
        for line in requests {
            #expect(line.contains(Self.signature), "a request without the manifest's token: \(line)")
            #expect(line.range(of: #""bytes=[0-9]+-[0-9]+" (200|206) "#, options: .regularExpression) != nil, "unbounded: \(line)")
        }
        // Each file asked for once, however often the demuxer reopens it (`RangeCache` keeps a segment smaller than
        // the range asked).
        for name in ["v1-init.mp4", "v1-000.m4s", "v1-001.m4s", "v1-002.m4s"] {
            #expect(requests.filter { $0.contains("/" + name) }.count == 1, "\(name): \(requests.filter { $0.contains(name) })")
        }
        #expect(!requests.contains { $0.contains("/v0-") || $0.contains("/v2-") }, "\(requests)")
        #expect(!run.stdout.contains(Self.signature) && !run.stderr.contains(Self.signature))

        // A manifest's URL need not end in .mpd: it is known by its content.
        try FileManager.default.copyItem(atPath: folder + "/show.mpd", toPath: folder + "/manifest")
        let probed = try CommandLineTests.run(["probe", "--json", server.url("videos/show/manifest")])
        #expect(probed.status == 0, "\(probed.stderr)")
        let report = try #require((try JSONSerialization.jsonObject(with: Data(probed.stdout.utf8)) as? [[String: Any]])?.first)
        #expect(report["fileFormat"] as? String == "dash" && report["codedWidth"] as? Int == 1280, "\(report)")
    }

    /// A private origin's `--header` reaches the segments, and a one-file representation (SegmentBase) is read as
    /// that file, in range requests: the whole 4-s clip, every tile on its frame.
    @Test func headersReachTheSegmentsAndAOneFileRepresentationIsReadAsAFile() throws {
        let server = try WebServer()
        let folder = server.root + "/videos"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let made = try CommandLineTests.run(["sample", "--out", folder + "/clip.mp4", "--duration", "4", "--size", "320x180",
                                             "--fps", "10", "--keyframe-interval", "1", "--preset", "ultrafast"])
        try #require(made.status == 0, "\(made.stderr)")
        try """
            <MPD xmlns="urn:mpeg:dash:schema:mpd:2011" type="static" mediaPresentationDuration="PT4S"><Period>
            <AdaptationSet contentType="video"><Representation id="v" width="320" height="180" bandwidth="300000">
            <BaseURL>clip.mp4</BaseURL><SegmentBase/></Representation></AdaptationSet></Period></MPD>
            """.write(toFile: folder + "/single.mpd", atomically: true, encoding: .utf8)
        _ = try serveLadder(server)
        let out = server.folder.file("out")
        let inputs = [server.url("private/single.mpd"), server.url("private/show/show.mpd")]
        let refused = try CommandLineTests.run(["thumbnails"] + inputs + ["--out", out, "--interval", "1"])
        #expect(refused.status == 1 && refused.stderr.contains("\(inputs[0]): HTTP 401 Unauthorized"), "\(refused.stderr)")
        let run = try CommandLineTests.run(["thumbnails"] + inputs + ["--out", out, "--interval", "1",
                                            "--header", "Authorization: Bearer opensesame"])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(try ThumbnailTests.expectTilesOnTheirFrames(in: out + "/single/thumbnails/", fps: 10).count == 4)
        #expect(try ThumbnailTests.expectTilesOnTheirFrames(in: out + "/show/thumbnails/", fps: 10).count == 6)
        #expect(server.accessLog.contains { $0.contains("/private/clip.mp4") && $0.contains(" 206 ") })
        #expect(server.accessLog.contains { $0.contains("/private/show/v1-002.m4s") && $0.contains(" 206 ") })
    }

    /// A segment the server does not have, one that stalls past `--io-timeout`, and a manifest naming this
    /// machine's files: each fails its input with one line naming what, the others are done.
    @Test func aSegmentThatCannotBeReadFailsItsInputNamingIt() throws {
        let server = try WebServer()
        let stalling = try server.proxy("stall")
        let folder = try serveLadder(server)
        _ = try serveLadder(server, manifest: "stalled.mpd", representationBase: server.url("videos/show/", port: stalling))
        _ = try serveLadder(server, manifest: "local.mpd", representationBase: "file:///etc/")
        try FileManager.default.removeItem(atPath: folder + "/v1-001.m4s")
        let missing = server.url("videos/show/show.mpd")
        let out = server.folder.file("out")
        let inputs = [missing, server.url("videos/show/stalled.mpd") + Self.query, server.url("videos/show/local.mpd")]
        let started = Date()
        let run = try CommandLineTests.run(["thumbnails"] + inputs + ["--out", out, "--layout", "hashed", "--io-timeout", "2"])
        #expect(Date().timeIntervalSince(started) < 40)
        #expect(run.status == 1)
        let lines = run.stderr.split(separator: "\n").map(String.init).filter { !$0.contains("inputs done in") }
        #expect(lines.contains("framefarm: \(missing): cannot read \(server.url("videos/show/v1-001.m4s")), which the playlist "
                               + "lists: HTTP 404 Not Found"), "\(lines)")
        #expect(lines.contains("framefarm: \(server.url("videos/show/stalled.mpd")): cannot read "
                               + "\(server.url("videos/show/v1-init.mp4", port: stalling)), which the playlist lists: timed out: "
                               + "no data from the server for 2 s (--io-timeout)"), "\(lines)")
        #expect(lines.contains { $0.hasPrefix("framefarm: \(server.url("videos/show/local.mpd")): cannot read this DASH manifest: "
                                              + "it names 'file:") && $0.hasSuffix("v1-init.mp4', which is not an http(s) URL") },
                "\(lines)")
        #expect(lines.count == 3, "\(lines)")
        #expect(!run.stderr.contains(Self.signature))
        let entries = try FileManager.default.contentsOfDirectory(atPath: out).filter { !$0.hasPrefix(".") && $0 != "index.html" }
        #expect(entries.isEmpty, "failed inputs leave nothing behind: \(entries)")
    }
}
