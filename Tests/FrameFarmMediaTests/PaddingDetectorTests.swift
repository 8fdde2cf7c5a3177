import Foundation
import FrameFarmCore
import Testing
@testable import FrameFarmMedia
import FrameFarmSamples

@Suite struct PaddingDetectorTests {
    private func detect(workers: Int = 2, size: PixelSize = PixelSize(width: 320, height: 180),
                        _ configure: (inout SampleOptions) -> Void) throws
        -> (found: PixelRect, drawn: PixelRect, padding: Padding) {
        let directory = TemporaryDirectory()
        var options = SampleOptions()
        options.size = size
        options.durationSeconds = 4
        options.keyframeIntervalSeconds = 0.5
        options.preset = "ultrafast"
        configure(&options)
        let path = directory.file("padded.mp4")
        try SampleVideoWriter.write(to: path, options: options)
        let padding = try PaddingDetector.detect(path: path, durationSeconds: options.durationSeconds, startSeconds: 0,
                                                 workers: workers)
        return (padding.contentRect, options.contentRect, padding)
    }

    /// Encoded as `sample` encodes by default, where x264 rings next to the picture's bright edge (a column or two
    /// of the bar a few levels above black): the ringing is bar, not picture. Kept, it showed as a dark sliver
    /// along the picture's edge.
    static let sizes = [(320, 180), (480, 270), (640, 360)].map { PixelSize(width: $0.0, height: $0.1) }

    @Test(arguments: sizes + [PixelSize(width: 400, height: 300)])
    func letterboxBarsAreFoundToThePixel(size: PixelSize) throws {
        let result = try detect(size: size) {
            $0.letterbox = true
            $0.preset = SampleOptions().preset
        }
        #expect(result.drawn.height < size.height)
        #expect(result.found == result.drawn)
    }

    @Test(arguments: sizes)
    func pillarboxBarsAreFoundToThePixel(size: PixelSize) throws {
        let result = try detect(size: size) {
            $0.pillarbox = true
            $0.preset = SampleOptions().preset
        }
        #expect(result.drawn.width < size.width)
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

    /// Dark picture by an edge (luma under the dark limit, but textured) is content, not a bar: with no bars, and
    /// beside real ones.
    @Test func aDarkTexturedEdgeIsNotABar() throws {
        let plain = try detect { $0.darkEdge = true }
        #expect(plain.padding.kind == .none)
        #expect(plain.found == PixelRect(x: 0, y: 0, width: 320, height: 180))
        let letterboxed = try detect {
            $0.darkEdge = true
            $0.letterbox = true
        }
        #expect(letterboxed.padding.kind == .throughout)
        #expect(letterboxed.found == letterboxed.drawn)
    }

    /// Bars in the first half only: reported as partial, with the rect where they show, and not removed.
    @Test func barsInPartOfTheVideoArePartial() throws {
        let result = try detect {
            $0.pillarbox = true
            $0.paddingUntilSeconds = 2
        }
        #expect(result.padding.kind == .partial)
        #expect(result.found == PixelRect(x: 0, y: 0, width: 320, height: 180))
        #expect(result.padding.partialContentRect == result.drawn)
        let share = try #require(result.padding.partialShare)
        #expect(share > 0.3 && share < 0.7)
    }

    /// A 3-s clip with one keyframe: its frames at the sample times are decoded exactly, so the bars are judged
    /// on as many frames as a long video's.
    @Test func aClipWithOneKeyframeIsJudgedOnEnoughFrames() throws {
        let result = try detect {
            $0.letterbox = true
            $0.durationSeconds = 3
            $0.keyframeIntervalSeconds = 10
        }
        #expect(result.padding.usableSamples >= Padding.fewestSamplesForUnevenBars)
        #expect(result.found == result.drawn)
    }

    // The decision alone, on evidence made up for each rule (100x50 frames: bars of at least 1 row or column).
    private static let size = PixelSize(width: 100, height: 50)
    private static let open = EdgeEvidence(flat: 0, dark: 0)
    private static func bar(_ rows: Int) -> EdgeEvidence { EdgeEvidence(flat: rows, dark: rows) }
    private static func frame(top: EdgeEvidence = open, bottom: EdgeEvidence = open,
                              left: EdgeEvidence = open, right: EdgeEvidence = open) -> FrameBars {
        FrameBars(top: top, bottom: bottom, left: left, right: right)
    }

    @Test func darkFramesAndTooFewSamplesSayNothing() {
        #expect(Padding.decide(codedSize: Self.size, frames: [nil, nil]).kind == .none)
        // Two frames with clear bars are not enough evidence.
        let two = [FrameBars?](repeating: Self.frame(top: Self.bar(6), bottom: Self.bar(6)), count: 2)
        #expect(Padding.decide(codedSize: Self.size, frames: two).kind == .none)
        let three = Padding.decide(codedSize: Self.size, frames: two + [Self.frame(top: Self.bar(6), bottom: Self.bar(6))])
        #expect(three.contentRect == PixelRect(x: 0, y: 6, width: 100, height: 38))
    }

    @Test func aBarIsNoThickerThanItIsInAnyFrame() {
        // A dark top half in one frame (dark picture adjacent to the bar: no edge shown there) doesn't widen it.
        let frames: [FrameBars?] = [Self.frame(top: EdgeEvidence(flat: 9, dark: 25), bottom: Self.bar(5)),
                                    Self.frame(top: Self.bar(5), bottom: Self.bar(5)),
                                    Self.frame(top: Self.bar(5), bottom: Self.bar(6))]
        #expect(Padding.decide(codedSize: Self.size, frames: frames).contentRect == PixelRect(x: 0, y: 5, width: 100, height: 40))
    }

    @Test func aOneSidedBarNeedsEverySampleToShowItAtOnePlace() {
        let oneSided = Self.frame(left: Self.bar(12))
        // Five samples: too few for an uneven bar, which is only likely (what --remove-padding force removes).
        let five = Padding.decide(codedSize: Self.size, frames: Array(repeating: oneSided, count: 5))
        #expect(five.kind == .none && five.confidence == .likely)
        #expect(five.contentRect == PixelRect(size: Self.size))
        #expect(five.likelyContentRect == PixelRect(x: 12, y: 0, width: 88, height: 50))
        #expect(five.edgeSamples == EdgeCounts(top: 0, bottom: 0, left: 5, right: 0))
        // Nine samples, all showing it at the same column: taken.
        let nine = Padding.decide(codedSize: Self.size, frames: Array(repeating: oneSided, count: 9))
        #expect(nine.contentRect == PixelRect(x: 12, y: 0, width: 88, height: 50) && nine.confidence == .certain)
        // Nine samples whose dark left edge moves (content, not a matte): not even likely.
        let moving = (0..<9).map { Self.frame(left: Self.bar(8 + $0)) }
        #expect(Padding.decide(codedSize: Self.size, frames: moving).confidence == .none)
        // Nine samples but one where the picture starts unclearly: none.
        let unclear = Array(repeating: oneSided, count: 8) + [Self.frame(left: EdgeEvidence(flat: 12, dark: 30))]
        #expect(Padding.decide(codedSize: Self.size, frames: unclear).kind == .none)
    }

    @Test func unevenBarsOnWeakEvidenceKeepOnlyTheSymmetricPart() {
        let frames = (0..<3).map { _ in Self.frame(top: Self.bar(20), bottom: Self.bar(8)) }
        let uneven = Padding.decide(codedSize: Self.size, frames: frames)
        #expect(uneven.contentRect == PixelRect(x: 0, y: 8, width: 100, height: 34))
        // The rest of the top bar is likely.
        #expect(uneven.likelyContentRect == PixelRect(x: 0, y: 20, width: 100, height: 22))
        // Within the pair's tolerance (4 rows here), each side keeps its own thickness.
        let near = (0..<3).map { _ in Self.frame(top: Self.bar(10), bottom: Self.bar(8)) }
        #expect(Padding.decide(codedSize: Self.size, frames: near).contentRect == PixelRect(x: 0, y: 10, width: 100, height: 32))
    }

    @Test func edgeCountsTurnWithTheDisplay() {
        let coded = EdgeCounts(top: 1, bottom: 2, left: 3, right: 4)
        #expect(coded.displayed(rotation: 0, mirrored: false) == coded)
        // A quarter turn clockwise brings the coded top to the right and the left to the top.
        #expect(coded.displayed(rotation: 90, mirrored: false) == EdgeCounts(top: 3, bottom: 4, left: 2, right: 1))
        #expect(coded.displayed(rotation: 180, mirrored: false) == EdgeCounts(top: 2, bottom: 1, left: 4, right: 3))
        #expect(coded.displayed(rotation: 0, mirrored: true) == EdgeCounts(top: 1, bottom: 2, left: 4, right: 3))
    }

    @Test func barsInSomeFramesOnlyArePartial() {
        let barred = Self.frame(left: Self.bar(10), right: Self.bar(10))
        let frames = Array(repeating: barred, count: 3) + Array(repeating: Self.frame(), count: 6)
        let padding = Padding.decide(codedSize: Self.size, frames: frames)
        #expect(padding.kind == .partial)
        #expect(padding.contentRect == PixelRect(size: Self.size))
        #expect(padding.partialContentRect == PixelRect(x: 10, y: 0, width: 80, height: 50))
        #expect(padding.partialShare == 3.0 / 9)
    }
}
