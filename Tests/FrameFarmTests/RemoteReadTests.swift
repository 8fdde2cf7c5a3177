import Foundation
@testable import FrameFarmMedia
import FrameFarmSamples
import Testing
@testable import FrameFarm

/// What reading an http(s) input must not do quietly: go on past a read that failed, or send a private origin's
/// credentials to another host.
@Suite(.serialized, .enabled(if: WebServer.available, "nginx is not installed: apt-get install nginx to run these tests"))
struct RemoteReadTests {
    /// `sample` through the CLI into the server's /videos/.
    private func serve(_ server: WebServer, name: String, options: [String]) throws {
        let folder = server.root + "/videos"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let made = try CommandLineTests.run(["sample", "--out", folder + "/" + name, "--size", "640x360", "--fps", "10",
                                             "--preset", "ultrafast"] + options)
        try #require(made.status == 0, "\(made.stderr)")
    }

    /// A signature that expires once the first reads are done (every request after the first 64 KB refused): the
    /// thumbnail track's padding samples, read after its own frames, fail the input with the server's answer, as
    /// `poster` and `preview` fail. Before, the track was written without its letterbox found, exit 0, no warning.
    @Test func aReadRefusedAfterTheFirstOnesFailsTheInput() throws {
        let server = try WebServer()
        try serve(server, name: "wide.mp4", options: ["--duration", "6", "--letterbox", "--faststart", "--keyframe-interval", "1"])
        #expect((try Data(contentsOf: URL(fileURLWithPath: server.root + "/videos/wide.mp4"))).count > 96 * 1024,
                "the file must need a read past the first 64 KB")
        for command in ["thumbnails", "poster"] {
            let out = server.folder.file("out-" + command)
            let run = try CommandLineTests.run([command, server.url("expiring/wide.mp4"), "--out", out])
            #expect(run.status == 1, "\(command): \(run.stderr)")
            #expect(run.stderr.contains("framefarm: \(server.url("expiring/wide.mp4")): ")
                    && run.stderr.contains("HTTP 403 Forbidden"), "\(command): \(run.stderr)")
            #expect(!FileManager.default.fileExists(atPath: out + "/wide/thumbnails")
                    && !FileManager.default.fileExists(atPath: out + "/wide/poster.jpg"), "\(command)")
        }
    }

    /// A server that sends a little of its answer and then nothing fails the input once `--io-timeout` has passed
    /// since its last byte. curl's low-speed limit, which averages over its last 5 s, failed it 6 s late (8 s for
    /// a timeout of 2).
    @Test func aServerGoingQuietFailsTheInputAtTheTimeout() throws {
        let server = try WebServer()
        try serve(server, name: "clip.mp4", options: ["--duration", "2"])
        // 400 bytes: the whole of the first answer (one byte, asking the file's identity), then the next one's
        // headers and the start of its body.
        let quiet = server.url("videos/clip.mp4", port: try server.proxy("hang", bytes: 400))
        for command in ["thumbnails", "probe"] {
            let started = Date()
            let run = try CommandLineTests.run([command, quiet, "--io-timeout", "2"]
                                               + (command == "probe" ? [] : ["--out", server.folder.file("out")]))
            let elapsed = Date().timeIntervalSince(started)
            #expect(run.stderr.contains("framefarm: \(quiet): timed out: no data from the server for 2 s"), "\(run.stderr)")
            #expect(elapsed < 6, "\(command) failed after \(elapsed) s")
        }
    }

    /// A server that throttles (two requests a second, 429 with `Retry-After: 1` for the rest) is waited for and
    /// asked again, as for a 5xx: the track is made, every tile on its frame. Before, the first 429 failed the input.
    /// One that asks for a longer wait than FrameFarm gives fails at once, and the line says why.
    @Test func aThrottlingServerIsWaitedFor() throws {
        let server = try WebServer()
        try serve(server, name: "clip.mp4", options: ["--duration", "2", "--keyframe-interval", "1"])
        let out = server.folder.file("out")
        let run = try CommandLineTests.run(["thumbnails", server.url("throttled/clip.mp4"), "--out", out, "--interval", "0.5",
                                            "--seek", "keyframe"])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(server.accessLog.contains { $0.contains("/throttled/") && $0.contains(" 429 ") }, "the server throttled")
        let folder = out + "/clip/thumbnails/"
        let cues = try ThumbnailTests.parseVTT(String(contentsOfFile: folder + "thumbnails.vtt", encoding: .utf8))
        #expect(try ThumbnailTests.frameNumbers(cues, folder: folder) == [0, 0, 10, 10])
        let down = try CommandLineTests.run(["probe", server.url("maintenance/clip.mp4")])
        #expect(down.status == 1)
        #expect(down.stderr.contains("HTTP 503 ") && down.stderr.contains("(it asked to be tried again in 120 s, longer than the 30 s"),
                "\(down.stderr)")
        #expect(server.accessLog.filter { $0.contains("/maintenance/") }.count == 1)
    }

    /// A proxy that closes every answer after 600 bytes (its headers and a few hundred of body): each drop resumes
    /// where it stopped, but eight in a row under 4 KiB fail the input in words. Before, the ~250-KB clip was read
    /// a few hundred bytes a request, and a large file took hours of requests, exit 0.
    @Test func aServerCuttingEveryAnswerShortFailsTheInput() throws {
        let server = try WebServer()
        try serve(server, name: "clip.mp4", options: ["--duration", "4"])
        let cutting = server.url("videos/clip.mp4", port: try server.proxy("drop", bytes: 600))
        let run = try CommandLineTests.run(["thumbnails", cutting, "--out", server.folder.file("out")])
        #expect(run.status == 1)
        #expect(run.stderr.contains("framefarm: \(cutting): connection lost: the server closed 8 answers in a row after "
                                    + "less than 4 KiB each"), "\(run.stderr)")
        let requests = server.requests(for: "/videos/clip.mp4").count
        #expect(requests < 40, "\(requests) requests")
    }

    /// Where an MP4's index lies is read over http too (box headers in range requests): `probe` says `indexFirst`,
    /// and `lint --profile web` finds the index-last file, which a browser must fetch the end of before it plays.
    /// Before, both were left to files on disk.
    @Test func whereAnIndexLiesIsReadOverHTTP() throws {
        let server = try WebServer()
        try serve(server, name: "first.mp4", options: ["--duration", "2", "--faststart"])
        try serve(server, name: "last.mp4", options: ["--duration", "2"])
        let probe = try CommandLineTests.run(["probe", "--json", server.url("videos/first.mp4"), server.url("videos/last.mp4")])
        #expect(probe.status == 0, "\(probe.stderr)")
        let reports = try JSONSerialization.jsonObject(with: Data(probe.stdout.utf8)) as? [[String: Any]] ?? []
        #expect(reports.map { $0["indexFirst"] as? Bool } == [true, false], "\(probe.stdout)")
        let lint = try CommandLineTests.run(["lint", "--profile", "web", server.url("videos/first.mp4"), server.url("videos/last.mp4")])
        let indexFindings = lint.stdout.split(separator: "\n").filter { $0.contains(" container: ") && $0.contains("index") }
        #expect(indexFindings.count == 1 && indexFindings[0].hasPrefix(server.url("videos/last.mp4")), "\(lint.stdout)")
    }

    /// `--header` values are a private origin's credentials: they follow a redirect within that origin (to
    /// /private/, which wants the token), and none follows one to another host (which refuses any). libcurl, left
    /// to follow redirects, sent every header but `Authorization` to the other host.
    @Test func headersFollowARedirectOnlyWithinTheirOrigin() throws {
        let server = try WebServer()
        try serve(server, name: "clip.mp4", options: ["--duration", "2"])
        let headers = ["--header", "Authorization: Bearer opensesame", "--header", "X-Api-Key: 7d0c1a"]
        for path in ["moved-private/clip.mp4", "elsewhere/clip.mp4"] {
            let out = server.folder.file("out-" + path.split(separator: "/")[0])
            let run = try CommandLineTests.run(["thumbnails", server.url(path), "--out", out, "--interval", "1"] + headers)
            #expect(run.status == 0, "\(path): \(run.stderr)")
            let cues = try ThumbnailTests.parseVTT(String(contentsOfFile: out + "/clip/thumbnails/thumbnails.vtt", encoding: .utf8))
            #expect(try ThumbnailTests.frameNumbers(cues, folder: out + "/clip/thumbnails/") == [0, 10], "\(path)")
        }
        let refused = server.accessLog.filter { $0.contains("/keyed/") && $0.contains(" 418 ") }
        #expect(refused.isEmpty, "credentials reached the other host: \(refused)")
        // Another host that wants them: the line says where the redirect led and that they were not sent there.
        let other = try CommandLineTests.run(["probe", server.url("elsewhere-private/clip.mp4?sig=secret")] + headers)
        #expect(other.status == 1)
        #expect(other.stderr.contains("HTTP 401 Unauthorized (after a redirect to http://localhost:\(server.port)/private/clip.mp4, "
                                      + "where --header values are not sent)") && !other.stderr.contains("secret"), "\(other.stderr)")
    }

    /// Nor do they go to another host a playlist names: segments on a CDN listed by the input's playlist, or the
    /// segments of a playlist a redirect moved to another host. Each nested read sent every header to whatever
    /// host it named (from a tester).
    @Test func headersGoNowhereAPlaylistNamesOnAnotherHost() throws {
        let server = try WebServer()
        try serve(server, name: "show.m3u8", options: ["--duration", "4", "--keyframe-interval", "2"])
        let text = try String(contentsOfFile: server.root + "/videos/show.m3u8", encoding: .utf8)
        let onAnotherHost = text.split(separator: "\n", omittingEmptySubsequences: false).map { line in
            line.hasSuffix(".ts") ? "http://localhost:\(server.port)/keyed/elsewhere/\(line)" : String(line)
        }.joined(separator: "\n")
        try onAnotherHost.write(toFile: server.root + "/videos/cdn.m3u8", atomically: true, encoding: .utf8)
        let headers = ["--header", "Authorization: Bearer opensesame", "--header", "X-Api-Key: 7d0c1a"]
        for (path, stem) in [("videos/cdn.m3u8", "cdn"), ("elsewhere/show.m3u8", "show")] {
            let out = server.folder.file("out-" + stem)
            let run = try CommandLineTests.run(["thumbnails", server.url(path), "--out", out, "--interval", "1"] + headers)
            #expect(run.status == 0, "\(path): \(run.stderr)")
            let folder = out + "/\(stem)/thumbnails/"
            let cues = try ThumbnailTests.parseVTT(String(contentsOfFile: folder + "thumbnails.vtt", encoding: .utf8))
            #expect(try ThumbnailTests.frameNumbers(cues, folder: folder) == [0, 10, 20, 30], "\(path)")
        }
        let refused = server.accessLog.filter { $0.contains("/keyed/") && $0.contains(" 418 ") }
        #expect(refused.isEmpty, "credentials reached the other host: \(refused)")
        #expect(server.accessLog.contains { $0.contains("/keyed/elsewhere/show") && $0.contains(" 206 ") }, "the other host was read")
        // One that refuses segments without them: the line says the headers were kept from it, and why.
        let privateCDN = text.split(separator: "\n", omittingEmptySubsequences: false).map { line in
            line.hasSuffix(".ts") ? "http://localhost:\(server.port)/private/\(line)" : String(line)
        }.joined(separator: "\n")
        try privateCDN.write(toFile: server.root + "/videos/private-cdn.m3u8", atomically: true, encoding: .utf8)
        let refusedThere = try CommandLineTests.run(["probe", server.url("videos/private-cdn.m3u8")] + headers)
        #expect(refusedThere.status == 1)
        #expect(refusedThere.stderr.contains("HTTP 401 Unauthorized (http://localhost:\(server.port) is not the input's origin: "
                                             + "--header values are not sent there)"), "\(refusedThere.stderr)")
    }
}

/// `Retry-After` in both forms RFC 9110 allows. The date is RFC 9110's own example, one second before 2000
/// (946684799 in Unix time); before, a date was not read and the back-off alone applied.
@Suite struct RetryAfterTests {
    @Test func secondsAndDatesAreBothRead() {
        let twoMinutesBefore = Date(timeIntervalSince1970: 946_684_799 - 120)
        #expect(RangeClient.secondsToWait("Fri, 31 Dec 1999 23:59:59 GMT", now: twoMinutesBefore) == 120)
        #expect(RangeClient.secondsToWait(" 7 ", now: twoMinutesBefore) == 7)
        #expect(RangeClient.secondsToWait("Fri, 31 Dec 1999 23:59:59 GMT", now: Date(timeIntervalSince1970: 946_684_800)) == 0)
        #expect(RangeClient.secondsToWait("soon", now: twoMinutesBefore) == nil)
        #expect(RangeClient.secondsToWait("Fri, 31 Foo 1999 23:59:59 GMT", now: twoMinutesBefore) == nil)
    }
}
