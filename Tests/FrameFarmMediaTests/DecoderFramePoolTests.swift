import Foundation
import FrameFarmCore
@testable import FrameFarmMedia
import Testing

/// The process-wide picture buffers decoders share (`DecoderFramePool`).
@Suite struct DecoderFramePoolTests {
    /// A buffer comes back to its own decoder as it was left, and to another one zeroed, as FFmpeg hands out a
    /// new one: one video's pixels never reach another's frames. (An odd size no decoder asks for, so frames of
    /// the tests running beside this one never take these buffers.)
    @Test func aBufferMovingToAnotherDecoderIsZeroed() throws {
        let bytes = 4099
        let first = try #require(DecoderFramePool.take(bytes: bytes, owner: 1))
        #expect(UnsafeBufferPointer(start: first.data, count: bytes).allSatisfy { $0 == 0 })
        first.data.initialize(repeating: 0xAB, count: bytes)
        let address = first.data
        DecoderFramePool.giveBack(first)
        let again = try #require(DecoderFramePool.take(bytes: bytes, owner: 1))
        #expect(again.data == address)
        #expect(UnsafeBufferPointer(start: again.data, count: bytes).allSatisfy { $0 == 0xAB })
        DecoderFramePool.giveBack(again)
        let other = try #require(DecoderFramePool.take(bytes: bytes, owner: 2))
        #expect(other.data == address)
        #expect(UnsafeBufferPointer(start: other.data, count: bytes).allSatisfy { $0 == 0 })
        DecoderFramePool.giveBack(other)
    }

    /// However many buffers come back, those waiting stay within the limit, the oldest let go first.
    @Test func idleBuffersStayWithinTheLimit() throws {
        let bytes = DecoderFramePool.idleBytesKept / 3 + 4101
        let buffers = try (0..<4).map { _ in try #require(DecoderFramePool.take(bytes: bytes, owner: 3)) }
        let newest = buffers[3].data
        for buffer in buffers { DecoderFramePool.giveBack(buffer) }
        #expect(DecoderFramePool.idleBytes <= DecoderFramePool.idleBytesKept)
        let kept = try #require(DecoderFramePool.take(bytes: bytes, owner: 3))
        #expect(kept.data == newest)
        DecoderFramePool.giveBack(kept)
    }

    /// Two readers of the same video (8-bit H.264) and of a 10-bit HEVC one, taking turns and holding their
    /// frames, get every frame whole from the pool's buffers: each shows the number drawn in it, whichever
    /// reader's buffers it reused.
    @Test(arguments: [("libx264", "yuv420p"), ("libx265", "yuv420p10le")])
    func readersTakingTurnsGetWholeFrames(encoder: String, pixelFormat: String) throws {
        let directory = TemporaryDirectory()
        let path = try makeSample(in: directory) {
            $0.durationSeconds = 3
            $0.keyframeIntervalSeconds = 1
            $0.encoder = encoder
            $0.pixelFormat = pixelFormat
        }
        var held: [DecodedFrame] = []
        for round in 0..<3 {
            let readers = try (0..<2).map { _ in try FrameReader(path: path, threads: round == 2 ? 0 : 1) }
            for (index, reader) in readers.enumerated() {
                let target = 0.4 * Double(index + 2 * round) + 0.1
                let frame = try #require(try reader.frame(at: target, lastTime: nil, then: .nothing))
                #expect(readFrameCode(frame) == Int((target * 25).rounded(.down)), "\(encoder) at \(target) s")
                #expect(frame.pointer.pointee.buf.0.map { DecoderFramePool.lends($0.pointee.data) } == true)
                held.append(frame)
            }
        }
        for (index, frame) in held.enumerated() {
            let target = 0.4 * Double(index) + 0.1
            #expect(readFrameCode(frame) == Int((target * 25).rounded(.down)), "\(encoder), held, at \(target) s")
        }
    }
}
