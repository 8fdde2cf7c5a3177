import CFFmpeg
import FrameFarmCore

/// Picture buffers shared by every decoder of the process (`get_buffer2`). FFmpeg's own pool lives and dies with
/// one decoder and zero-fills each new buffer, so every reader (each thumbnail worker, the padding search, every
/// video of a batch) page-faulted its frames in afresh: a quarter of the CPU of a 4K HEVC track, whose keyframes
/// after a seek each bring four made-up reference frames. Here a freed frame's buffer goes back to a process-wide
/// list and serves the next frame of its size, whichever decoder asks. A buffer that moves to another decoder is
/// zeroed first, as FFmpeg zeroes a new one, so one video's pixels never show through another's concealment of
/// damage; within one decoder it is reused as it is, as FFmpeg's pool reuses it. At most `idleBytesKept` wait
/// unused, the oldest going first.
///
/// The layout is FFmpeg's (`update_frame_pool` in libavcodec/get_buffer.c): dimensions and line sizes aligned as
/// the codec asks (`avcodec_align_dimensions2`), each plane padded, in one buffer per frame. Decoders without
/// direct rendering, hardware frames and palette formats keep FFmpeg's default.
enum DecoderFramePool {
    static let idleBytesKept = 256 << 20

    /// Installs the pool on a decoder about to be opened, naming it in `opaque` (which its frame threads copy).
    static func install(on context: UnsafeMutablePointer<AVCodecContext>, codec: UnsafePointer<AVCodec>) {
        guard codec.pointee.capabilities & AV_CODEC_CAP_DR1 != 0 else { return }
        context.pointee.opaque = UnsafeMutableRawPointer(bitPattern: nextOwner.withLock { owner in
            owner += 1
            return owner
        })
        context.pointee.get_buffer2 = getBuffer
        framefarm_mark_callbacks_thread_safe(context)
    }

    /// Counts (and names) the decoders the pool has served; never 0, so it can stand in a pointer.
    private static let nextOwner = Locked(0)
    private static let state = Locked(State())

    /// Bytes of the buffers waiting.
    static var idleBytes: Int { state.withLock { $0.idleBytes } }

    /// Whether `data` is the start of a buffer the pool has lent out and not yet got back.
    static func lends(_ data: UnsafeRawPointer) -> Bool { state.withLock { $0.lent.contains(Int(bitPattern: data)) } }

    private struct State {
        /// Buffers waiting, oldest first, and their bytes.
        var idle: [PooledBuffer] = []
        var idleBytes = 0
        /// Addresses of the buffers lent out.
        var lent: Set<Int> = []
    }

    private static let getBuffer: @convention(c) (UnsafeMutablePointer<AVCodecContext>?, UnsafeMutablePointer<AVFrame>?,
                                                  Int32) -> Int32 = { context, frame, flags in
        guard let context, let frame else { return -1 }
        return DecoderFramePool.fill(frame, for: context) ?? avcodec_default_get_buffer2(context, frame, flags)
    }

    /// Fills `frame`'s planes from the pool; nil where FFmpeg's default should serve.
    private static func fill(_ frame: UnsafeMutablePointer<AVFrame>, for context: UnsafeMutablePointer<AVCodecContext>) -> Int32? {
        let format = AVPixelFormat(frame.pointee.format)
        guard context.pointee.hw_frames_ctx == nil, let descriptor = av_pix_fmt_desc_get(format),
              descriptor.pointee.flags & UInt64(AV_PIX_FMT_FLAG_PAL | AV_PIX_FMT_FLAG_HWACCEL | AV_PIX_FMT_FLAG_BITSTREAM) == 0,
              let layout = Layout(format: format, width: frame.pointee.width, height: frame.pointee.height, context: context)
        else { return nil }
        let owner = Int(bitPattern: context.pointee.opaque)
        guard let buffer = take(bytes: layout.bytes, owner: owner) else { return nil }
        let box = Unmanaged.passRetained(buffer).toOpaque()
        guard let reference = av_buffer_create(buffer.data, layout.bytes, giveBack, box, 0) else {
            Unmanaged<PooledBuffer>.fromOpaque(box).release()
            giveBack(buffer)
            return -12  // AVERROR(ENOMEM)
        }
        frame.pointee.buf.0 = reference
        withUnsafeMutableBytes(of: &frame.pointee.data) { data in
            let planes = data.bindMemory(to: UnsafeMutablePointer<UInt8>?.self)
            for plane in planes.indices {
                planes[plane] = plane < 4 && layout.sizes[plane] > 0 ? buffer.data + layout.offsets[plane] : nil
            }
        }
        withUnsafeMutableBytes(of: &frame.pointee.linesize) { linesizes in
            let values = linesizes.bindMemory(to: Int32.self)
            for plane in values.indices { values[plane] = plane < 4 ? layout.linesizes[plane] : 0 }
        }
        let dataField = MemoryLayout<AVFrame>.offset(of: \AVFrame.data)!
        frame.pointee.extended_data = UnsafeMutableRawPointer(frame).advanced(by: dataField)
            .assumingMemoryBound(to: UnsafeMutablePointer<UInt8>?.self)
        return 0
    }

    /// Where a frame's planes lie in its buffer.
    private struct Layout {
        var linesizes: [Int32]
        var offsets: [Int]
        var sizes: [Int]
        var bytes: Int

        init?(format: AVPixelFormat, width: Int32, height: Int32, context: UnsafeMutablePointer<AVCodecContext>) {
            var width = width, height = height
            var strideAlign = [Int32](repeating: 0, count: Int(AV_NUM_DATA_POINTERS))
            avcodec_align_dimensions2(context, &width, &height, &strideAlign)
            var linesizes = [Int32](repeating: 0, count: 4)
            // As FFmpeg does: widen until every plane's line size is a multiple of its alignment.
            while true {
                guard width > 0, av_image_fill_linesizes(&linesizes, format, width) >= 0 else { return nil }
                if (0..<4).allSatisfy({ strideAlign[$0] <= 0 || linesizes[$0] % strideAlign[$0] == 0 }) { break }
                width += width & ~(width - 1)
            }
            var sizes = [Int](repeating: 0, count: 4)
            let lines = linesizes.map { Int($0) }
            guard av_image_fill_plane_sizes(&sizes, format, height, lines) >= 0 else { return nil }
            // FFmpeg pads each plane by 16 + its largest alignment - 1 bytes (decoders' SIMD reads past the end).
            let alignment = max(64, Int(av_cpu_max_align()))
            var offsets = [Int](repeating: 0, count: 4), next = 0
            for plane in 0..<4 where sizes[plane] > 0 {
                offsets[plane] = next
                next = (next + sizes[plane] + 16 + alignment - 1 + alignment - 1) / alignment * alignment
            }
            guard next > 0 else { return nil }
            self.linesizes = linesizes
            self.offsets = offsets
            self.sizes = sizes
            bytes = next
        }
    }

    /// A buffer of `bytes` for `owner`: an idle one of that size (zeroed if another decoder had it), else a new
    /// zeroed one; nil when memory runs out.
    static func take(bytes: Int, owner: Int) -> PooledBuffer? {
        let reused = state.withLock { state -> PooledBuffer? in
            guard let index = state.idle.lastIndex(where: { $0.bytes == bytes }) else { return nil }
            state.idleBytes -= bytes
            let buffer = state.idle.remove(at: index)
            state.lent.insert(Int(bitPattern: buffer.data))
            return buffer
        }
        if let reused {
            if reused.owner != owner { reused.data.initialize(repeating: 0, count: bytes) }
            reused.owner = owner
            return reused
        }
        guard let new = PooledBuffer(bytes: bytes, owner: owner) else { return nil }
        state.withLock { _ = $0.lent.insert(Int(bitPattern: new.data)) }
        return new
    }

    private static let giveBack: @convention(c) (UnsafeMutableRawPointer?, UnsafeMutablePointer<UInt8>?) -> Void = { box, _ in
        guard let box else { return }
        DecoderFramePool.giveBack(Unmanaged<PooledBuffer>.fromOpaque(box).takeRetainedValue())
    }

    static func giveBack(_ buffer: PooledBuffer) {
        // Buffers let go of are freed (their deinit) when `dropped` ends, outside the lock.
        let dropped = state.withLock { state -> [PooledBuffer] in
            state.lent.remove(Int(bitPattern: buffer.data))
            state.idle.append(buffer)
            state.idleBytes += buffer.bytes
            var dropped: [PooledBuffer] = []
            while state.idleBytes > idleBytesKept, !state.idle.isEmpty {
                let oldest = state.idle.removeFirst()
                state.idleBytes -= oldest.bytes
                dropped.append(oldest)
            }
            return dropped
        }
        _ = dropped
    }
}

/// One frame's memory, from av_malloc; freed when the pool lets go of it.
final class PooledBuffer: @unchecked Sendable {  // unchecked: `owner` changes only while no frame holds it
    let data: UnsafeMutablePointer<UInt8>
    let bytes: Int
    var owner: Int

    init?(bytes: Int, owner: Int) {
        guard let memory = av_mallocz(bytes) else { return nil }
        data = memory.assumingMemoryBound(to: UInt8.self)
        self.bytes = bytes
        self.owner = owner
    }

    deinit { av_free(data) }
}
