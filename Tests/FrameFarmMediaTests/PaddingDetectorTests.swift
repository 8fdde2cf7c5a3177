import Foundation
import FrameFarmCore
import Testing
@testable import FrameFarmMedia
import FrameFarmSamples

@Suite struct PaddingDetectorTests {
    private func detect(workers: Int = 2, _ configure: (inout SampleOptions) -> Void) throws
        -> (found: PixelRect, drawn: PixelRect) {
        let directory = TemporaryDirectory()
        var options = SampleOptions()
        options.size = PixelSize(width: 320, height: 180)
        options.durationSeconds = 4
        options.keyframeIntervalSeconds = 0.5
        options.preset = "ultrafast"
        configure(&options)
        let path = directory.file("padded.mp4")
        try SampleVideoWriter.write(to: path, options: options)
        let found = try PaddingDetector.detect(path: path, durationSeconds: options.durationSeconds, startSeconds: 0,
                                               workers: workers)
        return (found, options.contentRect)
    }

    @Test func letterboxBarsAreFoundToThePixel() throws {
        let result = try detect { $0.letterbox = true }
        #expect(result.drawn.height < 180)
        #expect(result.found == result.drawn)
    }

    @Test func pillarboxBarsAreFoundToThePixel() throws {
        let result = try detect { $0.pillarbox = true }
        #expect(result.drawn.width < 320)
        #expect(result.found == result.drawn)
    }

    @Test func unpaddedVideoKeepsTheWholeFrame() throws {
        let result = try detect { _ in }
        #expect(result.found == PixelRect(x: 0, y: 0, width: 320, height: 180))
    }

    /// Whichever way the samples are split among readers (one to nine), the bars are found and the fade's dark
    /// frames don't hide them.
    @Test(arguments: [1, 2, 4, 9])
    func aLongFadeFromBlackIsNotMistakenForBars(workers: Int) throws {
        let result = try detect(workers: workers) {
            $0.letterbox = true
            $0.blackLeadSeconds = 1.2
            $0.fadeInSeconds = 1.0
        }
        #expect(result.found == result.drawn)
    }

    @Test func darkFramesAloneSayNothing() {
        let size = PixelSize(width: 100, height: 50)
        #expect(PaddingDetector.contentRect(codedSize: size, bars: [nil, nil]) == PixelRect(size: size))
        // A dark top half in one frame is outvoted by another frame lit to the edge.
        let rect = PaddingDetector.contentRect(codedSize: size, bars: [(25, 5, 0, 0), (5, 5, 0, 0)])
        #expect(rect == PixelRect(x: 0, y: 5, width: 100, height: 40))
    }
}
