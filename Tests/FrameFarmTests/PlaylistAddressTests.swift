import Foundation
import Testing
@testable import FrameFarm

/// How a local playlist's addresses and bytes are read: its segment addresses are URIs (RFC 8216), so `%20` names a
/// file with a space, as a browser reading the playlist from disk takes it; a byte-order mark, which the RFC
/// forbids, is one clear line rather than FFmpeg's "invalid data".
@Suite struct PlaylistAddressTests {
    @Test func escapedAddressesNameTheirFilesAndAByteOrderMarkIsSaid() throws {
        let directory = TemporaryDirectory()
        let made = try CommandLineTests.run(["sample", "--out", directory.file("my show.m3u8"), "--duration", "3", "--size", "320x180",
                                             "--fps", "10", "--keyframe-interval", "1", "--preset", "ultrafast"])
        #expect(made.status == 0, "\(made.stderr)")
        let text = try String(contentsOfFile: directory.file("my show.m3u8"), encoding: .utf8)
        #expect(text.contains("my show-000.ts"))
        let escaped = directory.write("escaped.m3u8", Data(text.replacingOccurrences(of: "my show-", with: "my%20show-").utf8))
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
}
