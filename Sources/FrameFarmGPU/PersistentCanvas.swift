import FrameFarmCore

/// A canvas that outlives batches: a sprite sheet whose tiles arrive over several submissions is rendered
/// straight into it (`Renderer.render(_:into:)`), then read once complete. Pixels are RGBA8 rows of
/// `width * 4` bytes, R first, in host-visible memory the device writes directly.
///
/// Ownership: owns its buffer; a submission rendering into it keeps it alive until the fence signals.
/// Thread-safety: read it only when no render into it is in flight; then any number of threads may read it at
/// once (its pixels do not change and its buffer is kept), which is why it is Sendable unchecked.
public final class PersistentCanvas: @unchecked Sendable {
    public let size: PixelSize
    public let background: RGBA8
    let buffer: GPUBuffer

    /// Allocates the canvas and fills it with `background` (host writes to coherent memory).
    public init(context: GPUContext, size: PixelSize, background: RGBA8 = .black) throws {
        guard size.width > 0, size.height > 0 else { throw GPUError.invalidBatch("canvas is empty (\(size))") }
        self.size = size
        self.background = background
        buffer = try GPUBuffer(context: context, size: size.area * 4, role: .readback)
        guard let mapped = buffer.mapped else { throw GPUError.unsupportedDevice("no host-visible memory for a canvas") }
        mapped.initializeMemory(as: UInt32.self, repeating: background.packed, count: size.area)
    }

    /// Calls `body` with the canvas's bytes, in place; the pointer must not escape.
    public func withUnsafeBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        try body(UnsafeRawBufferPointer(start: buffer.mapped!, count: size.area * 4))
    }

    public func pixel(x: Int, y: Int) -> RGBA8 {
        precondition(x >= 0 && y >= 0 && x < size.width && y < size.height)
        return withUnsafeBytes { RGBA8(packed: $0.load(fromByteOffset: (y * size.width + x) * 4, as: UInt32.self)) }
    }
}
