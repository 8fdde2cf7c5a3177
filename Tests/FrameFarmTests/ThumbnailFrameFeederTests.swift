import Foundation
import FrameFarmCore
import FrameFarmMedia
import Testing
@testable import FrameFarm

@Suite struct ThumbnailFrameFeederTests {
    /// Workers take chunks from one another (at the start, and when one is done early), split where a GOP starts:
    /// every target still comes out exactly once, as the frame on screen at its time.
    @Test func aWorkerDoneEarlyTakesOverHalfOfAnothersTargets() throws {
        let directory = TemporaryDirectory()
        let path = try makeSample(in: directory) {
            $0.durationSeconds = 20
            $0.keyframeIntervalSeconds = 2
        }
        // The first chunk is ten looks at the first frame (instant); the second is ten targets near the end of
        // ten GOPs (47 frames decoded each), so the first worker is done long before the second.
        let targets = Array(repeating: 0.0, count: 10) + (0..<10).map { 1.9 + 2 * Double($0) }
        let feeder = ThumbnailFrameFeeder(path: path, analysis: nil, targets: targets, mode: .exact,
                                          skipsDeblocking: false, workers: 2, capacity: 4, maxPixels: 1 << 26)
        var delivered = [Int: Int]()
        while let item = try feeder.next() {
            delivered[item.index, default: 0] += 1
            let onScreen = Int((targets[item.index] * 25 + 1e-9).rounded(.down))
            #expect(frameCode(item.frame) == onScreen, "target \(item.index) at \(targets[item.index]) s")
        }
        #expect(delivered.count == targets.count && delivered.values.allSatisfy { $0 == 1 })
        // The second worker's first chunk is a takeover; the first, done early, usually takes over again, but
        // when depends on the scheduler (a loaded CI machine), so only the first is required.
        #expect(feeder.takeovers >= 1)
    }

    /// Targets that all lie in one GOP are decoded by one worker from its keyframe on: a second chunk cut among
    /// them would decode the GOP's start a second time, for nothing (the cut-by-count split decoded 250 frames
    /// here instead of 176).
    @Test func oneGOPIsDecodedOnce() throws {
        let directory = TemporaryDirectory()
        let path = try makeSample(in: directory) {
            $0.durationSeconds = 8
            $0.keyframeIntervalSeconds = 8  // one keyframe; no B-frames, so no frame is skipped on the way
        }
        let targets = (1...7).map(Double.init)
        let feeder = ThumbnailFrameFeeder(path: path, analysis: nil, targets: targets, mode: .exact,
                                          skipsDeblocking: false, workers: 2, capacity: 4, maxPixels: 1 << 26)
        var delivered = 0
        while let item = try feeder.next() {
            delivered += 1
            #expect(frameCode(item.frame) == Int(targets[item.index] * 25), "target \(item.index)")
        }
        #expect(delivered == targets.count)
        // Frames 0 ... 175, and the first past the last target, which tells where it ends.
        #expect(feeder.framesDecoded <= 177, "\(feeder.framesDecoded) frames decoded")
    }

    /// With reference frames only (the poster's candidates), each target gets a frame at or before it no further
    /// back than the stream's B-frame runs reach (three), and far fewer frames are decoded than exact targets need.
    @Test func referenceFramesOnlyServeNearbyFramesForLessDecoding() throws {
        let directory = TemporaryDirectory()
        let path = try makeSample(in: directory) {
            $0.durationSeconds = 4
            $0.keyframeIntervalSeconds = 4  // one GOP, as a short clip's poster candidates see it
            $0.bFrames = 3
        }
        let targets = (1...12).map { 0.3 * Double($0) }
        func decode(referenceFramesOnly: Bool) throws -> Int {
            let feeder = ThumbnailFrameFeeder(path: path, analysis: nil, targets: targets, mode: .exact,
                                              referenceFramesOnly: referenceFramesOnly, skipsDeblocking: false,
                                              workers: 2, capacity: 4, maxPixels: 1 << 26)
            var delivered = 0
            while let item = try feeder.next() {
                delivered += 1
                let onScreen = Int((targets[item.index] * 25 + 1e-6).rounded(.down))
                let code = try #require(frameCode(item.frame))
                if referenceFramesOnly {
                    #expect((onScreen - 3...onScreen).contains(code), "target \(item.index): frame \(code)")
                } else {
                    #expect(code == onScreen, "target \(item.index)")
                }
            }
            #expect(delivered == targets.count)
            return feeder.framesDecoded
        }
        let exact = try decode(referenceFramesOnly: false), nearby = try decode(referenceFramesOnly: true)
        #expect(Double(nearby) <= 0.7 * Double(exact), "\(nearby) frames decoded against \(exact)")
    }

    /// Leading targets (keyframe mode's padding samples) are taken before any other, wherever they lie: one
    /// worker delivers them first, in the order given; with two, every target still comes out once, as the
    /// keyframe at or before its time.
    @Test(arguments: [1, 2])
    func leadingTargetsComeFirst(workers: Int) throws {
        let directory = TemporaryDirectory()
        let path = try makeSample(in: directory) {
            $0.durationSeconds = 8
            $0.keyframeIntervalSeconds = 0.4
        }
        // Keyframes every 10 frames (25 fps); target i lies between keyframes i and i + 1.
        let targets = (0..<20).map { 0.4 * Double($0) + 0.2 }
        let leading = [17, 2, 11, 6]
        let feeder = ThumbnailFrameFeeder(path: path, analysis: nil, targets: targets, leading: leading,
                                          mode: .keyframe, skipsDeblocking: false, workers: workers, capacity: 4,
                                          maxPixels: 1 << 26)
        var order: [Int] = []
        while let item = try feeder.next() {
            order.append(item.index)
            #expect(frameCode(item.frame) == 10 * item.index, "target \(item.index) at \(targets[item.index]) s")
        }
        #expect(order.sorted() == Array(targets.indices))
        if workers == 1 {
            #expect(order == leading + targets.indices.filter { !leading.contains($0) })
        }
    }

    /// An exact target on a keyframe, taken as a leading one (a padding sample), costs that keyframe alone: the
    /// worker must not expect to read it again from its own chunk, which would keep it decoding past it.
    @Test(arguments: [0.0, 2.0, 4.0])
    func aLeadingExactTargetOnAKeyframeDecodesItAlone(target: Double) throws {
        let directory = TemporaryDirectory()
        let path = try makeSample(in: directory) {
            $0.durationSeconds = 6
            $0.keyframeIntervalSeconds = 2
        }
        let feeder = ThumbnailFrameFeeder(path: path, analysis: nil, targets: [target], leading: [0], mode: .exact,
                                          skipsDeblocking: false, workers: 1, capacity: 2, maxPixels: 1 << 26)
        let item = try #require(try feeder.next())
        #expect(frameCode(item.frame) == Int(target * 25))
        #expect(try feeder.next() == nil)
        #expect(feeder.framesDecoded == 1, "\(feeder.framesDecoded) frames decoded")
    }

    /// The padding samples are the serving targets nearest the detector's own sample times, each target once;
    /// the sample times whose nearest target an earlier one took are left to the detector. With no target
    /// serving, the detector keeps its own search.
    @Test func paddingSourcesAreTheTargetsNearestTheDetectorsTimes() throws {
        let long = (0..<60).map { 5 + 10 * Double($0) }
        let times = PaddingDetector.sampleTimes(durationSeconds: 600, startSeconds: 5)
        let sources = try #require(ThumbnailJob.paddingSources(targets: long, serving: Array(long.indices),
                                                               durationSeconds: 600, startSeconds: 5))
        #expect(sources.targets.count == times.count && sources.extraTimes.isEmpty)
        for (index, time) in zip(sources.targets, times) { #expect(abs(long[index] - time) <= 5) }
        #expect(ThumbnailJob.paddingSources(targets: long, serving: [], durationSeconds: 600, startSeconds: 5) == nil)

        // Six targets 10 s apart over a minute; the samples lie at 3, 9.75, 16.5, 23.25 ... 57 s.
        let six = (0..<6).map { 10 * Double($0) }
        let sixTimes = PaddingDetector.sampleTimes(durationSeconds: 60, startSeconds: 0)
        let all = ThumbnailJob.paddingSources(targets: six, serving: Array(six.indices), durationSeconds: 60, startSeconds: 0)
        #expect(all?.targets == [0, 1, 2, 3, 4, 5])
        #expect(all?.extraTimes == [sixTimes[3], sixTimes[6], sixTimes[8]])
        // Only the first and the last serving: 3 s takes the first, 30 s (nearer 50 than 0) the last.
        let ends = ThumbnailJob.paddingSources(targets: six, serving: [0, 5], durationSeconds: 60, startSeconds: 0)
        #expect(ends?.targets == [0, 5])
        #expect(ends?.extraTimes == Array(sixTimes[1...3]) + Array(sixTimes[5...8]))
    }

    /// In exact mode the targets that cost a keyframe's decoding serve: those up to four frames after a keyframe
    /// of the scan (decode times, which may trail the frame shown by the reordering delay).
    @Test func exactTargetsAtKeyframesServe() throws {
        let directory = TemporaryDirectory()
        let path = try makeSample(in: directory) {
            $0.durationSeconds = 6
            $0.keyframeIntervalSeconds = 2
        }
        let stream = try MediaProber.open(path: path)
        let keyframes = try #require(stream.keyframeTimes)
        #expect(keyframes.count == 3)
        let targets = [0, 0.12, 1, 2.04, 3, 4.2, 5.9]
        #expect(ThumbnailJob.keyframeTargets(targets, mode: .exact, stream: stream) == [0, 1, 3])
        // In keyframe mode, one per keyframe shown: the others show the same frame.
        #expect(ThumbnailJob.keyframeTargets(targets, mode: .keyframe, stream: stream) == [0, 3, 5])
    }
}

/// The frame number a sample's frame shows, read from its luma plane (limited range).
func frameCode(_ frame: DecodedFrame) -> Int? {
    frame.withLumaPlane { base, bytesPerRow in
        FrameCode.read(width: frame.format.width, height: frame.format.height) { x, y in
            (Double(base.load(fromByteOffset: y * bytesPerRow + x, as: UInt8.self)) - 16) * 255 / 219
        }
    }
}
