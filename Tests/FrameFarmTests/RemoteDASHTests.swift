import Foundation
import FrameFarmMedia
import Testing
@testable import FrameFarm

/// DASH manifests over http, against a real nginx (`WebServer`): a representation that is one file (SegmentBase) is
/// read by FrameFarm's own reader, as any remote input is, so it gets `--header`, `--io-timeout`, bounded range
/// requests and the manifest's token, and only the representation picked is read; what a remote manifest may name
/// is checked before FFmpeg sees it.
@Suite(.serialized, .enabled(if: WebServer.available, "nginx is not installed: apt-get install nginx to run these tests"))
struct RemoteDASHTests {
    private static let query = RemoteInputTests.query
    private static let signature = RemoteInputTests.signature

    /// Three representations (1280x720, 320x180, 640x360, ids 0-2) of 6 s at 10 fps, each one MP4 file under
    /// `videos/show/` (`v<id>.mp4`), and a manifest there listing them as SegmentBase representations;
    /// `representationBase` goes before each file's name in its BaseURL.
    private func serveLadder(_ server: WebServer, manifest: String = "show.mpd", representationBase: String = "") throws -> String {
        let folder = server.root + "/videos/show"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        var representations = ""
        for (index, size) in ["1280x720", "320x180", "640x360"].enumerated() {
            if !FileManager.default.fileExists(atPath: folder + "/v\(index).mp4") {
                let made = try CommandLineTests.run(["sample", "--out", folder + "/v\(index).mp4", "--duration", "6", "--size", size,
                                                     "--fps", "10", "--keyframe-interval", "2", "--preset", "ultrafast"])
                try #require(made.status == 0, "\(made.stderr)")
            }
            let sides = size.split(separator: "x")
            representations += "<Representation id=\"\(index)\" width=\"\(sides[0])\" height=\"\(sides[1])\" "
                + "bandwidth=\"\((index + 1) * 500_000)\"><BaseURL>\(representationBase)v\(index).mp4</BaseURL><SegmentBase/></Representation>\n"
        }
        try """
            <?xml version="1.0" encoding="UTF-8"?>
            <MPD xmlns="urn:mpeg:dash:schema:mpd:2011" type="static" mediaPresentationDuration="PT6S" minBufferTime="PT2S"
             profiles="urn:mpeg:dash:profile:isoff-on-demand:2011"><Period><AdaptationSet contentType="video" mimeType="video/mp4">
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
        #expect(requests.contains { $0.contains("/v1.mp4") })
        #expect(!requests.contains { $0.contains("/v0.mp4") || $0.contains("/v2.mp4") }, "\(requests)")
        #expect(!run.stdout.contains(Self.signature) && !run.stderr.contains(Self.signature))

        // A manifest's URL need not end in .mpd: it is known by its content.
        try FileManager.default.copyItem(atPath: folder + "/show.mpd", toPath: folder + "/manifest")
        let probed = try CommandLineTests.run(["probe", "--json", server.url("videos/show/manifest")])
        #expect(probed.status == 0, "\(probed.stderr)")
        let report = try #require((try JSONSerialization.jsonObject(with: Data(probed.stdout.utf8)) as? [[String: Any]])?.first)
        #expect(report["fileFormat"] as? String == "dash" && report["codedWidth"] as? Int == 1280, "\(report)")
    }

    /// A private origin's `--header` reaches the representation's file.
    @Test func headersReachTheRepresentationsFile() throws {
        let server = try WebServer()
        _ = try serveLadder(server)
        let out = server.folder.file("out")
        let input = server.url("private/show/show.mpd")
        let refused = try CommandLineTests.run(["thumbnails", input, "--out", out, "--interval", "1"])
        #expect(refused.status == 1 && refused.stderr.contains("\(input): HTTP 401 Unauthorized"), "\(refused.stderr)")
        let run = try CommandLineTests.run(["thumbnails", input, "--out", out, "--interval", "1",
                                            "--header", "Authorization: Bearer opensesame"])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(try ThumbnailTests.expectTilesOnTheirFrames(in: out + "/show/thumbnails/", fps: 10).count == 6)
        #expect(server.accessLog.contains { $0.contains("/private/show/v1.mp4") && $0.contains(" 206 ") })
    }

    /// A representation's file the server does not have, one on a server that stalls past `--io-timeout`, and a
    /// manifest naming this machine's files: each fails its input with one line naming what.
    @Test func aFileThatCannotBeReadFailsItsInputNamingIt() throws {
        let server = try WebServer()
        let stalling = try server.proxy("stall")
        let folder = try serveLadder(server)
        _ = try serveLadder(server, manifest: "stalled.mpd", representationBase: server.url("videos/show/", port: stalling))
        _ = try serveLadder(server, manifest: "local.mpd", representationBase: "file:///etc/")
        // Only a representation that is not the one picked names a local file: still refused.
        let ladder = try String(contentsOfFile: folder + "/show.mpd", encoding: .utf8)
        try ladder.replacingOccurrences(of: "<BaseURL>v2.mp4", with: "<BaseURL>file:///etc/v2.mp4")
            .write(toFile: folder + "/hidden.mpd", atomically: true, encoding: .utf8)
        try FileManager.default.removeItem(atPath: folder + "/v1.mp4")
        let missing = server.url("videos/show/show.mpd")
        let out = server.folder.file("out")
        let inputs = [missing, server.url("videos/show/stalled.mpd") + Self.query, server.url("videos/show/local.mpd"),
                      server.url("videos/show/hidden.mpd")]
        let started = Date()
        let run = try CommandLineTests.run(["thumbnails"] + inputs + ["--out", out, "--layout", "hashed", "--io-timeout", "2"])
        #expect(Date().timeIntervalSince(started) < 40)
        #expect(run.status == 1)
        let lines = run.stderr.split(separator: "\n").map(String.init).filter { !$0.contains("inputs done in") }
        #expect(lines.contains("framefarm: \(missing): cannot read \(server.url("videos/show/v1.mp4")), which the playlist "
                               + "lists: HTTP 404 Not Found"), "\(lines)")
        #expect(lines.contains("framefarm: \(server.url("videos/show/stalled.mpd")): cannot read "
                               + "\(server.url("videos/show/v1.mp4", port: stalling)), which the playlist lists: timed out: "
                               + "no data from the server for 2 s (--io-timeout)"), "\(lines)")
        #expect(lines.contains { $0.hasPrefix("framefarm: \(server.url("videos/show/local.mpd")): cannot read this DASH manifest: "
                                              + "it names 'file:") && $0.hasSuffix("v0.mp4', which is not an http(s) URL") },
                "\(lines)")
        #expect(lines.contains { $0.hasPrefix("framefarm: \(server.url("videos/show/hidden.mpd")): cannot read this DASH manifest: "
                                              + "it names 'file:") && $0.hasSuffix("v2.mp4', which is not an http(s) URL") },
                "\(lines)")
        #expect(lines.count == 4, "\(lines)")
        #expect(!run.stderr.contains(Self.signature))
        let entries = try FileManager.default.contentsOfDirectory(atPath: out).filter { !$0.hasPrefix(".") && $0 != "index.html" }
        #expect(entries.isEmpty, "failed inputs leave nothing behind: \(entries)")
    }
}
