import CFFmpeg
import Foundation

/// Bytes held in memory that FFmpeg reads as if they were a file: a decrypted AES-128 segment. Not thread-safe: read by the one demuxer that opened it.
final class MemoryReader {
    private let bytes: [UInt8]
    private var position = 0
    /// The AVIOContext FFmpeg reads through; freed with the reader.
    private(set) var context: UnsafeMutablePointer<AVIOContext>!

    init(_ data: Data) throws(InputError) {
        bytes = [UInt8](data)
        let size = 4096
        guard let buffer = av_malloc(size)?.assumingMemoryBound(to: UInt8.self),
              let context = avio_alloc_context(buffer, Int32(size), 0, Unmanaged.passUnretained(self).toOpaque(),
                                               Self.readPacket, nil, Self.seekTo) else {
            throw .unreadable("out of memory")
        }
        self.context = context
    }

    deinit {
        av_freep(&context.pointee.buffer)
        avio_context_free(&context)
    }

    private func read(into target: UnsafeMutablePointer<UInt8>, count: Int) -> Int32 {
        guard position < bytes.count else { return framefarm_averror_eof() }
        let copied = min(count, bytes.count - position)
        bytes.withUnsafeBufferPointer { target.update(from: $0.baseAddress! + position, count: copied) }
        position += copied
        return Int32(copied)
    }

    private func seek(to offset: Int64, whence: Int32) -> Int64 {
        if whence & AVSEEK_SIZE != 0 { return Int64(bytes.count) }
        let base: Int
        switch whence & ~AVSEEK_FORCE {
        case SEEK_SET: base = 0
        case SEEK_CUR: base = position
        case SEEK_END: base = bytes.count
        default: return -1
        }
        guard base + Int(offset) >= 0 else { return -1 }
        position = base + Int(offset)
        return Int64(position)
    }

    private static let readPacket: @convention(c) (UnsafeMutableRawPointer?, UnsafeMutablePointer<UInt8>?, Int32) -> Int32 = {
        opaque, buffer, count in
        guard let opaque, let buffer else { return -EINVAL }
        return Unmanaged<MemoryReader>.fromOpaque(opaque).takeUnretainedValue().read(into: buffer, count: Int(count))
    }

    private static let seekTo: @convention(c) (UnsafeMutableRawPointer?, Int64, Int32) -> Int64 = { opaque, offset, whence in
        guard let opaque else { return -1 }
        return Unmanaged<MemoryReader>.fromOpaque(opaque).takeUnretainedValue().seek(to: offset, whence: whence)
    }
}
