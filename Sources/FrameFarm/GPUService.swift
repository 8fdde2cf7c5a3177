import Foundation
import FrameFarmGPU

/// The batch's one Vulkan context and a pool of renderers (one per concurrent worker, since a Renderer is not
/// thread-safe). Thread-safe.
public final class GPUService: @unchecked Sendable {
    let context: GPUContext
    private var idle: [Renderer] = []
    private let lock = NSLock()

    /// - Parameter gpu: `--gpu` (an index or a name substring); nil falls back to `FRAMEFARM_GPU`, then the best
    ///   device.
    public init(gpu: String?) throws {
        let selection = gpu.map(GPUSelection.init(argument:)) ?? .fromEnvironment()
        do {
            context = try GPUContext(selection: selection)
        } catch {
            throw InputFailure(path: "vulkan", reason: "\(error)")
        }
    }

    public var deviceName: String { context.deviceName }
    public var deviceType: String { context.deviceType }
    public var record: GPURecord { GPURecord(name: deviceName, type: deviceType) }

    /// Validation-layer messages so far (only with FRAMEFARM_VALIDATION=1).
    public var validationMessages: [String] { context.validationMessages }

    /// Runs `body` with a renderer no other thread is using.
    func withRenderer<Result>(_ body: (Renderer) throws -> Result) throws -> Result {
        let renderer = try lock.withLock { idle.popLast() } ?? Renderer(context: context)
        defer { lock.withLock { idle.append(renderer) } }
        return try body(renderer)
    }
}
