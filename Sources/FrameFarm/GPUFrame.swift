import FrameFarmCore
import FrameFarmGPU
import FrameFarmMedia

/// A decoded frame as the GPU takes it. An interlaced frame goes as its first field alone, half the rows, which
/// the resampler scales back to the frame's shape: nothing combs, and a field holds all the detail a thumbnail
/// or a screen-sized render can show of it (a "bob" deinterlace, done by the scaler already at work).
///
/// Crops are given in the stream's coded frame. A frame of another size (after an HLS discontinuity, an
/// advertisement encoded at another resolution) is taken as that frame scaled, as players show it.
struct GPUFrame {
    let source: SourceFrame
    /// The GPU's columns and rows per column and row of the stream's coded frame: 1 and 1, or about 0.5 rows
    /// for a field.
    private let columnScale: Double, rowScale: Double

    init(_ frame: DecodedFrame, codedSize: PixelSize) {
        columnScale = codedSize.width > 0 ? Double(frame.format.width) / Double(codedSize.width) : 1
        let frameRows = codedSize.height > 0 ? Double(frame.format.height) / Double(codedSize.height) : 1
        // The write closures keep the frame, and so the lent planes, alive.
        if frame.isInterlaced, frame.format.height >= 2 {
            let field = frame.firstField
            source = SourceFrame(format: field.format, planes: field.planes, write: field.copy)
            rowScale = frameRows * Double(field.format.height) / Double(frame.format.height)
        } else {
            source = SourceFrame(format: frame.format, planes: frame.planes, write: frame.copyPlanes)
            rowScale = frameRows
        }
    }

    /// A crop of the stream's coded frame, in the columns and rows the GPU gets.
    func crop(_ rect: SourceRect) -> SourceRect {
        SourceRect(x: rect.x * columnScale, y: rect.y * rowScale, width: rect.width * columnScale,
                   height: rect.height * rowScale)
    }

    /// `job` with its crop in the columns and rows the GPU gets.
    func job(_ job: RenderJob) -> RenderJob {
        var mapped = job
        mapped.sourceCrop = crop(job.sourceCrop)
        return mapped
    }
}
