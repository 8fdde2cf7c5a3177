import Foundation
import Testing
@testable import FrameFarm

/// How a local playlist's addresses and bytes are read: its segment addresses are URIs (RFC 8216), so `%20` names a
/// file with a space and a query is not part of a file's name, as a browser reading the playlist from disk takes
/// them; a byte-order mark, which the RFC forbids, is one clear line rather than FFmpeg's "invalid data"; and a
/// segment is read only as a format segments come in, never a text file as ANSI art showing its lines.
@Suite struct PlaylistAddressTests {
    @Test func escapedAddressesNameTheirFilesAndAByteOrderMarkIsSaid() throws {
        let directory = TemporaryDirectory()
        let made = try CommandLineTests.run(["sample", "--out", directory.file("my show.m3u8"), "--duration", "3", "--size", "320x180",
                                             "--fps", "10", "--keyframe-interval", "1", "--preset", "ultrafast"])
        #expect(made.status == 0, "\(made.stderr)")
        let text = try String(contentsOfFile: directory.file("my show.m3u8"), encoding: .utf8)
        #expect(text.contains("my show-000.ts"))
        let escaped = directory.write("escaped.m3u8", Data(text.replacingOccurrences(of: "my show-", with: "my%20show-")
            .replacingOccurrences(of: ".ts\n", with: ".ts?v=2\n").utf8))
        for seek in ["exact", "keyframe"] {
            let run = try CommandLineTests.run(["thumbnails", escaped, "--out", directory.file(seek), "--interval", "1", "--seek", seek])
            #expect(run.status == 0, "\(run.stderr)")
            #expect(try ThumbnailTests.expectTilesOnTheirFrames(in: directory.file("\(seek)/escaped/thumbnails/"), fps: 10).count == 3)
        }
        let marked = directory.write("marked.m3u8", Data([0xEF, 0xBB, 0xBF]) + Data(text.utf8))
        let refused = try CommandLineTests.run(["probe", marked])
        #expect(refused.status == 1)
        #expect(refused.stderr.contains("marked.m3u8: cannot read this HLS playlist: it starts with a byte-order mark"), "\(refused.stderr)")
    }

    /// A text file named as a segment, first (the open) or later (where a keyframe seek opens the playlist again,
    /// and names it), in a playlist or a DASH manifest, fails the input in one line and leaves no track.
    @Test func aFileThatIsNoSegmentFormatIsNotRead() throws {
        let directory = TemporaryDirectory()
        let made = try CommandLineTests.run(["sample", "--out", directory.file("show.m3u8"), "--duration", "2", "--size", "320x180",
                                             "--fps", "10", "--keyframe-interval", "1", "--preset", "ultrafast"])
        #expect(made.status == 0, "\(made.stderr)")
        _ = directory.write("notes.txt", Data(String(repeating: "user:secret:1000:1000::/home/user:/bin/sh\n", count: 100).utf8))
        let segments = "#EXTM3U\n#EXT-X-TARGETDURATION:1\n#EXT-X-PLAYLIST-TYPE:VOD\n#EXTINF:1.0,\n"
        let first = directory.write("first.m3u8", Data((segments + "notes.txt\n#EXTINF:1.0,\nshow-001.ts\n#EXT-X-ENDLIST\n").utf8))
        let later = directory.write("later.m3u8", Data((segments + "show-000.ts\n#EXTINF:1.0,\nnotes.txt\n#EXT-X-ENDLIST\n").utf8))
        let manifest = directory.write("notes.mpd", Data("""
            <?xml version="1.0"?><MPD xmlns="urn:mpeg:dash:schema:mpd:2011" type="static" mediaPresentationDuration="PT1S">
            <Period><AdaptationSet mimeType="video/mp4"><Representation id="v" width="320" height="180">
            <SegmentList timescale="1" duration="1"><SegmentURL media="notes.txt"/></SegmentList></Representation></AdaptationSet></Period></MPD>
            """.utf8))
        for input in [first, later, manifest] {
            let run = try CommandLineTests.run(["thumbnails", input, "--out", directory.file("out"), "--interval", "0.5",
                                                "--seek", "keyframe"])
            let name = URL(fileURLWithPath: input).lastPathComponent
            // The playlist, or where it is opened again from a segment to seek, that segment.
            #expect(run.status == 1 && run.stderr.contains("\(name): cannot read "), "\(run.stderr)")
            #expect(run.stderr.contains("not in a format segments come in (MPEG-TS, MP4"), "\(run.stderr)")
            let track = directory.file("out/\(URL(fileURLWithPath: input).deletingPathExtension().lastPathComponent)/thumbnails")
            #expect(!FileManager.default.fileExists(atPath: track), "\(name)")
        }
    }
}
