import FrameFarmCore

/// Drives Shaders/overlay.comp: draws each canvas's overlays in order, visiting only the cells of the canvas
/// that some overlay can change (outline strips, corner squares, tint rects), not the whole canvas.
struct OverlayPass {
    static let tileSize = (width: 16, height: 16)

    let pipeline: ComputePipeline

    init(layout: PipelineLayout) throws {
        pipeline = try ComputePipeline(layout: layout, shader: ShaderLibrary.overlay, specialization: [
            UInt32(Self.tileSize.width), UInt32(Self.tileSize.height),
        ])
    }

    /// The shader's form of `overlay` (see OverlayDescriptor in Shaders/shader_interface.glsl).
    static func descriptor(_ overlay: Overlay) -> OverlayDescriptor {
        switch overlay {
        case .safeAreaOutline(let rect, let color, let thickness):
            OverlayDescriptor(kind: 0, x: Int32(rect.x), y: Int32(rect.y), width: Int32(rect.width),
                              height: Int32(rect.height), color: color.packed, thickness: Int32(max(0, thickness)))
        case .roundedCornerMask(let radius):
            OverlayDescriptor(kind: 1, radius: Float(max(0, radius)))
        case .tint(let rect, let color):
            OverlayDescriptor(kind: 2, x: Int32(rect.x), y: Int32(rect.y), width: Int32(rect.width),
                              height: Int32(rect.height), color: color.packed)
        }
    }

    /// Rects of `canvas` whose pixels `overlay` may change.
    static func affectedRects(of overlay: Overlay, in canvas: PixelSize) -> [PixelRect] {
        switch overlay {
        case .safeAreaOutline(let rect, _, let thickness):
            let t = max(0, thickness)
            return [PixelRect(x: rect.x, y: rect.y, width: rect.width, height: t),
                    PixelRect(x: rect.x, y: rect.maxY - t, width: rect.width, height: t),
                    PixelRect(x: rect.x, y: rect.y, width: t, height: rect.height),
                    PixelRect(x: rect.maxX - t, y: rect.y, width: t, height: rect.height)]
        case .roundedCornerMask(let radius):
            let side = Int(radius.rounded(.up)) + 1
            return [PixelRect(x: 0, y: 0, width: side, height: side),
                    PixelRect(x: canvas.width - side, y: 0, width: side, height: side),
                    PixelRect(x: 0, y: canvas.height - side, width: side, height: side),
                    PixelRect(x: canvas.width - side, y: canvas.height - side, width: side, height: side)]
        case .tint(let rect, _):
            return [rect]
        }
    }

    /// The cells (16 x 16 tiles, packed x | y << 16, counted from the first of `rows`) of `canvas`'s window of
    /// rows `rows` that some overlay may change.
    static func cells(of canvas: CanvasSpec, rows: Range<Int>) -> [UInt32] {
        let across = (canvas.size.width + tileSize.width - 1) / tileSize.width
        let down = (rows.count + tileSize.height - 1) / tileSize.height
        var marked = [Bool](repeating: false, count: across * down)
        let bounds = PixelRect(x: 0, y: rows.lowerBound, width: canvas.size.width, height: rows.count)
        for overlay in canvas.overlays {
            for rect in affectedRects(of: overlay, in: canvas.size) {
                var clipped = rect.intersection(bounds)
                guard !clipped.isEmpty else { continue }
                clipped.y -= rows.lowerBound
                for cellY in (clipped.y / tileSize.height)...((clipped.maxY - 1) / tileSize.height) {
                    for cellX in (clipped.x / tileSize.width)...((clipped.maxX - 1) / tileSize.width) {
                        marked[cellY * across + cellX] = true
                    }
                }
            }
        }
        return marked.indices.filter { marked[$0] }.map { UInt32($0 % across) | UInt32($0 / across) << 16 }
    }

    /// One dispatch per window with overlays (more past the device's grid limit), one workgroup per cell.
    func dispatches(for ranges: [(window: Int, first: Int, count: Int)], windows: [CanvasDescriptor])
        -> [ComputeDispatch] {
        let maxGroups = Int(pipeline.context.limits.maxComputeWorkGroupCount.0)
        return ranges.flatMap { range in
            stride(from: 0, to: range.count, by: maxGroups).map { skip in
                ComputeDispatch(pipeline: pipeline,
                                items: PassConstants(canvas: UInt32(range.window),
                                                     firstCell: UInt32(range.first + skip)),
                                groupCountX: min(maxGroups, range.count - skip),
                                canvasWindow: Int(windows[range.window].pixelOffset) * 4)
            }
        }
    }
}
