import CFFmpeg
import CWebP
import Foundation
import FrameFarmCore

/// Lossy WebP, like the JPEG it stands in for: encoded by libwebp straight from the RGBA rows (alpha ignored, as
/// outputs are opaque), decoded by FFmpeg's own WebP decoder, independent of libwebp. Thread-safe: each call owns
/// its libwebp picture and writer, or its codec context.
enum WebPCodec {
    static func encode(_ pixels: UnsafeRawBufferPointer, width: Int, height: Int, bytesPerRow: Int,
                       quality: Int) throws -> Data {
        var config = WebPConfig()
        guard WebPConfigInit(&config) != 0 else {
            throw MediaError(call: "WebPConfigInit", message: "libwebp's ABI differs from its headers'")
        }
        config.quality = Float(min(100, max(0, quality)))
        var picture = WebPPicture()
        guard WebPPictureInit(&picture) != 0 else {
            throw MediaError(call: "WebPPictureInit", message: "libwebp's ABI differs from its headers'")
        }
        defer { WebPPictureFree(&picture) }
        picture.width = Int32(width)
        picture.height = Int32(height)
        // RGBX: the fourth byte of each pixel is skipped, so no alpha plane is written.
        guard WebPPictureImportRGBX(&picture, pixels.baseAddress!.assumingMemoryBound(to: UInt8.self),
                                    Int32(bytesPerRow)) != 0 else {
            throw MediaError(call: "WebPPictureImportRGBX", message: "out of memory")
        }
        var output = WebPMemoryWriter()
        WebPMemoryWriterInit(&output)
        defer { WebPMemoryWriterClear(&output) }
        picture.writer = WebPMemoryWrite
        let encoded = withUnsafeMutablePointer(to: &output) { writer in
            picture.custom_ptr = UnsafeMutableRawPointer(writer)
            return WebPEncode(&config, &picture)
        }
        guard encoded != 0 else {
            throw MediaError(call: "WebPEncode", message: "libwebp error \(picture.error_code.rawValue)")
        }
        return Data(bytes: output.mem, count: output.size)
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
