import Foundation
import Testing
@testable import FrameFarmGPU

/// The one context and renderer the GPU tests share (pipeline compilation on lavapipe costs a few hundred ms),
/// behind a lock because Swift Testing runs tests in parallel and a renderer is not thread-safe.
/// A missing device or validation layer fails the test that asked; nothing is skipped.
enum TestGPU {
    private static let lock = NSLock()
    nonisolated(unsafe) private static var shared: Result<GPUContext, Error>?
    /// Which renderer: where it prefilters and where it draws canvases (nil: the renderer's own choice).
    private struct Choice: Hashable {
        var prefilterOnHost: Bool?
        var canvasesOnDevice: Bool?
    }

    nonisolated(unsafe) private static var renderers: [Choice: Renderer] = [:]

    // The tests are an edge of the library: they read the variables `make test` sets, as the executables do.
    static var validationRequested: Bool { ProcessInfo.processInfo.environment["FRAMEFARM_VALIDATION"] == "1" }
    static var canvasesOnDeviceRequested: Bool { ProcessInfo.processInfo.environment["FRAMEFARM_CANVASES"] == "device" }

    /// Runs `body` with exclusive use of a shared renderer, then fails the test on any validation message.
    /// - Parameters:
    ///   - prefilterOnHost: a renderer that prefilters on the host (true), on the device (false), or wherever it
    ///     chooses (nil).
    ///   - canvasesOnDevice: one that draws canvases in device memory and copies them to the host (true), straight
    ///     into host-visible memory (false), or as it chooses (nil).
    static func withRenderer<R>(prefilterOnHost: Bool? = nil, canvasesOnDevice: Bool? = nil,
                                _ body: (Renderer) throws -> R) throws -> R {
        try lock.withLock {
            if shared == nil {
                keepDriverLoaded()
                shared = Result { try GPUContext(validation: validationRequested) }
            }
            let context = try shared!.get()
            let choice = Choice(prefilterOnHost: prefilterOnHost, canvasesOnDevice: canvasesOnDevice)
            let renderer = try renderers[choice]
                ?? Renderer(context: context, prefilter: prefilterOnHost.map { $0 ? .host : .device } ?? .automatic,
                            canvasesOnDevice: canvasesOnDevice ?? canvasesOnDeviceRequested)
            renderers[choice] = renderer
            let before = context.validationMessages.count
            let result = try body(renderer)
            let messages = context.validationMessages.dropFirst(before)
            #expect(messages.isEmpty, "validation messages: \(Array(messages))")
            return result
        }
    }

    /// Under `make test-sanitize` (which names lavapipe in FRAMEFARM_TEST_CLI_PRELOAD): the Vulkan loader unloads
    /// the driver at vkDestroyInstance, after which LeakSanitizer can no longer scan the driver's globals and
    /// reports what they point to as leaked, from an <unknown module>. Opened here with RTLD_NODELETE, it stays
    /// mapped for the life of the test process, as the CLI processes keep it by LD_PRELOAD.
    static func keepDriverLoaded() {
        guard let driver = ProcessInfo.processInfo.environment["FRAMEFARM_TEST_CLI_PRELOAD"], !driver.isEmpty else { return }
        _ = dlopen(driver, RTLD_NOW | RTLD_NODELETE)
    }
}
