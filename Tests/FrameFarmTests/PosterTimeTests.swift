import Foundation
import Testing
@testable import FrameFarm
import FrameFarmCore

/// `poster --at`: the frame on screen at the time asked; past the end, the last frame, said in a warning.
@Suite struct PosterTimeTests {
    @Test func aTimePastTheEndShowsTheLastFrameAndSaysSo() throws {
        let directory = TemporaryDirectory()
        let path = try makeSample(in: directory) { $0.durationSeconds = 2 }  // 25 fps: frames 0 to 49
        for (at, frame, warned) in [("1", 25, false), ("5", 49, true)] {
            let out = directory.file("out-" + at)
            let run = try CommandLineTests.run(["poster", path, "--at", at, "--out", out, "--widths", "160", "--format", "png"])
            #expect(run.status == 0, "\(run.stderr)")
            #expect(run.stderr.contains("the frame at 5.000 s was asked for (--at), past the video's end at 2.000 s: its last frame "
                                        + "(1.960 s) is shown") == warned, "\(run.stderr)")
            let poster = try readImage(out + "/sample/poster.png")
            let shown = FrameCode.read(width: poster.width, height: poster.height) { x, y in poster.luma(x: x, y: y) }
            #expect(shown == frame, "--at \(at)")
        }
    }
}
