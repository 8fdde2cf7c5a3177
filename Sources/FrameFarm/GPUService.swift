import Foundation
import FrameFarmGPU

/// The batch's Vulkan context and a pool of renderers (one per concurrent worker, since a Renderer is not
/// thread-safe). When a render fails with `VK_ERROR_DEVICE_LOST` or an out-of-memory result, the input that hit it
/// fails with a clear message and the context is recreated, so the remaining inputs run on a fresh device.
/// Renderers still busy on the old context keep it alive until they are done, then are dropped. Thread-safe.
// Unchecked: it holds renderers, which own Vulkan handles and are lent to one thread at a time, under a lock.
public final class GPUService: @unchecked Sendable {
    public let configuration: GPUConfiguration
    private let lock = NSLock()
    /// nil after a loss whose recreation failed; the next render tries again.
    private var current: GPUContext?
    /// Bumped on each recreation; renderers of an older generation are not reused.
    private var generation = 0
    private var idle: [(renderer: Renderer, generation: Int)] = []
    private var retiredValidationMessages: [String] = []
    private var retiredPeakMemory = 0
    private var pendingFault: VulkanError?
    private var sheetPixelLimitForTests: Int?
    private var faultSkips = 0
    private var firstRecord: GPURecord?
    /// Making the first context on a background thread (`starting(gpu:)`); nil when `init` made it.
    private var startup: BackgroundWork<Void>?

    private init(unstarted configuration: GPUConfiguration) {
        self.configuration = configuration
    }

    /// Makes the Vulkan context now; throws `GPUUnavailable` when there is none.
    public convenience init(configuration: GPUConfiguration = GPUConfiguration()) throws {
        self.init(unstarted: configuration)
        try makeFirstContext()
    }

    /// Starts making the Vulkan context on a background thread and returns at once, so that loading the driver
    /// (60-90 ms for lavapipe and LLVM, more with several drivers installed) overlaps the batch's probing and
    /// decoding. Renders wait for it; `ready()` and `startFailure` say whether it could be made.
    public static func starting(configuration: GPUConfiguration) -> GPUService {
        let service = GPUService(unstarted: configuration)
        service.startup = BackgroundWork { try service.makeFirstContext() }
        return service
    }

    /// Makes the first context and its first renderer: compiling the renderer's pipelines is, after loading
    /// the driver, most of a CPU driver's start-up (50 ms on lavapipe), so it belongs off the batch's critical path.
    private func makeFirstContext() throws {
        do {
            let context = try GPUContext(configuration: configuration)
            let renderer = try Renderer(context: context, configuration: configuration)
            lock.withLock {
                current = context
                firstRecord = GPURecord(name: context.deviceName, type: context.deviceType.rawValue)
                idle.append((renderer, generation))
            }
        } catch {
            // `FRAMEFARM_GPU` set long ago in a job's environment is easily forgotten: the message names it.
            if case .deviceNotFound = error as? GPUError, let setting = configuration.selectionNamedBy {
                throw GPUUnavailable(description: "\(setting): \(error)")
            }
            throw GPUUnavailable(description: "\(error)")
        }
    }

    /// Waits until the first Vulkan context exists; throws the `GPUUnavailable` that says why it could not be made.
    /// Jobs call it before they create any output, so a machine without Vulkan is left with nothing half-made.
    public func ready() throws { try startup?.finish() }

    /// Whether making the first context has failed already (does not wait).
    var hasFailedToStart: Bool { startup?.hasFailed ?? false }

    /// Why the first Vulkan context could not be made (waits for it); nil when it was.
    public var startFailure: GPUUnavailable? {
        do {
            try ready()
            return nil
        } catch {
            return error as? GPUUnavailable ?? GPUUnavailable(description: "\(error)")
        }
    }

    /// The device the first context was made on (waits for it).
    public var record: GPURecord {
        try? ready()
        return lock.withLock { firstRecord } ?? GPURecord(name: "none", type: "none")
    }

    public var deviceName: String { record.name }
    public var deviceType: String { record.type }

    /// The most device memory FrameFarm's buffers held at once, over this context and every one it replaced.
    public var peakDeviceMemoryBytes: Int {
        lock.withLock { max(retiredPeakMemory, current?.deviceMemory.peak ?? 0) }
    }

    /// Batches submitted to the current context so far.
    var submissions: Int { lock.withLock { current?.submissions ?? 0 } }

    /// How many times the context was recreated after a device loss or out-of-memory error.
    public var recreations: Int { lock.withLock { generation } }

    /// Validation-layer messages so far, of this context and every one it replaced (only with
    /// `GPUConfiguration.validation`).
    public var validationMessages: [String] {
        lock.withLock { retiredValidationMessages + (current?.validationMessages ?? []) }
    }

    /// Runs `body` with a renderer no other thread is using. A device loss or out-of-memory error thrown by
    /// `body` is reported as a `GPUFault` that says so, after the context is recreated.
    func withRenderer<Result>(_ body: (Renderer) throws -> Result) throws -> Result {
        let (renderer, rendererGeneration) = try checkOut()
        do {
            if let fault = takeInjectedFault() { throw fault }
            let result = try body(renderer)
            checkIn(renderer, generation: rendererGeneration)
            return result
        } catch let error as VulkanError where Self.needsNewContext(error) {
            let recreated = recreate(after: rendererGeneration)
            throw GPUFault(description: Self.reason(for: error, recreated: recreated))
        } catch {
            checkIn(renderer, generation: rendererGeneration)
            throw error
        }
    }

    /// The most pixels a sprite sheet may hold on this device (`Renderer.persistentCanvasPixels`: 32 Mpx where
    /// the device binds 128 MiB at once, as lavapipe does), or `sheetPixelLimitForTests` where lower. Waits for
    /// the device.
    func sheetPixelLimit() throws -> Int {
        let limit = try withRenderer { $0.persistentCanvasPixels }
        return min(limit, lock.withLock { sheetPixelLimitForTests } ?? .max)
    }

    /// Test hook: the sheet limit of a device that binds less at once.
    func lowerSheetPixelLimit(to pixels: Int) { lock.withLock { sheetPixelLimitForTests = pixels } }

    /// Test hook: the `withRenderer` body after the next `skipping` ones fails as if `call` had returned the
    /// VkResult `result`.
    func injectFault(call: String, result: Int32, skipping: Int = 0) {
        lock.withLock {
            pendingFault = VulkanError(call: call, result: .init(rawValue: result))
            faultSkips = skipping
        }
    }

    /// The fault `injectFault` set, once its renders to skip are skipped.
    private func takeInjectedFault() -> VulkanError? {
        lock.withLock {
            guard let fault = pendingFault else { return nil }
            if faultSkips > 0 {
                faultSkips -= 1
                return nil
            }
            pendingFault = nil
            return fault
        }
    }

    static func needsNewContext(_ error: VulkanError) -> Bool {
        error.isDeviceLost || error.isOutOfMemory
    }

    static func reason(for error: VulkanError, recreated: Error?) -> String {
        let what = error.isDeviceLost ? "the Vulkan device was lost" : "the GPU ran out of memory"
        let after = recreated.map { "; recreating the Vulkan context failed (\($0)), later inputs will retry" }
            ?? "; the Vulkan context was recreated for the remaining inputs"
        return "\(what) (\(error))\(after)"
    }

    private func checkOut() throws -> (Renderer, Int) {
        try ready()
        let (reusable, context, checkedOut) = try lock.withLock { () throws -> (Renderer?, GPUContext, Int) in
            if let index = idle.lastIndex(where: { $0.generation == self.generation }) {
                let renderer = idle.remove(at: index).renderer
                return (renderer, renderer.context, self.generation)
            }
            if current == nil { current = try GPUContext(configuration: configuration) }
            return (nil, current!, self.generation)
        }
        return (try reusable ?? Renderer(context: context, configuration: configuration), checkedOut)
    }

    private func checkIn(_ renderer: Renderer, generation rendererGeneration: Int) {
        lock.withLock { if rendererGeneration == generation { idle.append((renderer, rendererGeneration)) } }
    }

    /// Replaces the context unless a renderer of a newer generation already did; returns the error when the new
    /// context could not be made. Old renderers and the old context go away once nobody uses them.
    private func recreate(after failedGeneration: Int) -> Error? {
        lock.withLock {
            guard failedGeneration == generation else { return nil }
            generation += 1
            idle.removeAll()
            retiredValidationMessages += current?.validationMessages ?? []
            retiredPeakMemory = max(retiredPeakMemory, current?.deviceMemory.peak ?? 0)
            current = nil
            do {
                current = try GPUContext(configuration: configuration)
                return nil
            } catch {
                return error
            }
        }
    }
}

/// Why no Vulkan device could be used: one reason for the whole batch, said once.
public struct GPUUnavailable: Error, CustomStringConvertible, Sendable {
    public let description: String
}

/// A render that failed because the device was lost or ran out of memory (the context is recreated after it).
public struct GPUFault: Error, CustomStringConvertible, Sendable {
    public let description: String
}
