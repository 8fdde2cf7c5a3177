import CFFmpeg
import Foundation
import FrameFarmCore

/// WebP through libavcodec: encoding needs FFmpeg built with libwebp (Debian's is), decoding uses FFmpeg's own
/// WebP decoder. Lossy WebP, like the JPEG it stands in for; each call opens its own codec context, so the
/// functions are thread-safe.
enum WebPCodec {
    /// Whether this FFmpeg can write WebP (`--format webp-if-available` falls back to JPEG when not).
    static var canEncode: Bool { avcodec_find_encoder_by_name("libwebp") != nil }

    static func encode(_ pixels: UnsafeRawBufferPointer, width: Int, height: Int, bytesPerRow: Int,
                       quality: Int) throws -> Data {
        guard let codec = avcodec_find_encoder_by_name("libwebp") else {
            throw MediaError(call: "avcodec_find_encoder_by_name",
                             message: "this FFmpeg has no libwebp encoder: use --format jpeg or webp-if-available")
        }
        var context = avcodec_alloc_context3(codec)
        defer { avcodec_free_context(&context) }
        guard let context else { throw MediaError.outOfMemory("avcodec_alloc_context3") }
        context.pointee.width = Int32(width)
        context.pointee.height = Int32(height)
        context.pointee.pix_fmt = AV_PIX_FMT_BGRA
        context.pointee.time_base = AVRational(num: 1, den: 1)
        _ = av_opt_set_double(context.pointee.priv_data, "quality", Double(min(100, max(0, quality))), 0)
        try check("avcodec_open2", avcodec_open2(context, codec, nil))

        var frame = av_frame_alloc()
        defer { av_frame_free(&frame) }
        guard let frame else { throw MediaError.outOfMemory("av_frame_alloc") }
        frame.pointee.format = AV_PIX_FMT_BGRA.rawValue
        frame.pointee.width = Int32(width)
        frame.pointee.height = Int32(height)
        try check("av_frame_get_buffer", av_frame_get_buffer(frame, 0))
        // libwebp imports BGRA: swap R and B, and make every pixel opaque (outputs have no alpha).
        let stride = Int(frame.pointee.linesize.0)
        let target = frame.pointee.data.0!
        for y in 0..<height {
            let source = pixels.baseAddress! + y * bytesPerRow
            let row = target + y * stride
            for x in 0..<width {
                row[x * 4] = source.load(fromByteOffset: x * 4 + 2, as: UInt8.self)
                row[x * 4 + 1] = source.load(fromByteOffset: x * 4 + 1, as: UInt8.self)
                row[x * 4 + 2] = source.load(fromByteOffset: x * 4, as: UInt8.self)
                row[x * 4 + 3] = 255
            }
        }
        try check("avcodec_send_frame", avcodec_send_frame(context, frame))
        try check("avcodec_send_frame", avcodec_send_frame(context, nil))
        var packet = av_packet_alloc()
        defer { av_packet_free(&packet) }
        guard let packet else { throw MediaError.outOfMemory("av_packet_alloc") }
        try check("avcodec_receive_packet", avcodec_receive_packet(context, packet))
        // The packet is a whole RIFF/WebP file (libwebp's memory writer).
        return Data(bytes: packet.pointee.data, count: Int(packet.pointee.size))
    }

    static func isWebP(_ data: Data) -> Bool {
        data.count >= 12 && data.prefix(4).elementsEqual("RIFF".utf8) && data.dropFirst(8).prefix(4).elementsEqual("WEBP".utf8)
    }

    static func decode(_ data: Data) throws -> RGBAImage {
        guard let codec = avcodec_find_decoder(AV_CODEC_ID_WEBP) else {
            throw MediaError(call: "avcodec_find_decoder", message: "this FFmpeg has no WebP decoder")
        }
        var context = avcodec_alloc_context3(codec)
        defer { avcodec_free_context(&context) }
        guard let context else { throw MediaError.outOfMemory("avcodec_alloc_context3") }
        try check("avcodec_open2", avcodec_open2(context, codec, nil))
        var packet = av_packet_alloc()
        defer { av_packet_free(&packet) }
        var frame = av_frame_alloc()
        defer { av_frame_free(&frame) }
        guard let packet, let frame else { throw MediaError.outOfMemory("av_packet_alloc") }
        try check("av_new_packet", av_new_packet(packet, Int32(data.count)))
        data.withUnsafeBytes { packet.pointee.data.update(from: $0.baseAddress!.assumingMemoryBound(to: UInt8.self),
                                                          count: data.count) }
        try check("avcodec_send_packet", avcodec_send_packet(context, packet))
        try check("avcodec_receive_frame", avcodec_receive_frame(context, frame))

        let width = Int(frame.pointee.width), height = Int(frame.pointee.height)
        guard let scaler = sws_getContext(Int32(width), Int32(height), AVPixelFormat(frame.pointee.format),
                                          Int32(width), Int32(height), AV_PIX_FMT_RGBA, SWS_POINT | SWS_ACCURATE_RND,
                                          nil, nil, nil) else {
            throw MediaError(call: "sws_getContext", message: "cannot convert the decoded WebP to RGBA")
        }
        defer { sws_freeContext(scaler) }
        var pixels = [UInt8](repeating: 0, count: width * height * 4)
        pixels.withUnsafeMutableBufferPointer { buffer in
            var destination: [UnsafeMutablePointer<UInt8>?] = [buffer.baseAddress, nil, nil, nil]
            var strides: [Int32] = [Int32(width * 4), 0, 0, 0]
            withUnsafePointer(to: frame.pointee.data) { planes in
                withUnsafePointer(to: frame.pointee.linesize) { lines in
                    _ = sws_scale(scaler, UnsafeRawPointer(planes).assumingMemoryBound(to: UnsafePointer<UInt8>?.self),
                                  UnsafeRawPointer(lines).assumingMemoryBound(to: Int32.self), 0, Int32(height),
                                  &destination, &strides)
                }
            }
        }
        return RGBAImage(width: width, height: height, pixels: pixels)
    }

    private static func check(_ call: String, _ result: Int32) throws {
        guard result >= 0 else { throw MediaError.ffmpeg(call, result) }
    }
}
