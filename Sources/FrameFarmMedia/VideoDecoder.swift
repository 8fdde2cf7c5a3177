import CFFmpeg

/// Owns an AVCodecContext opened for a file's video stream. Not thread-safe.
final class VideoDecoder {
    private let context: UnsafeMutablePointer<AVCodecContext>
    /// What this decoder discards before decoding, whatever `fastForwarding` asks: non-key frames, frames no
    /// other frame refers to, or nothing.
    private let standingDiscard: AVDiscard

    /// - Parameters:
    ///   - threads: decoder threads; 0 lets FFmpeg choose (all cores), 1 when the caller parallelises itself.
    ///   - keyframesOnly: discard every non-key frame before decoding it (the fast `--seek keyframe` path).
    ///   - referenceFramesOnly: discard every frame no other frame refers to (AVDISCARD_NONREF) before decoding
    ///     it: about half the frames of a stream with B-frames, 40% of its decoding time. For frames that need
    ///     only lie near their times; a decoder that cannot tell which frames those are decodes them all.
    ///   - skipsDeblocking: the frames are for outputs shrunk far enough to hide skipped deblocking (4x and
    ///     more): skip the in-loop deblocking filter on every frame (a fifth to a third of H.264 decoding). A
    ///     keyframe shown moves by about 57 dB PSNR at 160 px; a frame deep in a GOP, predicted from unfiltered
    ///     references, drifts further (44 dB at full size, 46 dB shrunk 4x in the tests): both below the JPEG's
    ///     own error. At full size (posters, previews) the drift can be plainly visible, so they decode exactly.
    init(file: MediaFile, threads: Int, keyframesOnly: Bool, referenceFramesOnly: Bool, skipsDeblocking: Bool,
         maxPixels: Int) throws {
        let parameters = file.stream.pointee.codecpar!
        guard let codec = avcodec_find_decoder(parameters.pointee.codec_id) else {
            let name = avcodec_get_name(parameters.pointee.codec_id).map { String(cString: $0) } ?? "unknown"
            throw InputError.notAVideo("no decoder for codec \(name)")
        }
        guard let context = avcodec_alloc_context3(codec) else {
            throw MediaError.outOfMemory("avcodec_alloc_context3")
        }
        self.context = context
        standingDiscard = keyframesOnly ? AVDISCARD_NONKEY : referenceFramesOnly ? AVDISCARD_NONREF : AVDISCARD_DEFAULT
        try check("avcodec_parameters_to_context", avcodec_parameters_to_context(context, parameters))
        context.pointee.pkt_timebase = file.timeBase
        context.pointee.thread_count = Int32(threads)
        // Refuses frames whose bitstream claims more pixels than the container said (a crafted header).
        context.pointee.max_pixels = Int64(maxPixels)
        context.pointee.skip_frame = standingDiscard
        if skipsDeblocking { context.pointee.skip_loop_filter = AVDISCARD_ALL }
        // A left crop in the bitstream (H.264's and HEVC's cropping window) is applied only where the planes stay
        // 32-byte aligned: 32 columns of 4:2:0 leave the chroma 16 bytes in, so FFmpeg kept 640 columns of a
        // 608-wide picture. Frames are read row by row, so unaligned planes cost nothing.
        context.pointee.flags |= AV_CODEC_FLAG_UNALIGNED
        DecoderFramePool.install(on: context, codec: codec)
        try check("avcodec_open2", avcodec_open2(context, codec, nil))
    }

    deinit {
        var toFree: UnsafeMutablePointer<AVCodecContext>? = context
        avcodec_free_context(&toFree)
    }

    /// Sends a packet (nil starts draining). `.needsInput` here means "receive frames first, then resend".
    func send(_ packet: Packet?) throws -> CodecStep {
        try CodecStep.of("avcodec_send_packet", avcodec_send_packet(context, packet?.pointer))
    }

    /// Receives the next frame into a new AVFrame the caller owns; nil with the step when none is ready.
    func receive() throws -> (UnsafeMutablePointer<AVFrame>?, CodecStep) {
        guard let frame = av_frame_alloc() else { throw MediaError.outOfMemory("av_frame_alloc") }
        let step: CodecStep
        do {
            step = try CodecStep.of("avcodec_receive_frame", avcodec_receive_frame(context, frame))
        } catch {
            var toFree: UnsafeMutablePointer<AVFrame>? = frame
            av_frame_free(&toFree)
            throw error
        }
        if step == .ready { return (frame, .ready) }
        var toFree: UnsafeMutablePointer<AVFrame>? = frame
        av_frame_free(&toFree)
        return (nil, step)
    }

    /// While set, frames are decoded only as far as later frames need them, on the way to a seek target: frames
    /// no other frame refers to are discarded (AVDISCARD_NONREF), which changes nothing shown. A decoder that
    /// discards as much or more anyway (`standingDiscard`) keeps doing so.
    var fastForwarding = false {
        didSet {
            guard fastForwarding != oldValue else { return }
            context.pointee.skip_frame = fastForwarding && standingDiscard.rawValue < AVDISCARD_NONREF.rawValue
                ? AVDISCARD_NONREF : standingDiscard
        }
    }

    /// Whether the in-loop deblocking filter is skipped (`skipsDeblocking`), from the next packet sent on (frame
    /// threads take the setting with each packet, as they take `skip_frame`).
    var skipsLoopFilter: Bool {
        get { context.pointee.skip_loop_filter == AVDISCARD_ALL }
        set { context.pointee.skip_loop_filter = newValue ? AVDISCARD_ALL : AVDISCARD_DEFAULT }
    }

    /// Drops buffered frames after a seek.
    func flush() { avcodec_flush_buffers(context) }
}
