import FrameFarmCore
import FrameFarmGPU
import FrameFarmMedia

/// A decoded frame as the GPU takes it. An interlaced frame goes as its first field alone, half the rows, which
/// the resampler scales back to the frame's shape: nothing combs, and a field holds all the detail a thumbnail
/// or a screen-sized render can show of it (a "bob" deinterlace, done by the scaler already at work).
struct GPUFrame {
    let source: SourceFrame
    /// Field rows per frame row: 1, or about 0.5 for a field.
    private let rowScale: Double

    init(_ frame: DecodedFrame) {
        // The write closures keep the frame, and so the lent planes, alive.
        if frame.isInterlaced, frame.format.height >= 2 {
            let field = frame.firstField
            source = SourceFrame(format: field.format, planes: field.planes, write: field.copy)
            rowScale = Double(field.format.height) / Double(frame.format.height)
        } else {
            source = SourceFrame(format: frame.format, planes: frame.planes, write: frame.copyPlanes)
            rowScale = 1
        }
    }

    /// A crop of the coded frame, in the rows the GPU gets.
    func crop(_ rect: SourceRect) -> SourceRect {
        SourceRect(x: rect.x, y: rect.y * rowScale, width: rect.width, height: rect.height * rowScale)
    }

    /// `job` with its crop in the rows the GPU gets.
    func job(_ job: RenderJob) -> RenderJob {
        var mapped = job
        mapped.sourceCrop = crop(job.sourceCrop)
        return mapped
    }
}
