import CFFmpeg
import FrameFarmCore

/// Gives every decoded frame a layout the GPU reads as-is; frames in other pixel formats (packed or paletted RGB,
/// 12-bit, 4:1:1 ...) are converted with libswscale. RGB stays RGB: it is repacked into planes, never through
/// Y'CbCr. Owns its SwsContext; not thread-safe (one per decoder).
final class FrameNormalizer {
    private var scaler: OpaquePointer?
    /// The HDR peak the container declares, for frames that carry no metadata of their own.
    private let streamPeakLuminance: Double?
    /// The stream's colour tags (the container's among them), for tags a frame leaves unspecified.
    private let streamTags: ColorTags?

    init(streamPeakLuminance: Double? = nil, streamTags: ColorTags? = nil) {
        self.streamPeakLuminance = streamPeakLuminance
        self.streamTags = streamTags
    }

    deinit { sws_freeContext(scaler) }

    /// Wraps `frame` (taking ownership) as a DecodedFrame, converting it first when the GPU can't read it.
    func normalize(_ frame: UnsafeMutablePointer<AVFrame>, timeSeconds: Double) throws -> DecodedFrame {
        let pixelFormat = AVPixelFormat(rawValue: frame.pointee.format)
        let peak = FrameColor.peakLuminance(
            contentLight: av_frame_get_side_data(frame, AV_FRAME_DATA_CONTENT_LIGHT_LEVEL).map { UnsafeRawPointer($0.pointee.data) },
            mastering: av_frame_get_side_data(frame, AV_FRAME_DATA_MASTERING_DISPLAY_METADATA).map { UnsafeRawPointer($0.pointee.data) })
        let frameTags = ColorTags(frame.pointee), tags = streamTags.map(frameTags.filled) ?? frameTags
        let color = FrameColor.describe(space: tags.space, range: tags.range,
                                        transfer: tags.transfer, primaries: tags.primaries,
                                        location: frame.pointee.chroma_location, pixelFormat: pixelFormat,
                                        height: Int(frame.pointee.height),
                                        peakLuminance: peak ?? streamPeakLuminance)
        if let format = FrameNormalizer.uploadFormat(pixelFormat, width: Int(frame.pointee.width),
                                                     height: Int(frame.pointee.height), color: color) {
            return DecodedFrame(taking: frame, timeSeconds: timeSeconds, format: format)
        }
        defer {
            var toFree: UnsafeMutablePointer<AVFrame>? = frame
            av_frame_free(&toFree)
        }
        return try convert(frame, from: pixelFormat, color: color, timeSeconds: timeSeconds)
    }

    /// The GPU-side description of a pixel format uploaded unchanged; nil when it needs converting.
    static func uploadFormat(_ pixelFormat: AVPixelFormat, width: Int, height: Int,
                             color: ColorDescription) -> FrameFormat? {
        func make(_ layout: PlaneLayout, bytes: Int = 1, depth: Int = 8, shift: Int = 0,
                  subsampling: (Int, Int) = (2, 2)) -> FrameFormat {
            FrameFormat(layout: layout, width: width, height: height, bytesPerSample: bytes, bitDepth: depth,
                        bitShift: shift, chromaSubsamplingX: subsampling.0, chromaSubsamplingY: subsampling.1,
                        color: color)
        }
        switch pixelFormat {
        case AV_PIX_FMT_YUV420P, AV_PIX_FMT_YUVJ420P: return make(.planar)
        case AV_PIX_FMT_YUV422P, AV_PIX_FMT_YUVJ422P: return make(.planar, subsampling: (2, 1))
        case AV_PIX_FMT_YUV444P, AV_PIX_FMT_YUVJ444P: return make(.planar, subsampling: (1, 1))
        case AV_PIX_FMT_NV12: return make(.semiPlanar)
        case AV_PIX_FMT_YUV420P10LE: return make(.planar, bytes: 2, depth: 10)
        case AV_PIX_FMT_YUV422P10LE: return make(.planar, bytes: 2, depth: 10, subsampling: (2, 1))
        case AV_PIX_FMT_YUV444P10LE: return make(.planar, bytes: 2, depth: 10, subsampling: (1, 1))
        case AV_PIX_FMT_P010LE: return make(.semiPlanar, bytes: 2, depth: 10, shift: 6)
        case AV_PIX_FMT_GBRP where color.matrix == .rgb: return make(.planar, subsampling: (1, 1))
        case AV_PIX_FMT_GBRP10LE where color.matrix == .rgb: return make(.planar, bytes: 2, depth: 10, subsampling: (1, 1))
        case AV_PIX_FMT_GRAY8: return make(.gray, subsampling: (1, 1))
        case AV_PIX_FMT_GRAY10LE: return make(.gray, bytes: 2, depth: 10, subsampling: (1, 1))
        default: return nil
        }
    }

    /// Picks the closest uploadable format: keeps bit depth above 8 and chroma resolution where it can. RGB
    /// (`color.matrix == .rgb`: packed, paletted, with alpha, 12- or 16-bit) becomes planar G, B, R, 8 or 10 bits.
    private static func conversionTarget(for pixelFormat: AVPixelFormat, color: ColorDescription) -> AVPixelFormat {
        guard let descriptor = av_pix_fmt_desc_get(pixelFormat) else { return AV_PIX_FMT_YUV420P }
        let deep = descriptor.pointee.comp.0.depth > 8
        if color.matrix == .rgb { return deep ? AV_PIX_FMT_GBRP10LE : AV_PIX_FMT_GBRP }
        let fullChroma = descriptor.pointee.log2_chroma_w == 0 && descriptor.pointee.log2_chroma_h == 0
        if descriptor.pointee.nb_components <= 2 { return deep ? AV_PIX_FMT_GRAY10LE : AV_PIX_FMT_GRAY8 }
        switch (deep, fullChroma) {
        case (true, true): return AV_PIX_FMT_YUV444P10LE
        case (true, false): return AV_PIX_FMT_YUV420P10LE
        case (false, true): return AV_PIX_FMT_YUV444P
        case (false, false): return AV_PIX_FMT_YUV420P
        }
    }

    private func convert(_ frame: UnsafeMutablePointer<AVFrame>, from pixelFormat: AVPixelFormat,
                         color: ColorDescription, timeSeconds: Double) throws -> DecodedFrame {
        let target = FrameNormalizer.conversionTarget(for: pixelFormat, color: color)
        let width = frame.pointee.width, height = frame.pointee.height
        scaler = sws_getCachedContext(scaler, width, height, pixelFormat, width, height, target,
                                      SWS_BICUBIC | SWS_ACCURATE_RND | SWS_FULL_CHR_H_INT, nil, nil, nil)
        guard let scaler else { throw MediaError(call: "sws_getCachedContext", message: "unsupported conversion") }
        guard let converted = av_frame_alloc() else { throw MediaError.outOfMemory("av_frame_alloc") }
        converted.pointee.format = target.rawValue
        converted.pointee.width = width
        converted.pointee.height = height
        let allocated = av_frame_get_buffer(converted, 0)
        if allocated < 0 {
            var toFree: UnsafeMutablePointer<AVFrame>? = converted
            av_frame_free(&toFree)
            throw MediaError.ffmpeg("av_frame_get_buffer", allocated)
        }
        av_frame_copy_props(converted, frame)
        withUnsafePointer(to: frame.pointee.data) { sourceData in
            withUnsafePointer(to: frame.pointee.linesize) { sourceStrides in
                withUnsafeMutablePointer(to: &converted.pointee.data) { targetData in
                    withUnsafeMutablePointer(to: &converted.pointee.linesize) { targetStrides in
                        _ = sws_scale(scaler,
                                      UnsafeRawPointer(sourceData).assumingMemoryBound(to: UnsafePointer<UInt8>?.self),
                                      UnsafeRawPointer(sourceStrides).assumingMemoryBound(to: Int32.self), 0, height,
                                      UnsafeMutableRawPointer(targetData).assumingMemoryBound(to: UnsafeMutablePointer<UInt8>?.self),
                                      UnsafeMutableRawPointer(targetStrides).assumingMemoryBound(to: Int32.self))
                    }
                }
            }
        }
        let format = FrameNormalizer.uploadFormat(target, width: Int(width), height: Int(height), color: color)!
        return DecodedFrame(taking: converted, timeSeconds: timeSeconds, format: format)
    }
}
