import Foundation
import Testing
@testable import FrameFarm

/// An HLS media playlist as an input: `sample --out x.m3u8` writes one (MPEG-TS segments beside it, named after it),
/// and a track cut from it shows, at every cue, the frame its cue starts at, across the segments' boundaries.
@Suite struct HLSInputTests {
    @Test func aPlaylistIsOneVideoWithExactTimesAcrossSegments() throws {
        let directory = TemporaryDirectory()
        let playlist = directory.file("show.m3u8")
        // 10 fps with a keyframe (and a segment) every 2 s; cues every 0.7 s fall inside and across segments.
        let made = try CommandLineTests.run(["sample", "--out", playlist, "--duration", "8", "--size", "320x180",
                                             "--fps", "10", "--keyframe-interval", "2", "--preset", "ultrafast"])
        #expect(made.status == 0, "\(made.stderr)")
        let names = try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted()
        #expect(names == ["show-000.ts", "show-001.ts", "show-002.ts", "show-003.ts", "show.m3u8"], "\(names)")
        let text = try String(contentsOfFile: playlist, encoding: .utf8)
        #expect(text.contains("#EXT-X-PLAYLIST-TYPE:VOD") && text.contains("#EXT-X-ENDLIST"))

        let out = directory.file("out")
        let run = try CommandLineTests.run(["thumbnails", playlist, "--out", out, "--interval", "0.7"])
        #expect(run.status == 0, "\(run.stderr)")
        let cues = try ThumbnailTests.parseVTT(String(contentsOfFile: out + "/show/thumbnails/thumbnails.vtt", encoding: .utf8))
        #expect(cues.count == 12)
        for file in Set(cues.map(\.file)) {
            let sheet = try readImage(out + "/show/thumbnails/" + file)
            for cue in cues where cue.file == file {
                // The frame on screen at t is frame floor(t x 10) (a hair under, for times stored in milliseconds).
                #expect(sheet.frameCode(in: cue.rect) == Int((cue.start * 10 + 1e-6).rounded(.down)), "cue at \(cue.start)")
            }
        }
    }
}
