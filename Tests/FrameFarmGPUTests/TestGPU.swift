import Foundation
import Testing
@testable import FrameFarmGPU

/// The one context and renderer the GPU tests share (pipeline compilation on lavapipe costs a few hundred ms),
/// behind a lock because Swift Testing runs tests in parallel and a renderer is not thread-safe.
/// A missing device or validation layer fails the test that asked; nothing is skipped.
enum TestGPU {
    private static let lock = NSLock()
    nonisolated(unsafe) private static var shared: Result<(GPUContext, Renderer), Error>?

    static var validationRequested: Bool { ProcessInfo.processInfo.environment["FRAMEFARM_VALIDATION"] == "1" }

    /// Runs `body` with exclusive use of the shared renderer, then fails the test on any validation message.
    static func withRenderer<R>(_ body: (Renderer) throws -> R) throws -> R {
        try lock.withLock {
            if shared == nil {
                shared = Result { () throws -> (GPUContext, Renderer) in
                    let context = try GPUContext()
                    return (context, try Renderer(context: context))
                }
            }
            let (context, renderer) = try shared!.get()
            let before = context.validationMessages.count
            let result = try body(renderer)
            let messages = context.validationMessages.dropFirst(before)
            #expect(messages.isEmpty, "validation messages: \(Array(messages))")
            return result
        }
    }
}
