import CFFmpeg
import FrameFarmCore

/// Turns FFmpeg's colour enums into a ColorDescription, resolving "unspecified" the way players do.
enum FrameColor {
    static func describe(space: AVColorSpace, range: AVColorRange, transfer: AVColorTransferCharacteristic,
                         primaries: AVColorPrimaries, location: AVChromaLocation, pixelFormat: AVPixelFormat,
                         height: Int, peakLuminance: Double? = nil) -> ColorDescription {
        let assumed = ColorDescription.assumed(forHeight: height)
        let isRGBFormat = av_pix_fmt_desc_get(pixelFormat).map {
            $0.pointee.flags & UInt64(AV_PIX_FMT_FLAG_RGB | AV_PIX_FMT_FLAG_PAL) != 0
        } ?? false
        let matrix: ColorMatrix = switch space {
        case _ where isRGBFormat, AVCOL_SPC_RGB: .rgb
        case AVCOL_SPC_BT709: .bt709
        case AVCOL_SPC_BT470BG, AVCOL_SPC_SMPTE170M, AVCOL_SPC_FCC: .bt601
        case AVCOL_SPC_SMPTE240M: .smpte240m
        case AVCOL_SPC_BT2020_NCL, AVCOL_SPC_BT2020_CL: .bt2020
        default: assumed.matrix
        }
        let isJPEGFormat = [AV_PIX_FMT_YUVJ420P, AV_PIX_FMT_YUVJ422P, AV_PIX_FMT_YUVJ444P].contains(pixelFormat)
        // RGB is full range unless it says otherwise, as swscale and players take it.
        let fullRange = range == AVCOL_RANGE_JPEG || (range == AVCOL_RANGE_UNSPECIFIED && (isJPEGFormat || matrix == .rgb))
        let transferFunction: TransferFunction = switch transfer {
        case AVCOL_TRC_SMPTE2084: .pq
        case AVCOL_TRC_ARIB_STD_B67: .hlg
        case AVCOL_TRC_IEC61966_2_1: .srgb
        case AVCOL_TRC_LINEAR: .linear
        case AVCOL_TRC_BT709, AVCOL_TRC_SMPTE170M, AVCOL_TRC_BT2020_10, AVCOL_TRC_BT2020_12: .bt709
        // Untagged video is BT.709's SDR curve as players take it; untagged RGB (PNG, Cinepak's output) is sRGB,
        // as browsers show it.
        case AVCOL_TRC_UNSPECIFIED, AVCOL_TRC_RESERVED, AVCOL_TRC_RESERVED0: matrix == .rgb ? .srgb : .bt709
        // A curve not modelled (gamma 2.2 or 2.8, log, SMPTE 240M): drawn with the sRGB curve as every SDR one.
        default: matrix == .rgb ? .srgb : .unknown
        }
        // JPEG (and MPEG-1) centre chroma; MPEG-2 and later put it on the left when the stream doesn't say.
        let siting: ChromaSiting = switch location {
        case AVCHROMA_LOC_CENTER: .center
        case AVCHROMA_LOC_TOPLEFT: .topLeft
        case AVCHROMA_LOC_LEFT: .left
        default: isJPEGFormat || matrix == .rgb ? .center : .left
        }
        // Unspecified primaries follow the matrix, as players assume: BT.2020 video is BT.2020 colour.
        let colorPrimaries: ColorPrimaries = switch primaries {
        case AVCOL_PRI_BT2020: .bt2020
        case AVCOL_PRI_SMPTE432: .displayP3
        case AVCOL_PRI_UNSPECIFIED: matrix == .bt2020 ? .bt2020 : .bt709
        default: .bt709
        }
        return ColorDescription(matrix: matrix, range: fullRange ? .full : .limited, transfer: transferFunction,
                                chromaSiting: siting, primaries: colorPrimaries,
                                peakLuminance: transferFunction.isHDR ? peakLuminance : nil)
    }

    /// The content's peak from HDR metadata (side data of a frame or a stream): MaxCLL when given, else the
    /// mastering display's peak luminance, as libplacebo and players choose.
    /// Takes the side data's bytes: an AVContentLightMetadata and an AVMasteringDisplayMetadata, either absent.
    static func peakLuminance(contentLight: UnsafeRawPointer?, mastering: UnsafeRawPointer?) -> Double? {
        if let light = contentLight?.assumingMemoryBound(to: AVContentLightMetadata.self).pointee, light.MaxCLL > 0 {
            return Double(light.MaxCLL)
        }
        if let display = mastering?.assumingMemoryBound(to: AVMasteringDisplayMetadata.self).pointee,
           display.has_luminance != 0, display.max_luminance.den > 0, display.max_luminance.num > 0 {
            return av_q2d(display.max_luminance)
        }
        return nil
    }
}
