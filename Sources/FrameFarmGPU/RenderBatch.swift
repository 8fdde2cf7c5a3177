import FrameFarmCore

/// An 8-bit sRGB-encoded colour with straight alpha.
public struct RGBA8: Sendable, Hashable, CustomStringConvertible {
    public var red: UInt8
    public var green: UInt8
    public var blue: UInt8
    public var alpha: UInt8

    public init(red: UInt8, green: UInt8, blue: UInt8, alpha: UInt8 = 255) {
        self.red = red
        self.green = green
        self.blue = blue
        self.alpha = alpha
    }

    /// Unpacks a canvas pixel (R in the low byte).
    public init(packed: UInt32) {
        self.init(red: UInt8(packed & 0xFF), green: UInt8((packed >> 8) & 0xFF), blue: UInt8((packed >> 16) & 0xFF),
                  alpha: UInt8(packed >> 24))
    }

    public static let black = RGBA8(red: 0, green: 0, blue: 0)
    public static let white = RGBA8(red: 255, green: 255, blue: 255)
    public static let clear = RGBA8(red: 0, green: 0, blue: 0, alpha: 0)

    /// As stored in a canvas: R in the low byte, A in the high byte.
    public var packed: UInt32 { UInt32(red) | UInt32(green) << 8 | UInt32(blue) << 16 | UInt32(alpha) << 24 }
    public var description: String { "rgba(\(red),\(green),\(blue),\(alpha))" }
}

/// One decoded frame to upload: its format and a closure that writes `format.byteCount` bytes, laid out as
/// `format.packedPlanes`, into the (mapped, GPU-visible) upload buffer. The media layer copies its planes
/// straight in, one memcpy per row; nothing is copied twice.
public struct SourceFrame {
    public var format: FrameFormat
    public var write: (UnsafeMutableRawBufferPointer) -> Void
    /// The planes where they already lie in memory, in `format.packedPlanes`' order, when the frame can lend
    /// them: a batch the host prefilters (`HostPrefilter`) reads them in place and uploads no source bytes. They
    /// must stay valid as long as this value lives (a decoded frame's `write` closure keeps its memory).
    public var planes: [PlaneMemory]?

    public init(format: FrameFormat, planes: [PlaneMemory]? = nil,
                write: @escaping (UnsafeMutableRawBufferPointer) -> Void) {
        self.format = format
        self.planes = planes
        self.write = write
    }
}

/// Something drawn over a canvas after the video, in the order given.
public enum Overlay: Sendable, Hashable {
    /// A stroke of `thickness` pixels just inside `rect` (the safe area), alpha-blended.
    case safeAreaOutline(PixelRect, color: RGBA8, thickness: Int)
    /// The screen's rounded corners: pixels outside the canvas-sized rounded rect of `radius` become the
    /// canvas background, antialiased by coverage.
    case roundedCornerMask(radius: Double)
    /// `color` alpha-blended over every pixel of the rect (e.g. the part of the picture outside the safe area).
    case tint(PixelRect, color: RGBA8)
}

/// One output image: its size, the colour of pixels no job covers, and overlays drawn last.
public struct CanvasSpec: Sendable, Hashable {
    public var size: PixelSize
    public var background: RGBA8
    /// Drawn in order; at most 8 (`CanvasDescriptor.maxOverlays`) per canvas.
    public var overlays: [Overlay]

    public init(size: PixelSize, background: RGBA8 = .black, overlays: [Overlay] = []) {
        self.size = size
        self.background = background
        self.overlays = overlays
    }
}

/// Resample `sourceCrop` of source `sourceIndex` into `destination` of canvas `canvasIndex`. The geometry layer
/// decides every rect; the renderer clips the destination to the canvas and never moves anything.
public struct RenderJob: Sendable, Hashable {
    public var sourceIndex: Int
    /// In coded luma pixels; need not fall on whole pixels. Filter taps never reach outside the crop's pixels.
    public var sourceCrop: SourceRect
    public var destination: PixelRect
    public var canvasIndex: Int
    /// How the source is turned for display (rotation, mirror): the crop is filtered in coded orientation and
    /// each result pixel is written where the display transform puts it inside `destination`.
    public var transform: DisplayTransform

    public init(sourceIndex: Int, sourceCrop: SourceRect, destination: PixelRect, canvasIndex: Int,
                transform: DisplayTransform = .identity) {
        self.sourceIndex = sourceIndex
        self.sourceCrop = sourceCrop
        self.destination = destination
        self.canvasIndex = canvasIndex
        self.transform = transform
    }
}

/// Everything one submission renders: sources uploaded once, any number of jobs into any number of canvases.
public struct RenderBatch {
    public var sources: [SourceFrame]
    public var canvases: [CanvasSpec]
    public var jobs: [RenderJob]
    public var filter: ResamplingFilter
    /// Resample linear light (decode the transfer first, re-encode after), not the encoded values.
    public var linearLight: Bool

    public init(sources: [SourceFrame], canvases: [CanvasSpec], jobs: [RenderJob],
                filter: ResamplingFilter = .lanczos3, linearLight: Bool = false) {
        self.sources = sources
        self.canvases = canvases
        self.jobs = jobs
        self.filter = filter
        self.linearLight = linearLight
    }

    /// The batch scaled as a run's `--filter` and `--linear-light` ask.
    public init(sources: [SourceFrame], canvases: [CanvasSpec], jobs: [RenderJob], resampling: Resampling) {
        self.init(sources: sources, canvases: canvases, jobs: jobs, filter: resampling.filter,
                  linearLight: resampling.linearLight)
    }
}
