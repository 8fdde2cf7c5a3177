import Foundation
import FrameFarmCore
import Testing
@testable import FrameFarmMedia

@Suite struct PosterPickerTests {
    @Test func posterComesFromTheSharpWellExposedPart() throws {
        let directory = TemporaryDirectory()
        let path = try makeSample(in: directory) {
            $0.durationSeconds = 20
            $0.frameRate = (10, 1)
            $0.keyframeIntervalSeconds = 1
            $0.blackLeadSeconds = 5
            $0.fadeInSeconds = 2
            $0.blurredRange = 8...14
        }
        let choice = try #require(try PosterPicker.pickFromKeyframes(path: path, durationSeconds: 20, startSeconds: 0,
                                                                     keyframeIntervalSeconds: 1)?.choice)
        #expect(choice.timeSeconds >= 7, "picked \(choice.timeSeconds) s, inside the black lead or the fade")
        #expect(!(8...14).contains(choice.timeSeconds), "picked \(choice.timeSeconds) s, inside the blurred stretch")
        #expect(choice.timeSeconds <= 19, "picked the last 5% of the video")
        #expect(choice.candidates >= 15)
    }

    /// However the candidates are split among parallel readers, the pick and its candidate count are those of
    /// one reader going through them all.
    @Test func parallelRunsPickWhatOneReaderPicks() throws {
        let directory = TemporaryDirectory()
        let path = try makeSample(in: directory) {
            $0.durationSeconds = 12
            $0.frameRate = (10, 1)
            $0.keyframeIntervalSeconds = 0.5
            $0.blackLeadSeconds = 1
            $0.blurredRange = 6...12  // the best frames are in the first runs
        }
        func pick(_ workers: Int) throws -> PosterPicker.Choice? {
            try PosterPicker.pickFromKeyframes(path: path, durationSeconds: 12, startSeconds: 0,
                                               keyframeIntervalSeconds: 0.5, workers: workers)?.choice
        }
        let one = try #require(try pick(1))
        for workers in [2, 3, 5] {
            let split = try #require(try pick(workers))
            #expect(split.timeSeconds == one.timeSeconds && split.candidates == one.candidates, "\(workers) workers")
            #expect(split.score == one.score)
        }
    }

    /// Concealed damage reads as detail, so a damaged frame would often win the pick: a clean one must, however
    /// poor; with nothing clean to choose, the best damaged frame is chosen and says what it met. (The poster
    /// tests damage real keyframes.)
    @Test func aCleanFrameOutranksDamagedOnes() throws {
        let directory = TemporaryDirectory()
        let path = try makeSample(in: directory) {
            $0.durationSeconds = 4
            $0.frameRate = (10, 1)
            $0.keyframeIntervalSeconds = 1
            $0.blurredRange = 0...2
        }
        let reader = try FrameReader(path: path, threads: 1, keyframesOnly: true)
        let blurred = try #require(try reader.keyframe(atOrBefore: 1))
        let sharp = try #require(try reader.keyframe(atOrBefore: 3))
        try #require(PosterScore(frame: sharp) > PosterScore(frame: blurred))
        var tally = PosterPicker.Tally()
        tally.consider(blurred, damagedTimes: [1])
        tally.consider(sharp, damagedTimes: [3])
        #expect(tally.choice?.timeSeconds == 3 && tally.choice?.damagedTimes == [3])
        // One clean frame, however poor, outranks them; across merged tallies too.
        var other = PosterPicker.Tally()
        other.consider(blurred)
        tally.merge(other)
        #expect(tally.choice?.timeSeconds == 1 && tally.choice?.damagedTimes == [])
        #expect(tally.choice?.candidates == 2)
    }

    @Test func scoresOrderBlackBelowFlatBelowDetailed() {
        let size = 32
        let black = PosterScore(luma: [Double](repeating: 0.02, count: size * size), width: size, height: size)
        let flat = PosterScore(luma: [Double](repeating: 0.5, count: size * size), width: size, height: size)
        let detailed = PosterScore(luma: (0..<(size * size)).map { ($0 / size + $0 % size) % 2 == 0 ? 0.2 : 0.8 },
                                   width: size, height: size)
        let blurred = PosterScore(luma: (0..<(size * size)).map { 0.2 + 0.6 * Double($0 % size) / Double(size) },
                                  width: size, height: size)
        #expect(black.value == 0)
        #expect(flat.value == 0)
        #expect(blurred.value < detailed.value)
    }
}

@Suite struct PosterPickerLongGOPTests {
    /// Too few keyframes to choose from: the keyframe pass declines, from the probe's interval when it is known
    /// (nothing decoded) and from the candidates it found when it is not.
    @Test func aLongGOPVideoIsLeftToExactCandidates() throws {
        let directory = TemporaryDirectory()
        let path = try makeSample(in: directory) {
            $0.durationSeconds = 8
            $0.frameRate = (10, 1)
            $0.keyframeIntervalSeconds = 4
        }
        #expect(try PosterPicker.pickFromKeyframes(path: path, durationSeconds: 8, startSeconds: 0,
                                                   keyframeIntervalSeconds: 4)?.choice == nil)
        #expect(try PosterPicker.pickFromKeyframes(path: path, durationSeconds: 8, startSeconds: 0,
                                                   keyframeIntervalSeconds: nil)?.choice == nil)
    }
}
