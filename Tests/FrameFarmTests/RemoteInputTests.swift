import Foundation
import FrameFarmMedia
import FrameFarmSamples
import Testing
@testable import FrameFarm

/// http(s) inputs against a real nginx on 127.0.0.1 (`WebServer`), with faults from a proxy in front of it.
@Suite(.serialized, .enabled(if: WebServer.available, "nginx is not installed: apt-get install nginx to run these tests"))
struct RemoteInputTests {
    /// A presigned-style query: its pieces must appear nowhere in what FrameFarm writes or prints.
    static let signature = "X-Amz-Signature=5ec7e75161a7"
    static let query = "?X-Amz-Credential=AKIDEXAMPLE&X-Amz-Expires=900&" + signature

    /// `sample` through the CLI: 4 s at 10 fps with a keyframe a second, so the frame code at t is t x 10.
    private func serve(_ server: WebServer, name: String = "clip.mp4", duration: Int = 4, size: String = "320x180",
                       keyframeInterval: Int = 1) throws -> String {
        let folder = server.root + "/videos"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let path = folder + "/" + name
        let made = try CommandLineTests.run(["sample", "--out", path, "--duration", String(duration), "--size", size,
                                             "--fps", "10", "--keyframe-interval", String(keyframeInterval),
                                             "--preset", "ultrafast"])
        try #require(made.status == 0, "\(made.stderr)")
        return path
    }

    /// Every file under `folder`, as bytes.
    private func everyFile(under folder: String) -> [(path: String, data: Data)] {
        let names = FileManager.default.enumerator(atPath: folder)?.allObjects as? [String] ?? []
        return names.compactMap { name in FileManager.default.contents(atPath: folder + "/" + name).map { (name, $0) } }
    }

    /// Thumbnails and poster from a presigned-style URL, through a proxy that cuts every connection after 24 KB:
    /// FFmpeg's reconnects finish the job, every tile shows the frame its cue starts at, the outputs are those of
    /// the same file read locally, and the query string is nowhere in OUT or in what was printed.
    @Test func aRemoteInputMakesTheSameTrackAsTheFileThroughDroppedConnections() throws {
        let server = try WebServer()
        let local = try serve(server)
        let dropping = try server.proxy("drop", bytes: 24 * 1024)
        let out = server.folder.file("out"), localOut = server.folder.file("local")
        let remote = try CommandLineTests.run(["thumbnails", server.url("videos/clip.mp4", port: dropping) + Self.query,
                                               "--out", out, "--interval", "1", "--poster", "--json"])
        #expect(remote.status == 0, "\(remote.stderr)")
        let cut = server.requests(for: "/videos/clip.mp4")
        #expect(cut.count > 4, "the proxy cut connections, and FFmpeg resumed with new requests: \(cut.count)")
        let cues = try ThumbnailTests.parseVTT(String(contentsOfFile: out + "/clip/thumbnails/thumbnails.vtt", encoding: .utf8))
        #expect(cues.map(\.start) == [0, 1, 2, 3])
        let sheet = try readImage(out + "/clip/thumbnails/" + cues[0].file)
        #expect(cues.map { sheet.frameCode(in: $0.rect) } == cues.map { Int($0.start * 10) })

        let plain = try CommandLineTests.run(["thumbnails", local, "--out", localOut, "--interval", "1", "--poster"])
        #expect(plain.status == 0, "\(plain.stderr)")
        for file in ["thumbnails/sheet-0001.jpg", "thumbnails/thumbnails.vtt", "thumbnails/thumbnails.m3u8",
                     "thumbnails/iframes.mp4", "poster.jpg", "poster-160.jpg"] {
            #expect(FileManager.default.contents(atPath: out + "/clip/" + file)
                    == FileManager.default.contents(atPath: localOut + "/clip/" + file), "\(file)")
        }
        let manifest = try #require(ManifestStore.read(out + "/clip/manifest.json"))
        #expect(manifest.input.path == server.url("videos/clip.mp4", port: dropping))
        #expect(manifest.input.etag != nil && manifest.input.sizeBytes == (try? Data(contentsOf: URL(fileURLWithPath: local)).count))

        let written = everyFile(under: out)
        for secret in ["X-Amz", "AKIDEXAMPLE", "5ec7e75161a7"] {
            for (name, data) in written {
                #expect(data.range(of: Data(secret.utf8)) == nil && !name.contains(secret), "\(name) holds \(secret)")
            }
            #expect(!remote.stdout.contains(secret) && !remote.stderr.contains(secret))
        }
    }

    /// A track and a poster ask for bounded ranges only (FFmpeg's own http client asks for the rest of the file at
    /// each seek, and the server pushes megabytes that are thrown away), get no more than they asked for, and ask
    /// for no byte twice however often the input is opened (`RangeCache`): the identity request's byte 0 aside,
    /// the server sends at most the file once.
    @Test func aTrackAsksForBoundedRangesAndEachByteOnce() throws {
        let server = try WebServer()
        let local = try serve(server, duration: 8)
        let fileBytes = try #require(try FileManager.default.attributesOfItem(atPath: local)[.size] as? Int)
        let run = try CommandLineTests.run(["thumbnails", server.url("videos/clip.mp4"), "--out", server.folder.file("out"),
                                            "--interval", "2", "--seek", "keyframe", "--poster"])
        #expect(run.status == 0, "\(run.stderr)")
        let requests = server.requests(for: "/videos/clip.mp4")
        #expect(requests.count > 2)
        for (range, sent) in requests {
            let bounds = range.hasPrefix("bytes=") ? range.dropFirst(6).split(separator: "-").compactMap { Int($0) } : []
            #expect(bounds.count == 2 && bounds[1] - bounds[0] < 8 << 20 && sent <= bounds[1] - bounds[0] + 1,
                    "\(range): \(sent) bytes")
        }
        let sent = requests.map(\.bytesSent).reduce(0, +)
        #expect(sent <= fileBytes + 1, "sent \(sent) bytes of a \(fileBytes)-byte file: \(requests.map(\.range))")
    }

    /// One clear line per input that cannot be read, each naming the input without its query; the good inputs
    /// of the same batch (one of them behind a redirect) are done, and the failed ones leave no folder.
    @Test func eachRemoteFailureIsOneLineAndTheBatchGoesOn() throws {
        let server = try WebServer()
        _ = try serve(server)
        let stalling = try server.proxy("stall")
        let refused = try LocalWebServer.freePort()
        let inputs = [
            server.url("videos/clip.mp4"),
            server.url("moved/clip.mp4") + Self.query,
            server.url("videos/missing.mp4") + Self.query,
            server.url("forbidden/secret.mp4"),
            server.url("private/clip.mp4"),
            server.url("videos/slow.mp4", port: stalling),
            server.url("videos/refused.mp4", port: refused),
            server.tlsURL("videos/untrusted.mp4"),
            server.url("to-ftp/clip.mp4"),
        ]
        let out = server.folder.file("out")
        let started = Date()
        let run = try CommandLineTests.run(["thumbnails"] + inputs + ["--out", out, "--layout", "hashed", "--io-timeout", "2"])
        let elapsed = Date().timeIntervalSince(started)
        #expect(run.status == 1)
        let lines = run.stderr.split(separator: "\n").map(String.init).filter { !$0.contains("inputs done in") }
        func line(_ input: String, _ reason: String) -> String { "framefarm: \(input): \(reason)" }
        #expect(lines.contains(line(server.url("videos/missing.mp4"), "HTTP 404 Not Found")), "\(lines)")
        #expect(lines.contains(line(server.url("forbidden/secret.mp4"), "HTTP 403 Forbidden")), "\(lines)")
        #expect(lines.contains(line(server.url("private/clip.mp4"), "HTTP 401 Unauthorized")), "\(lines)")
        #expect(lines.contains(line(server.url("videos/slow.mp4", port: stalling),
                                    "timed out: no data from the server for 2 s (--io-timeout)")), "\(lines)")
        #expect(lines.contains { $0.hasPrefix(line(server.url("videos/refused.mp4", port: refused), "cannot connect: ")) },
                "\(lines)")
        #expect(lines.contains { $0.hasPrefix(line(server.tlsURL("videos/untrusted.mp4"), "TLS failure: ")) }, "\(lines)")
        // A redirect to another protocol is not followed (curl would log in to an FTP server there).
        #expect(lines.contains(line(server.url("to-ftp/clip.mp4"), "a redirect to ftp: is not followed (only http and https are)")),
                "\(lines)")
        #expect(lines.count == 7, "one line per failed input: \(lines)")
        #expect(!run.stderr.contains(Self.signature) && !run.stderr.contains("Fatal") && !run.stderr.contains("Backtrace"))
        // The timeout is the batch's longest wait, not a sum of retries.
        #expect(elapsed < 30, "took \(elapsed) s")
        let folders = OutputLayout(root: out).videoFolders()
        #expect(folders.count == 2 && folders.allSatisfy { $0.hasPrefix("clip-") }, "\(folders)")
        let entries = try FileManager.default.contentsOfDirectory(atPath: out).filter { !$0.hasPrefix(".") && $0 != "index.html" }
        #expect(entries.count == 2, "failed inputs leave nothing behind: \(entries)")
    }

    /// A server that ignores ranges (answers 200 with the whole file, as plain static servers do): a file small
    /// enough is read whole and kept for every reader (it was read again by each, 8 times the file for a track),
    /// and its track made; a larger one fails in words before any reading.
    @Test func aServerWithoutRangesIsReadWholeUpToALimit() throws {
        let server = try WebServer()
        _ = try serve(server)
        // One byte past the 32 MiB docs/remote-inputs.md gives.
        _ = FileManager.default.createFile(atPath: server.root + "/videos/big.mp4", contents: nil)
        let big = try FileHandle(forWritingTo: URL(fileURLWithPath: server.root + "/videos/big.mp4"))
        try big.truncate(atOffset: UInt64((32 << 20) + 1))
        try big.close()
        let out = server.folder.file("out")
        let run = try CommandLineTests.run(["thumbnails", server.url("no-ranges/clip.mp4"), server.url("no-ranges/big.mp4"),
                                            "--out", out, "--interval", "1", "--layout", "hashed"])
        #expect(run.status == 1)
        #expect(run.stderr.contains("\(server.url("no-ranges/big.mp4")): the server does not answer range requests"), "\(run.stderr)")
        let folder = try #require(OutputLayout(root: out).videoFolders().first)
        let cues = try ThumbnailTests.expectTilesOnTheirFrames(in: out + "/" + folder + "/thumbnails/", fps: 10)
        #expect(cues.count == 4)
        // The identity's one byte (cut off, as `report` asks it of every input), then the whole once.
        let reads = server.requests(for: "/no-ranges/clip.mp4")
        #expect(reads.count == 2, "\(reads)")
    }

    /// A URL given with a space in its path is sent escaped and read; an empty object is said to be empty, not
    /// "not a video".
    @Test func aURLWithASpaceIsReadAndAnEmptyObjectIsSaid() throws {
        let server = try WebServer()
        let clip = try serve(server)
        try FileManager.default.copyItem(atPath: clip, toPath: server.root + "/videos/my clip.mp4")
        _ = FileManager.default.createFile(atPath: server.root + "/videos/empty.mp4", contents: Data())
        let run = try CommandLineTests.run(["probe", server.url("videos/my clip.mp4"), server.url("videos/empty.mp4")])
        #expect(run.status == 1)
        #expect(run.stdout.hasPrefix(server.url("videos/my clip.mp4") + "\n"), "\(run.stdout)")
        #expect(run.stderr == "framefarm: \(server.url("videos/empty.mp4")): file is empty (0 bytes)\n", "\(run.stderr)")
        #expect(server.accessLog.contains { $0.contains("/videos/my%20clip.mp4") })
    }

    /// A server that sends part of each answer and then nothing fails its input after `--io-timeout` (rather than
    /// being asked for the rest again and again); a playlist read over http that names files on this machine fails
    /// its input without reading them.
    @Test func aServerGoingQuietMidFileAndAPlaylistNamingLocalFilesFailTheirInputs() throws {
        let server = try WebServer()
        _ = try serve(server, duration: 8)
        let hanging = try server.proxy("hang", bytes: 20000)
        let folder = server.root + "/videos"
        let made = try CommandLineTests.run(["sample", "--out", folder + "/show.m3u8", "--duration", "4", "--size", "320x180",
                                             "--fps", "10", "--keyframe-interval", "2", "--preset", "ultrafast"])
        try #require(made.status == 0, "\(made.stderr)")
        let playlist = try String(contentsOfFile: folder + "/show.m3u8", encoding: .utf8)
        try playlist.replacingOccurrences(of: "show-0", with: "file://\(folder)/show-0")
            .write(toFile: folder + "/local.m3u8", atomically: true, encoding: .utf8)
        let quiet = server.url("videos/clip.mp4", port: hanging), local = server.url("videos/local.m3u8")
        let started = Date()
        let run = try CommandLineTests.run(["thumbnails", quiet, local, "--out", server.folder.file("out"), "--io-timeout", "2"])
        #expect(Date().timeIntervalSince(started) < 40)
        #expect(run.status == 1)
        #expect(run.stderr.contains("framefarm: \(quiet): timed out: no data from the server for 2 s (--io-timeout)\n"), "\(run.stderr)")
        #expect(run.stderr.contains("framefarm: \(local): cannot read \(folder)/show-000.ts, which the playlist lists: a playlist "
                                    + "read over http(s) may not name a file on this machine"), "\(run.stderr)")
    }

    /// `--jobs` of `probe` and `lint`: inputs behind a slow link are read that many at once, past the core count
    /// too (the proxy counts the connections open at once).
    @Test func jobsReadsThatManyRemoteInputsAtOnce() throws {
        let server = try WebServer()
        let clip = try serve(server)
        let names = (0..<4).map { "copy-\($0).mp4" }
        for name in names { try FileManager.default.copyItem(atPath: clip, toPath: server.root + "/videos/" + name) }
        for (command, jobs) in [("probe", 1), ("probe", 4), ("lint", 4)] {
            let peakFile = server.folder.file("peak-\(command)-\(jobs)")
            let slow = try server.proxy("slow", bytes: 150, peakFile: peakFile)
            let run = try CommandLineTests.run([command] + names.map { server.url("videos/" + $0, port: slow) }
                                               + ["--jobs", String(jobs)])
            #expect(run.status == 0, "\(command): \(run.stderr)")
            let peak = try String(contentsOfFile: peakFile, encoding: .utf8)
            #expect(Int(peak) == jobs, "\(command) --jobs \(jobs): \(peak) connections at once")
        }
    }

    /// A private origin: `--header` sends the token (never printed); https with the origin's own CA through
    /// `--ca-file`. `probe` reads URLs too.
    @Test func headersAndAPrivateCertificateAuthorityOpenPrivateOrigins() throws {
        let server = try WebServer()
        _ = try serve(server)
        let probe = try CommandLineTests.run(["probe", "--json", server.url("private/clip.mp4"),
                                              "--header", "Authorization: Bearer opensesame"])
        #expect(probe.status == 0, "\(probe.stderr)")
        let reports = try JSONSerialization.jsonObject(with: Data(probe.stdout.utf8)) as? [[String: Any]]
        #expect(reports?.first?["durationSeconds"] as? Double == 4)
        #expect(reports?.first?["path"] as? String == server.url("private/clip.mp4"))
        let tls = try CommandLineTests.run(["probe", server.tlsURL("videos/clip.mp4") + Self.query,
                                            "--ca-file", server.certificate])
        #expect(tls.status == 0, "\(tls.stderr)")
        #expect(tls.stdout.hasPrefix(server.tlsURL("videos/clip.mp4") + "\n"))
        let badHeader = try CommandLineTests.run(["probe", server.url("videos/clip.mp4"), "--header", "Token opensesame"])
        #expect(badHeader.status == 2 && !badHeader.stderr.contains("opensesame"))
    }

    /// Resume keys on the URL without its query and the server's ETag: a new signature for the same object is
    /// skipped, a changed object (the file rewritten, so its ETag and size change) is done again.
    @Test func resumeSkipsAnUnchangedRemoteInputAndRedoesAChangedOne() throws {
        let server = try WebServer()
        _ = try serve(server)
        let out = server.folder.file("out")
        func thumbnails(_ query: String) throws -> (status: String?, cues: Int) {
            let run = try CommandLineTests.run(["thumbnails", server.url("videos/clip.mp4") + query, "--out", out,
                                                "--interval", "1", "--json"])
            #expect(run.status == 0, "\(run.stderr)")
            let summary = try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any]
            let status = (summary?["inputs"] as? [[String: Any]])?.first?["status"] as? String
            let vtt = try String(contentsOfFile: out + "/clip/thumbnails/thumbnails.vtt", encoding: .utf8)
            return (status, vtt.components(separatedBy: " --> ").count - 1)
        }
        #expect(try thumbnails(Self.query) == ("done", 4))
        #expect(try thumbnails("?X-Amz-Signature=another").status == "up-to-date")
        _ = try serve(server, duration: 6)
        #expect(try thumbnails("?X-Amz-Signature=athird") == ("done", 6))
    }

    /// A multivariant HLS ladder over http: the playlists and segments it names are read by FrameFarm's own reader,
    /// in bounded range requests, each carrying the master playlist's token (the names, and so OUT and every line
    /// printed, never do). `auto` reads the 320-px rendition; the others only as far as FFmpeg's first analysis
    /// of the ladder reads (into their second segment), to learn their sizes; every tile shows its frame, and every
    /// keyframe tile its keyframe, also through a short link that redirects to the playlist. Both segment kinds:
    /// MPEG-TS, and fragmented MP4 with its init segment.
    @Test(arguments: [false, true]) func aRemoteLadderIsReadInRangeRequestsThatCarryThePlaylistsToken(fmp4: Bool) throws {
        let server = try WebServer()
        let folder = server.root + "/videos/show"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        var master = "#EXTM3U\n#EXT-X-VERSION:3\n"
        for (index, size) in ["1280x720", "320x180", "640x360"].enumerated() {
            let made = try CommandLineTests.run(["sample", "--out", folder + "/v\(index).m3u8", "--duration", "6", "--size", size,
                                                 "--fps", "10", "--keyframe-interval", "2", "--preset", "ultrafast"]
                                                + (fmp4 ? ["--fmp4"] : []))
            try #require(made.status == 0, "\(made.stderr)")
            master += "#EXT-X-STREAM-INF:BANDWIDTH=\((index + 1) * 500_000),RESOLUTION=\(size)\nv\(index).m3u8\n"
        }
        try master.write(toFile: folder + "/master.m3u8", atomically: true, encoding: .utf8)
        let out = server.folder.file("out")
        let run = try CommandLineTests.run(["thumbnails", server.url("videos/show/master.m3u8") + Self.query, "--out", out,
                                            "--interval", "0.7"])
        #expect(run.status == 0, "\(run.stderr)")
        let thumbnails = out + "/master/thumbnails/"
        #expect(try ThumbnailTests.expectTilesOnTheirFrames(in: thumbnails, fps: 10).count == 9)
        #expect(try #require(ManifestStore.read(out + "/master/manifest.json")).probe.rendition?.width == 320)
        // Keyframe seeks land on the keyframe at or before each cue (fragmented MP4 by reading the rendition's
        // playlist again from a segment on, see `SegmentedPlaylist`), through the same reader and token.
        let keyframes = try CommandLineTests.run(["thumbnails", server.url("videos/show/master.m3u8") + Self.query, "--out",
                                                  server.folder.file("key"), "--interval", "1", "--seek", "keyframe"])
        #expect(keyframes.status == 0, "\(keyframes.stderr)")
        #expect(!keyframes.stdout.contains(Self.signature) && !keyframes.stderr.contains(Self.signature))
        let keyFolder = server.folder.file("key") + "/master/thumbnails/"
        let cues = try ThumbnailTests.parseVTT(String(contentsOfFile: keyFolder + "thumbnails.vtt", encoding: .utf8))
        #expect(try ThumbnailTests.frameNumbers(cues, folder: keyFolder) == cues.map { Int($0.start / 2) * 20 })
        // A short link that redirects to the playlist: what it names is relative to where the redirect led.
        let short = try CommandLineTests.run(["thumbnails", server.url("go/master-m3u8") + Self.query, "--out",
                                              server.folder.file("short"), "--interval", "0.7"])
        #expect(short.status == 0, "\(short.stderr)")
        #expect(try ThumbnailTests.expectTilesOnTheirFrames(in: server.folder.file("short") + "/master-m3u8/thumbnails/", fps: 10).count == 9)

        let requests = server.accessLog.filter { $0.contains("/videos/show/") }
        #expect(!requests.isEmpty)
        for line in requests {
            #expect(line.contains(Self.signature), "a request without the playlist's token: \(line)")
            #expect(line.range(of: #""bytes=[0-9]+-[0-9]+" (200|206) "#, options: .regularExpression) != nil, "unbounded: \(line)")
        }
        // The 1280-px rendition: what the analysis read, nothing after it.
        let segment = fmp4 ? "m4s" : "ts"
        if fmp4 { #expect(requests.contains { $0.contains("/v1-init.mp4") }) }
        #expect(requests.contains { $0.contains("/v0-000.\(segment)") } && !requests.contains { $0.contains("/v0-002.\(segment)") })
        #expect(requests.contains { $0.contains("/v1-002.\(segment)") })
        for (name, data) in everyFile(under: out) {
            #expect(data.range(of: Data(Self.signature.utf8)) == nil && !name.contains(Self.signature), "\(name)")
        }
        #expect(!run.stdout.contains(Self.signature) && !run.stderr.contains(Self.signature))
    }

    /// A ladder whose renditions' playlists are behind redirects (a short link each, to another folder): what each
    /// names is relative to where its own redirect led, as players resolve it, from the start and after seeks. Only
    /// the input's own redirect was followed, so its segments were looked for beside the short link.
    @Test(arguments: [false, true]) func aRenditionBehindARedirectIsReadFromWhereItLed(fmp4: Bool) throws {
        let server = try WebServer()
        let folder = server.root + "/videos/show"
        try FileManager.default.createDirectory(atPath: server.root + "/videos/ladder", withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        var master = "#EXTM3U\n#EXT-X-VERSION:3\n"
        for (index, size) in ["320x180", "640x360"].enumerated() {
            let made = try CommandLineTests.run(["sample", "--out", folder + "/v\(index).m3u8", "--duration", "6", "--size", size,
                                                 "--fps", "10", "--keyframe-interval", "2", "--preset", "ultrafast"]
                                                + (fmp4 ? ["--fmp4"] : []))
            try #require(made.status == 0, "\(made.stderr)")
            master += "#EXT-X-STREAM-INF:BANDWIDTH=\((index + 1) * 500_000),RESOLUTION=\(size)\n/go/v\(index)-m3u8\n"
        }
        try master.write(toFile: server.root + "/videos/ladder/master.m3u8", atomically: true, encoding: .utf8)
        for seek in ["exact", "keyframe"] {
            let out = server.folder.file(seek)
            let run = try CommandLineTests.run(["thumbnails", server.url("videos/ladder/master.m3u8") + Self.query, "--out", out,
                                                "--interval", "0.7", "--seek", seek])
            #expect(run.status == 0, "\(run.stderr)")
            let thumbnails = out + "/master/thumbnails/"
            let cues = try ThumbnailTests.parseVTT(String(contentsOfFile: thumbnails + "thumbnails.vtt", encoding: .utf8))
            #expect(cues.count == 9)
            #expect(try ThumbnailTests.frameNumbers(cues, folder: thumbnails)
                    == cues.map { seek == "exact" ? Int(($0.start * 10 + 1e-6).rounded(.down)) : Int($0.start / 2) * 20 }, "\(seek)")
        }
    }

    /// A local playlist may name its segments over http (a CDN's): they are read through FrameFarm's reader, as a
    /// remote playlist's are, where FFmpeg 5.1's hls demuxer aborted the process reusing an http connection on them.
    @Test(arguments: [false, true]) func aLocalPlaylistOfRemoteSegmentsIsRead(fmp4: Bool) throws {
        let server = try WebServer()
        let folder = server.root + "/videos/cdn"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let made = try CommandLineTests.run(["sample", "--out", folder + "/s.m3u8", "--duration", "4", "--size", "320x180",
                                             "--fps", "10", "--keyframe-interval", "2", "--preset", "ultrafast"]
                                            + (fmp4 ? ["--fmp4"] : []))
        try #require(made.status == 0, "\(made.stderr)")
        let remote = try String(contentsOfFile: folder + "/s.m3u8", encoding: .utf8)
            .split(separator: "\n", omittingEmptySubsequences: false).map { line in
                line.hasPrefix("#") || line.isEmpty ? line.replacingOccurrences(of: "URI=\"", with: "URI=\"\(server.url("videos/cdn/"))")
                    : server.url("videos/cdn/" + line)
            }.joined(separator: "\n")
        let playlist = server.folder.file("local.m3u8")
        try remote.write(toFile: playlist, atomically: true, encoding: .utf8)
        let out = server.folder.file("out")
        let run = try CommandLineTests.run(["thumbnails", playlist, "--out", out, "--interval", "0.7"])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(try ThumbnailTests.expectTilesOnTheirFrames(in: out + "/local/thumbnails/", fps: 10).count == 6)
        #expect(server.accessLog.contains { $0.contains("/videos/cdn/s-001.") })
    }

    /// Encrypted HLS over http: the key and the AES-128 segments come through FrameFarm's reader (FFmpeg's `crypto`
    /// protocol would fetch the segments with its own http client), in bounded range requests carrying the
    /// playlist's token, and are decrypted by FrameFarm: every tile shows its frame. A private origin's `--header`
    /// reaches the segments; a segment that cannot be decrypted fails the input naming it.
    @Test func encryptedSegmentsOverHTTPAreReadByFrameFarmAndDecrypted() throws {
        let server = try WebServer()
        let folder = server.root + "/videos"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let made = try CommandLineTests.run(["sample", "--out", folder + "/locked.m3u8", "--duration", "4", "--size", "320x180",
                                             "--fps", "10", "--keyframe-interval", "2", "--preset", "ultrafast", "--encrypt"])
        try #require(made.status == 0, "\(made.stderr)")
        let out = server.folder.file("out")
        let run = try CommandLineTests.run(["thumbnails", server.url("videos/locked.m3u8") + Self.query, "--out", out,
                                            "--interval", "0.7"])
        #expect(run.status == 0, "\(run.stderr)")
        let thumbnails = out + "/locked/thumbnails/"
        try ThumbnailTests.expectTilesOnTheirFrames(in: thumbnails, fps: 10)
        #expect(server.accessLog.contains { $0.contains("/videos/locked.key?") && $0.contains(Self.signature) })
        let segments = server.accessLog.filter { $0.contains("/videos/locked-") }
        #expect(segments.count >= 2 && segments.allSatisfy { $0.contains(Self.signature) }, "\(segments)")
        #expect(segments.allSatisfy { $0.range(of: #""bytes=[0-9]+-[0-9]+" 206 "#, options: .regularExpression) != nil }, "\(segments)")
        #expect(!run.stdout.contains(Self.signature) && !run.stderr.contains(Self.signature))

        let privateOut = server.folder.file("private")
        let header = try CommandLineTests.run(["thumbnails", server.url("private/locked.m3u8"), "--out", privateOut,
                                               "--interval", "0.7", "--header", "Authorization: Bearer opensesame"])
        #expect(header.status == 0, "\(header.stderr)")
        try ThumbnailTests.expectTilesOnTheirFrames(in: privateOut + "/locked/thumbnails/", fps: 10)

        // A segment cut short of a whole AES block cannot be decrypted.
        let segment = folder + "/locked-001.ts"
        try FileManager.default.contents(atPath: segment)!.dropLast(5).write(to: URL(fileURLWithPath: segment))
        let cut = try CommandLineTests.run(["thumbnails", server.url("videos/locked.m3u8"), "--out", server.folder.file("cut"),
                                            "--interval", "0.7"])
        #expect(cut.status == 1)
        #expect(cut.stderr.contains("\(server.url("videos/locked.m3u8")): cannot read \(server.url("videos/locked-001.ts")), "
                                    + "which the playlist lists: cannot decrypt it: "), "\(cut.stderr)")
    }

    /// A segment a remote playlist lists but the server does not have (404), and one it answers with status 200 and
    /// an error page (a CDN's): FFmpeg's demuxer would skip either (it reads the page as holding nothing) and the
    /// track would show other frames for its seconds; the input fails naming the segment instead.
    @Test func aMissingSegmentFailsTheInputRatherThanLeaveAGap() throws {
        let server = try WebServer()
        let folder = server.root + "/videos"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        for name in ["show", "page"] {
            let made = try CommandLineTests.run(["sample", "--out", folder + "/\(name).m3u8", "--duration", "6", "--size", "320x180",
                                                 "--fps", "10", "--keyframe-interval", "2", "--preset", "ultrafast"])
            try #require(made.status == 0, "\(made.stderr)")
        }
        try FileManager.default.removeItem(atPath: folder + "/show-001.ts")
        try Data("<html><body>Rate limited</body></html>\n".utf8).write(to: URL(fileURLWithPath: folder + "/page-001.ts"))
        let run = try CommandLineTests.run(["thumbnails", server.url("videos/show.m3u8") + Self.query, server.url("videos/page.m3u8"),
                                            "--out", server.folder.file("out"), "--interval", "1"])
        #expect(run.status == 1)
        #expect(run.stderr.contains("\(server.url("videos/show.m3u8")): cannot read \(server.url("videos/show-001.ts")), "
                                    + "which the playlist lists: HTTP 404"), "\(run.stderr)")
        #expect(run.stderr.contains("cannot read \(server.url("videos/page-001.ts")), which the playlist lists: it is not in a format "
                                    + "segments come in (MPEG-TS, MP4, WebM, AAC, MP3, AC-3): it begins \"<html><body>Rate"), "\(run.stderr)")
        #expect(!run.stderr.contains(Self.signature))
    }
}

