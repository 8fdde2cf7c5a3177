import Foundation
import Testing
@testable import FrameFarmGPU

/// The one context and renderer the GPU tests share (pipeline compilation on lavapipe costs a few hundred ms),
/// behind a lock because Swift Testing runs tests in parallel and a renderer is not thread-safe.
/// A missing device or validation layer fails the test that asked; nothing is skipped.
enum TestGPU {
    private static let lock = NSLock()
    nonisolated(unsafe) private static var shared: Result<GPUContext, Error>?
    /// By `prefilterOnHost` (nil: the renderer's own choice, the host on a CPU device).
    nonisolated(unsafe) private static var renderers: [Bool?: Renderer] = [:]

    static var validationRequested: Bool { ProcessInfo.processInfo.environment["FRAMEFARM_VALIDATION"] == "1" }

    /// Runs `body` with exclusive use of a shared renderer, then fails the test on any validation message.
    /// - Parameter prefilterOnHost: which renderer: one that prefilters on the host (true), on the device (false),
    ///   or wherever the renderer chooses (nil).
    static func withRenderer<R>(prefilterOnHost: Bool? = nil, _ body: (Renderer) throws -> R) throws -> R {
        try lock.withLock {
            if shared == nil { shared = Result { try GPUContext() } }
            let context = try shared!.get()
            let renderer = try renderers[prefilterOnHost]
                ?? Renderer(context: context, prefilterOnHost: prefilterOnHost)
            renderers[prefilterOnHost] = renderer
            let before = context.validationMessages.count
            let result = try body(renderer)
            let messages = context.validationMessages.dropFirst(before)
            #expect(messages.isEmpty, "validation messages: \(Array(messages))")
            return result
        }
    }
}
