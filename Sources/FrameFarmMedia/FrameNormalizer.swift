import CFFmpeg
import FrameFarmCore

/// Gives every decoded frame a layout the GPU reads as-is; frames in other pixel formats (RGB, paletted, 12-bit,
/// 4:1:1 ...) are converted with libswscale. Owns its SwsContext; not thread-safe (one per decoder).
final class FrameNormalizer {
    private var scaler: OpaquePointer?
    /// The HDR peak the container declares, for frames that carry no metadata of their own.
    private let streamPeakLuminance: Double?

    init(streamPeakLuminance: Double? = nil) {
        self.streamPeakLuminance = streamPeakLuminance
    }

    deinit { sws_freeContext(scaler) }

    /// Wraps `frame` (taking ownership) as a DecodedFrame, converting it first when the GPU can't read it.
    func normalize(_ frame: UnsafeMutablePointer<AVFrame>, timeSeconds: Double) throws -> DecodedFrame {
        let pixelFormat = AVPixelFormat(rawValue: frame.pointee.format)
        let peak = FrameColor.peakLuminance(
            contentLight: av_frame_get_side_data(frame, AV_FRAME_DATA_CONTENT_LIGHT_LEVEL).map { UnsafeRawPointer($0.pointee.data) },
            mastering: av_frame_get_side_data(frame, AV_FRAME_DATA_MASTERING_DISPLAY_METADATA).map { UnsafeRawPointer($0.pointee.data) })
        let color = FrameColor.describe(space: frame.pointee.colorspace, range: frame.pointee.color_range,
                                        transfer: frame.pointee.color_trc, primaries: frame.pointee.color_primaries,
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
        case AV_PIX_FMT_GRAY8: return make(.gray, subsampling: (1, 1))
        case AV_PIX_FMT_GRAY10LE: return make(.gray, bytes: 2, depth: 10, subsampling: (1, 1))
        default: return nil
        }
    }

    /// Picks the closest uploadable format: keeps bit depth above 8 and chroma resolution where it can; RGB
    /// sources become full-range BT.709 4:4:4 so no chroma is lost.
    private static func conversionTarget(for pixelFormat: AVPixelFormat) -> (AVPixelFormat, isRGB: Bool) {
        guard let descriptor = av_pix_fmt_desc_get(pixelFormat) else { return (AV_PIX_FMT_YUV420P, false) }
        let isRGB = descriptor.pointee.flags & UInt64(AV_PIX_FMT_FLAG_RGB) != 0
            || descriptor.pointee.flags & UInt64(AV_PIX_FMT_FLAG_PAL) != 0
        let deep = descriptor.pointee.comp.0.depth > 8
        let fullChroma = isRGB || (descriptor.pointee.log2_chroma_w == 0 && descriptor.pointee.log2_chroma_h == 0)
        if descriptor.pointee.nb_components <= 2 && !isRGB { return (deep ? AV_PIX_FMT_GRAY10LE : AV_PIX_FMT_GRAY8, false) }
        switch (deep, fullChroma) {
        case (true, true): return (AV_PIX_FMT_YUV444P10LE, isRGB)
        case (true, false): return (AV_PIX_FMT_YUV420P10LE, isRGB)
        case (false, true): return (AV_PIX_FMT_YUV444P, isRGB)
        case (false, false): return (AV_PIX_FMT_YUV420P, isRGB)
        }
    }

    private func convert(_ frame: UnsafeMutablePointer<AVFrame>, from pixelFormat: AVPixelFormat,
                         color: ColorDescription, timeSeconds: Double) throws -> DecodedFrame {
        let (target, isRGB) = FrameNormalizer.conversionTarget(for: pixelFormat)
        let width = frame.pointee.width, height = frame.pointee.height
        scaler = sws_getCachedContext(scaler, width, height, pixelFormat, width, height, target,
                                      SWS_BICUBIC | SWS_ACCURATE_RND | SWS_FULL_CHR_H_INT, nil, nil, nil)
        guard let scaler else { throw MediaError(call: "sws_getCachedContext", message: "unsupported conversion") }
        var outputColor = color
        if isRGB {
            outputColor = ColorDescription(matrix: .bt709, range: .full, transfer: .srgb, chromaSiting: .center)
            let coefficients = sws_getCoefficients(SWS_CS_ITU709)
            let sourceCoefficients = sws_getCoefficients(SWS_CS_DEFAULT)
            sws_setColorspaceDetails(scaler, sourceCoefficients, 1, coefficients, 1, 0, 1 << 16, 1 << 16)
        }
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
        let format = FrameNormalizer.uploadFormat(target, width: Int(width), height: Int(height), color: outputColor)!
        return DecodedFrame(taking: converted, timeSeconds: timeSeconds, format: format)
    }
}
