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

    /// A title card (a line of white letters on black: bright enough on average, contrasty and full of edges)
    /// scores below a dim, soft scene that fills the frame: before, it won, and a chapter card became the poster.
    @Test func aTitleCardScoresBelowASoftWholeScene() {
        let width = 128, height = 72
        // Letters: 4-px strokes 4 px apart along a band of 24 rows across the middle.
        let title = (0..<(width * height)).map { index -> Double in
            let x = index % width, y = index / width
            return (24..<48).contains(y) && (16..<112).contains(x) && (x / 4) % 2 == 0 ? 1 : 0
        }
        // A dim gradient with a faint texture, as a soft shot of a room.
        let scene = (0..<(width * height)).map { index -> Double in
            let x = Double(index % width), y = Double(index / width)
            return 0.22 + 0.3 * x / Double(width) + 0.08 * sin(x * 1.1) * cos(y * 0.7)
        }
        let card = PosterScore(luma: title, width: width, height: height)
        let shot = PosterScore(luma: scene, width: width, height: height)
        #expect(card.brightness > 0.08 && card.contrast > 0.2, "the card passes exposure and contrast alone")
        #expect(shot.value > card.value, "card \(card.value), scene \(shot.value)")
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

/// Exact candidates where keyframes are few lie in windows after the keyframes, within a decoding budget.
@Suite struct PosterCandidateWindowTests {
    /// Decoding seconds the candidates cost: from each candidate's keyframe (the last at or before it) to the
    /// furthest candidate after that keyframe.
    private func decodeCost(_ candidates: [Double], keyframes: [Double]) -> Double {
        var furthest: [Double: Double] = [:]
        for time in candidates {
            let keyframe = keyframes.last { $0 <= time + 1e-9 } ?? 0
            furthest[keyframe] = max(furthest[keyframe] ?? keyframe, time)
        }
        return furthest.reduce(0) { $0 + $1.value - $1.key }
    }

    /// The bench's 20-s clip: keyframes at 0, 8.33 and 16.67 s. A fifth of 20 s is 4 s; each window may reach
    /// 4/3 s past its keyframe, the first opening at 5% (1 s): [1, 1.33], [8.33, 9.67], [16.67, 18] by hand.
    @Test func aShortClipWithThreeKeyframesDecodesAFifthOfIt() {
        let keyframes = [0, 25.0 / 3, 50.0 / 3]
        let times = PosterPicker.windowedCandidateTimes(durationSeconds: 20, startSeconds: 0, count: 12,
                                                        keyframes: keyframes)
        let windows = [1.0...(4.0 / 3), (25.0 / 3)...(29.0 / 3), (50.0 / 3)...18]
        for time in times {
            #expect(windows.contains { $0.contains(time) || abs(time - $0.upperBound) < 1e-6 }, "\(time) s is outside the windows")
        }
        for window in windows {
            #expect(times.contains { window.contains($0) }, "no candidate in \(window)")
        }
        #expect(times.contains(25.0 / 3) && times.contains(50.0 / 3), "the keyframes themselves are candidates")
        #expect((10...13).contains(times.count), "\(times.count) candidates")
        #expect(decodeCost(times, keyframes: keyframes) <= 4 + 1e-6)
        // Spread over the whole clip, the same 12 would cost nearly all of it.
        let spread = PosterPicker.candidateTimes(durationSeconds: 20, startSeconds: 0, count: 12)
        #expect(decodeCost(spread, keyframes: keyframes) > 17)
    }

    /// One keyframe in 8 s: 3 s at least may be decoded, so the candidates lie between 5% (0.4 s) and 3 s.
    @Test func oneKeyframeGetsTheLeastBudget() {
        let times = PosterPicker.windowedCandidateTimes(durationSeconds: 8, startSeconds: 2, count: 12,
                                                        keyframes: [2])
        #expect(times.count == 12)
        #expect(times.allSatisfy { (2.4 - 1e-6)...(5 + 1e-6) ~= $0 }, "\(times)")
        #expect(abs(times.min()! - 2.4) < 1e-6 && abs(times.max()! - 5) < 1e-3)
    }

    /// Where spreading costs no more than the budget (a short clip, keyframes every second), the candidates are
    /// the usual spread.
    @Test func cheapSpreadsAreKept() {
        let short = PosterPicker.windowedCandidateTimes(durationSeconds: 2, startSeconds: 0, count: 12, keyframes: [0])
        #expect(short == PosterPicker.candidateTimes(durationSeconds: 2, startSeconds: 0, count: 12))
        // From the keyframes at 0, 1 and 2 s to 95% of 2.5 s: 2.375 s, within the least budget.
        let dense = PosterPicker.windowedCandidateTimes(durationSeconds: 2.5, startSeconds: 0, count: 12,
                                                        keyframes: [0, 1, 2])
        #expect(dense == PosterPicker.candidateTimes(durationSeconds: 2.5, startSeconds: 0, count: 12))
    }

    /// More keyframes than the budget reaches past: however many windows, the decoding stays within it (a fifth
    /// of 30 s), every window shows at least its keyframe, and nothing comes from the first or last 5%.
    @Test func manyWindowsStayWithinTheBudget() {
        let keyframes = (0..<30).map(Double.init)
        let times = PosterPicker.windowedCandidateTimes(durationSeconds: 30, startSeconds: 0, count: 12,
                                                        keyframes: keyframes)
        #expect(decodeCost(times, keyframes: keyframes) <= 6 + 1e-6)
        #expect(times.allSatisfy { (1.5 - 1e-9)...(28.5 + 1e-9) ~= $0 })
        #expect(times.count >= 12)
    }
}
