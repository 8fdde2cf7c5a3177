import Foundation
import Testing
@testable import FrameFarm

/// A ladder with a rendition that cannot be read past its playlist (its first segment gone): FFmpeg's hls demuxer
/// opens every rendition's first segment and failed the whole input on it; players leave the rendition out and
/// play the others, and so does FrameFarm, saying so.
@Suite struct LadderRepairTests {
    @Test(arguments: [false, true]) func aRenditionThatCannotBeReadIsLeftOutAsPlayersDo(remote: Bool) throws {
        let server = remote ? try WebServer() : nil
        let directory = TemporaryDirectory()
        let folder = server.map { $0.root + "/videos/show" } ?? directory.file("show")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        var master = "#EXTM3U\n"
        for (index, size) in ["640x360", "320x180", "480x270"].enumerated() {
            try HLSInputTests.samplePlaylist(folder + "/v\(index).m3u8", ["--size", size])
            master += "#EXT-X-STREAM-INF:BANDWIDTH=\(2_000_000 / (index + 1)),RESOLUTION=\(size)\nv\(index).m3u8\n"
        }
        try master.write(toFile: folder + "/master.m3u8", atomically: true, encoding: .utf8)
        try FileManager.default.removeItem(atPath: folder + "/v0-000.ts")
        let input = server?.url("videos/show/master.m3u8") ?? folder + "/master.m3u8"
        let out = directory.file("out")
        let run = try CommandLineTests.run(["thumbnails", input, "--out", out, "--interval", "1", "--rendition", "highest"])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stderr.contains("warning: a rendition is left out of the ladder, as players leave it: v0.m3u8: cannot read ")
                && run.stderr.contains("v0-000.ts, which the playlist lists"), "\(run.stderr)")
        // The rendition read is the highest of the others, whole: every tile its own frame, with parallel decoding and seeks.
        #expect(try ThumbnailTests.expectTilesOnTheirFrames(in: out + "/master/thumbnails/", fps: 10).count == 6)
        let probe = try #require(ManifestStore.read(out + "/master/manifest.json")).probe
        #expect(probe.displayWidth == 480 && probe.rendition?.count == 2, "\(probe)")
        #expect(probe.rendition?.reason == "highest: the largest picture (of the 2 renditions read, 1 left out)")
        #expect(probe.skippedRenditions?.count == 1 && probe.skippedRenditions?.first?.contains("v0-000.ts") == true)
        // Asked for by its size, the rendition left out says why it is not there.
        let asked = try CommandLineTests.run(["poster", input, "--out", directory.file("asked"), "--rendition", "640x360"])
        #expect(asked.status == 1 && asked.stderr.contains("no 640x360 rendition (the input has 0: 320x180, 1: 480x270); left out of the "
                                                           + "ladder, as players leave them: v0.m3u8: cannot read "), "\(asked.stderr)")
        // Nothing left to read: one line, naming a segment.
        try FileManager.default.removeItem(atPath: folder + "/v1-000.ts")
        try FileManager.default.removeItem(atPath: folder + "/v2-000.ts")
        let none = try CommandLineTests.run(["poster", input, "--out", directory.file("none")])
        #expect(none.status == 1 && none.stderr.contains("-000.ts, which the playlist lists"), "\(none.stderr)")
    }

    /// A DASH representation that cannot be read (its initialization section gone) is left out the same way.
    @Test func aDASHRepresentationThatCannotBeReadIsLeftOut() throws {
        let directory = TemporaryDirectory()
        let manifest = try HLSInputTests.sampleManifest(in: directory)
        try FileManager.default.removeItem(atPath: directory.file("r1-init.mp4"))
        let out = directory.file("out")
        let run = try CommandLineTests.run(["thumbnails", manifest, "--out", out, "--interval", "0.7", "--rendition", "highest"])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stderr.contains("warning: a rendition is left out of the ladder, as players leave it: representation v1 "
                                    + "(1280x720): cannot read ") && run.stderr.contains("r1-init.mp4, which the manifest lists"),
                "\(run.stderr)")
        #expect(try ThumbnailTests.expectTilesOnTheirFrames(in: out + "/show/thumbnails/", fps: 10).count == 9)
        let probe = try #require(ManifestStore.read(out + "/show/manifest.json")).probe
        #expect(probe.codedWidth == 640 && probe.rendition?.count == 2
                && probe.rendition?.reason == "highest: the largest picture (of the 2 renditions read, 1 left out)", "\(probe)")
    }
}
