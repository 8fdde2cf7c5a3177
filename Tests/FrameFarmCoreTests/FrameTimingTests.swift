import Testing
@testable import FrameFarmCore

/// Frame timing from packet times built here, each with the answer it must give.
@Suite struct FrameTimingTests {
    /// 29.97 fps as exact ticks of 1/30000 s, and 23.976 fps stored in whole milliseconds (41, 42, 42 ms): both
    /// constant rates, no frame irregular.
    @Test func constantRatesAreRegular() throws {
        let ntsc = try #require(FrameTiming(packetTimes: (0..<300).map { Double($0 * 1001) / 30000 }))
        #expect(ntsc.irregularShare == 0 && ntsc.jumps.isEmpty)
        #expect(abs(ntsc.medianFrameSeconds - 1001.0 / 30000) < 1e-9)
        let film = try #require(FrameTiming(packetTimes: (0..<240).map { (Double($0) * 1001 / 24).rounded() / 1000 }))
        #expect(film.irregularShare == 0 && film.jumps.isEmpty)
        #expect(abs(film.shortestFrameSeconds - 0.041) < 1e-9 && abs(film.longestFrameSeconds - 0.042) < 1e-9)
    }

    /// Presentation times in decode order with B-frames (I P B B, repeated) are put back in order: regular.
    @Test func reorderedPresentationTimesAreRegular() throws {
        var times: [Double] = []
        for group in 0..<50 {
            let base = Double(group * 3)
            times += [base + 3, base + 1, base + 2].map { $0 * 0.04 }
        }
        let timing = try #require(FrameTiming(packetTimes: [0] + times))
        #expect(timing.irregularShare == 0 && timing.jumps.isEmpty, "\(timing)")
    }

    /// Durations cycling through 1, 0.5 and 1.5 frames: two thirds irregular.
    @Test func cyclingDurationsAreVariable() throws {
        var times = [0.0]
        for index in 0..<299 { times.append(times.last! + 0.04 * [1, 0.5, 1.5][index % 3]) }
        let timing = try #require(FrameTiming(packetTimes: times))
        #expect(abs(timing.irregularShare - 2.0 / 3) < 0.01)
        #expect(abs(timing.shortestFrameSeconds - 0.02) < 1e-9 && abs(timing.longestFrameSeconds - 0.06) < 1e-9)
    }

    /// A splice 5 s forward after frame 49 and a step 3 s back after frame 149: two jumps, where and by how much.
    @Test func breaksAreJumpsNotDurations() throws {
        let times = (0..<200).map { (index: Int) -> Double in
            let splice: Double = index >= 50 ? 5 : 0, stepBack: Double = index >= 150 ? 3 : 0
            return Double(index) * 0.04 + splice - stepBack
        }
        let timing = try #require(FrameTiming(packetTimes: times))
        #expect(timing.jumps.count == 2)
        #expect(abs(timing.jumps[0].atSeconds - 49 * 0.04) < 1e-9 && abs(timing.jumps[0].bySeconds - 5) < 1e-9)
        #expect(abs(timing.jumps[1].bySeconds + 3) < 1e-9)
        #expect(timing.irregularShare == 0)
        #expect(FrameTiming(packetTimes: [0, 0.04]) == nil)
    }

    /// Frames 10 and 20 stamped like the frames before them: two repeats, the first at 0.36 s, and no jump (they
    /// step back from where the next frame was due, but not from any time already shown).
    @Test func repeatedTimestampsAreRepeatsNotJumps() throws {
        let times = (0..<100).map { (index: Int) -> Double in
            let repeatsBefore = (index >= 10 ? 1 : 0) + (index >= 20 ? 1 : 0)
            return Double(index - repeatsBefore) * 0.04
        }
        let timing = try #require(FrameTiming(packetTimes: times))
        #expect(timing.jumps.isEmpty)
        let repeats = try #require(timing.repeats)
        #expect(repeats.count == 2 && abs(repeats.firstAtSeconds - 0.36) < 1e-9, "\(timing)")
        #expect(FrameTiming(packetTimes: (0..<100).map { Double($0) * 0.04 })?.repeats == nil)
    }
}
