import FrameFarmCore
import FrameFarmGPU
import FrameFarmMedia

/// A decoded frame as the GPU takes it. An interlaced frame goes as its first field alone, half the rows, which
/// the resampler scales back to the frame's shape: nothing combs, and a field holds all the detail a thumbnail
/// or a screen-sized render can show of it (a "bob" deinterlace, done by the scaler already at work).
///
/// Jobs are given in the stream's coded picture. A frame of another size or pixel shape (after an HLS
/// discontinuity, an advertisement encoded otherwise: `DecodedFrame.ownGeometry(in:)`) is shown as players show
/// it: scaled to the picture, or, where its display shape differs (a 4:3 advertisement in a 16:9 programme),
/// fitted inside it, centred, with black bars.
struct GPUFrame {
    let source: SourceFrame
    private let geometry: DisplayGeometry
    /// Where the frame lies in the stream's coded picture: all of it, or the rect it is fitted into.
    private let picture: SourceRect
    /// The GPU's columns and rows per column and row of the coded picture within `picture`: 1 and 1 for a frame
    /// of the stream's own size, about 0.5 rows for a field.
    private let columnScale: Double, rowScale: Double

    /// Frames whose display aspect ratio is within this fraction of the stream's are scaled to its picture.
    static let sameShapeTolerance = 0.02

    init(_ frame: DecodedFrame, geometry: DisplayGeometry) {
        self.geometry = geometry
        picture = Self.picture(of: frame, in: geometry)
        columnScale = Double(frame.format.width) / picture.width
        let frameRows = Double(frame.format.height) / picture.height
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

    /// The frame's own geometry (`DecodedFrame.ownGeometry(in:)`) where its display shape is not the stream's
    /// (beyond `sameShapeTolerance`); nil where it is scaled to the stream's picture.
    static func otherShape(of frame: DecodedFrame, in geometry: DisplayGeometry) -> DisplayGeometry? {
        guard let own = frame.ownGeometry(in: geometry), own.codedSize.area > 0, geometry.codedSize.area > 0,
              abs(shapeRatio(own, geometry) - 1) > sameShapeTolerance else { return nil }
        return own
    }

    /// `geometry`'s display aspect ratio over `other`'s (before rotation, which both share).
    private static func shapeRatio(_ geometry: DisplayGeometry, _ other: DisplayGeometry) -> Double {
        func shape(_ geometry: DisplayGeometry) -> Double {
            Double(geometry.codedSize.width) * geometry.sampleAspectRatio.value / Double(geometry.codedSize.height)
        }
        return shape(geometry) / shape(other)
    }

    /// The whole coded picture for a frame of the stream's shape; else the frame's display shape fitted inside
    /// it, centred.
    private static func picture(of frame: DecodedFrame, in geometry: DisplayGeometry) -> SourceRect {
        let whole = SourceRect(PixelRect(size: geometry.codedSize))
        guard let own = otherShape(of: frame, in: geometry) else { return whole }
        let ratio = shapeRatio(own, geometry)
        let width = whole.width * min(1, ratio), height = whole.height * min(1, 1 / ratio)
        return SourceRect(x: (whole.width - width) / 2, y: (whole.height - height) / 2, width: width, height: height)
    }

    /// `job`, whose crop and destination are in the stream's picture, drawing this frame as players show it:
    /// the crop in the columns and rows the GPU gets, and where the frame is fitted with bars, only the part of
    /// the destination it covers. The rest keeps the canvas's black background: a canvas starts filled with it,
    /// and a sheet's tiles are each drawn once.
    func job(_ job: RenderJob) -> RenderJob {
        var mapped = job
        let shown = job.sourceCrop.intersection(picture)
        if picture.contains(job.sourceCrop) {
            mapped.sourceCrop = onGPU(job.sourceCrop)
        } else if !shown.isEmpty, let drawn = Self.drawnPart(of: job, showing: shown, geometry: geometry) {
            mapped.destination = drawn.destination
            mapped.sourceCrop = onGPU(drawn.crop.intersection(picture))
        } else {
            mapped.sourceCrop = onGPU(picture)  // a crop within the bars (none FrameFarm makes): the whole frame
        }
        return mapped
    }

    /// The whole destination pixels that `shown` (a part of `job`'s crop) lands on, and the part of the crop
    /// that lands exactly on them; nil when that is under a pixel.
    private static func drawnPart(of job: RenderJob, showing shown: SourceRect,
                                  geometry: DisplayGeometry) -> (destination: PixelRect, crop: SourceRect)? {
        let crop = geometry.displayRect(ofCoded: job.sourceCrop), part = geometry.displayRect(ofCoded: shown)
        let target = job.destination
        func column(_ x: Double) -> Int { target.x + Int(((x - crop.x) / crop.width * Double(target.width)).rounded()) }
        func row(_ y: Double) -> Int { target.y + Int(((y - crop.y) / crop.height * Double(target.height)).rounded()) }
        let drawn = PixelRect(x: column(part.x), y: row(part.y), width: column(part.maxX) - column(part.x),
                              height: row(part.maxY) - row(part.y))
        guard !drawn.isEmpty else { return nil }
        let drawnInCrop = SourceRect(x: crop.x + Double(drawn.x - target.x) / Double(target.width) * crop.width,
                                     y: crop.y + Double(drawn.y - target.y) / Double(target.height) * crop.height,
                                     width: Double(drawn.width) / Double(target.width) * crop.width,
                                     height: Double(drawn.height) / Double(target.height) * crop.height)
        return (drawn, geometry.codedRect(ofDisplay: drawnInCrop))
    }

    /// A rect of the coded picture, inside `picture`, in the columns and rows the GPU gets.
    private func onGPU(_ rect: SourceRect) -> SourceRect {
        SourceRect(x: (rect.x - picture.x) * columnScale, y: (rect.y - picture.y) * rowScale,
                   width: rect.width * columnScale, height: rect.height * rowScale)
    }
}
