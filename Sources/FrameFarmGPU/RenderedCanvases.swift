import FrameFarmCore

/// The RGBA8 pixels of every canvas of one rendered batch, straight from the mapped readback buffer: rows of
/// `width * 4` bytes, tightly packed, R first; alpha as the canvas background or 255 where video was drawn.
///
/// Valid until the renderer reuses the batch's slot (the next `render`, or the second `submit` after this
/// batch's); reading a stale result traps. Thread-safety: read-only while valid, so readable from any thread.
// Unchecked: it holds the slot's mapped Vulkan memory, which no one writes while the result is valid.
public struct RenderedCanvases: @unchecked Sendable {
    private let slot: RenderSlot
    private let generation: UInt64
    private let buffer: GPUBuffer
    private let canvases: [CanvasDescriptor]

    init(slot: RenderSlot, generation: UInt64) {
        self.slot = slot
        self.generation = generation
        self.buffer = slot.readback!
        self.canvases = slot.canvases
    }

    public var count: Int { canvases.count }

    /// Whether the pixels are still there (the slot has not been reused).
    public var isValid: Bool { slot.generation == generation }

    public func size(of canvas: Int) -> PixelSize {
        PixelSize(width: Int(canvases[canvas].width), height: Int(canvases[canvas].height))
    }

    /// Calls `body` with the canvas's bytes, in place; the pointer must not escape.
    public func withUnsafeBytes<R>(canvas: Int, _ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        precondition(isValid, "RenderedCanvases read after the renderer reused its buffers")
        let descriptor = canvases[canvas]
        let start = buffer.mapped! + Int(descriptor.pixelOffset) * 4
        return try body(UnsafeRawBufferPointer(start: start, count: Int(descriptor.width * descriptor.height) * 4))
    }

    /// A copy of the canvas's bytes.
    public func pixels(canvas: Int) -> [UInt8] {
        withUnsafeBytes(canvas: canvas) { Array($0) }
    }

    public func pixel(canvas: Int, x: Int, y: Int) -> RGBA8 {
        let width = Int(canvases[canvas].width)
        precondition(x >= 0 && y >= 0 && x < width && y < Int(canvases[canvas].height))
        return withUnsafeBytes(canvas: canvas) { RGBA8(packed: $0.load(fromByteOffset: (y * width + x) * 4, as: UInt32.self)) }
    }
}
