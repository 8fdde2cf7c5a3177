/// One in-flight submission's worth of resources: buffers, descriptor sets, a command buffer and its fence.
/// The renderer rotates through its slots, so the host fills slot N+1 while the device runs slot N.
///
/// Ownership: owns its buffers (replaced, never shrunk, when a batch needs more), its command context and its
/// submission; the descriptor sets belong to the renderer's pool. Thread-safety: none (the renderer's).
final class RenderSlot {
    let context: GPUContext
    let commands: CommandContext
    let submission: Submission
    /// One set per persistent canvas a batch may draw into (`Renderer.maxCanvasTargets`); the first serves
    /// batches drawn into the slot's own buffers.
    let descriptorSets: [DescriptorSet]
    /// Bumped whenever the slot is reused; results and tickets of an older generation are stale.
    private(set) var generation: UInt64 = 0

    private(set) var upload: GPUBuffer?
    private(set) var planes: GPUBuffer?
    private(set) var intermediate: GPUBuffer?
    private(set) var readback: GPUBuffer?
    /// Device-local canvases, copied into `readback` at the end of the batch (`Renderer.drawsCanvasesOnDevice`);
    /// nil when the passes draw straight into `readback`.
    private(set) var deviceCanvases: GPUBuffer?
    /// Whether the host wrote the current generation's plane images (`HostPrefilter`).
    var prefilteredOnHost = false
    /// The canvases of the current generation, as laid out in `readback`.
    var canvases: [CanvasDescriptor] = []

    init(context: GPUContext, descriptorSets: [DescriptorSet]) throws {
        self.context = context
        self.commands = try CommandContext(context: context)
        self.submission = try Submission(context: context)
        self.descriptorSets = descriptorSets
    }

    var buffers: [GPUBuffer] { [upload, planes, intermediate, readback, deviceCanvases].compactMap { $0 } }
    /// Everything a submission must keep alive: the buffers and their views.
    var resources: [AnyObject] { buffers + Array(views.values) }
    var deviceMemoryBytes: Int { buffers.reduce(0) { $0 + $1.allocationSize } }

    /// Waits for the slot's last submission and starts a new generation; returns it.
    func reuse() throws -> UInt64 {
        try submission.wait()
        generation += 1
        return generation
    }

    private struct ViewKey: Hashable {
        let buffer: ObjectIdentifier
        let format: BufferView.Format
    }

    private var views: [ViewKey: BufferView] = [:]

    /// A texel view of the whole of `buffer`, made once per buffer and format (buffers are replaced, never
    /// resized).
    func texelView(of buffer: GPUBuffer, format: BufferView.Format) throws -> BufferView {
        let key = ViewKey(buffer: ObjectIdentifier(buffer), format: format)
        if let view = views[key], view.buffer === buffer { return view }
        let live = Set(buffers.map(ObjectIdentifier.init))
        views = views.filter { live.contains($0.key.buffer) }
        let view = try BufferView(buffer: buffer, format: format)
        views[key] = view
        return view
    }

    /// Makes sure every buffer holds at least the given bytes, growing (never shrinking) as needed.
    /// - Parameters:
    ///   - planesOnHost: the host writes the plane images, so their buffer must be mapped.
    ///   - canvasesOnDevice: the passes draw into `deviceCanvases` (as large as `readback`). Kept when a batch
    ///     draws into a persistent canvas instead, so alternating batches allocate nothing.
    func reserve(upload uploadBytes: Int, planes planeBytes: Int, planesOnHost: Bool,
                 intermediate intermediateBytes: Int, readback readbackBytes: Int, canvasesOnDevice: Bool) throws {
        upload = try grown(upload, to: uploadBytes, role: .upload)
        planes = try grown(planes, to: planeBytes, role: planesOnHost ? .upload : .scratch)
        intermediate = try grown(intermediate, to: intermediateBytes, role: .scratch)
        readback = try grown(readback, to: readbackBytes, role: .readback)
        if canvasesOnDevice { deviceCanvases = try grown(deviceCanvases, to: readbackBytes, role: .scratch) }
    }

    private func grown(_ buffer: GPUBuffer?, to bytes: Int, role: GPUBuffer.Role) throws -> GPUBuffer {
        if let buffer, buffer.size >= bytes, role == .scratch || buffer.mapped != nil { return buffer }
        let size = GPUBuffer.grownCapacity(required: bytes, current: buffer?.size ?? 0)
        return try GPUBuffer(context: context, size: size, role: role)
    }
}
