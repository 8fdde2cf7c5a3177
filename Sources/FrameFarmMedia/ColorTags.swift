import CFFmpeg

/// A picture's colour tags as FFmpeg gives them: matrix, primaries, transfer and range, each possibly unspecified.
/// A container's tags (Matroska's Colour element, an MP4 `colr` box) stand where the stream's own say nothing, as
/// players take them: the decoder's analysis overwrites a stream's parameters with the bitstream's tags, and its
/// frames carry only those.
struct ColorTags: Sendable {
    var space: AVColorSpace
    var primaries: AVColorPrimaries
    var transfer: AVColorTransferCharacteristic
    var range: AVColorRange

    init(_ parameters: AVCodecParameters) {
        (space, primaries, transfer, range) = (parameters.color_space, parameters.color_primaries, parameters.color_trc,
                                               parameters.color_range)
    }

    init(_ frame: AVFrame) {
        (space, primaries, transfer, range) = (frame.colorspace, frame.color_primaries, frame.color_trc, frame.color_range)
    }

    /// These tags, each unspecified one taken from `fallback`.
    func filled(from fallback: ColorTags) -> ColorTags {
        var tags = self
        if space == AVCOL_SPC_UNSPECIFIED { tags.space = fallback.space }
        if primaries == AVCOL_PRI_UNSPECIFIED { tags.primaries = fallback.primaries }
        if transfer == AVCOL_TRC_UNSPECIFIED { tags.transfer = fallback.transfer }
        if range == AVCOL_RANGE_UNSPECIFIED { tags.range = fallback.range }
        return tags
    }

    func write(to parameters: UnsafeMutablePointer<AVCodecParameters>) {
        parameters.pointee.color_space = space
        parameters.pointee.color_primaries = primaries
        parameters.pointee.color_trc = transfer
        parameters.pointee.color_range = range
    }
}
