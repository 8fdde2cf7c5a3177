import Foundation
import FrameFarmCore
import FrameFarmMedia
import Testing
@testable import FrameFarm

@Suite struct ThumbnailFrameFeederTests {
    /// A worker done with its own chunk takes the later half of another's, split where a GOP starts: every target
    /// still comes out exactly once, as the frame on screen at its time.
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
        #expect(feeder.takeovers > 0)
    }

    private func frameCode(_ frame: DecodedFrame) -> Int? {
        frame.withLumaPlane { base, bytesPerRow in
            FrameCode.read(width: frame.format.width, height: frame.format.height) { x, y in
                (Double(base.load(fromByteOffset: y * bytesPerRow + x, as: UInt8.self)) - 16) * 255 / 219
            }
        }
    }
}
