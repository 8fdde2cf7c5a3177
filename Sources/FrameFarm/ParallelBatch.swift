import Dispatch
import Foundation
import FrameFarmMedia

/// Runs independent per-input work on all cores and returns the results in input order.
public enum ParallelBatch {
    /// Inputs not yet started when `BatchCancellation` is requested get `notStarted(input)` instead of `body`.
    public static func map<Input, Output>(_ inputs: [Input], width: Int = ProcessInfo.processInfo.activeProcessorCount,
                                          notStarted: ((Input) -> Output)? = nil,
                                          _ body: (Input) -> Output) -> [Output] {
        var results = [Output?](repeating: nil, count: inputs.count)
        let lock = NSLock()
        let next = SharedIndex()
        DispatchQueue.concurrentPerform(iterations: max(1, min(width, inputs.count))) { _ in
            while true {
                let index = next.increment()
                guard index < inputs.count else { return }
                let stop = notStarted != nil && BatchCancellation.isStopRequested
                let output = stop ? notStarted!(inputs[index]) : body(inputs[index])
                lock.withLock { results[index] = output }
            }
        }
        return results.map { $0! }
    }

    /// One encoder per core, for `encode(count:with:_:)`; encoders kept across batches keep their scratch memory.
    static func encoders() -> [ImageEncoder] {
        (0..<ProcessInfo.processInfo.activeProcessorCount).map { _ in ImageEncoder() }
    }

    /// Runs `body` for 0..<count over all cores, each worker with its own encoder of `encoders`; rethrows the
    /// first error.
    static func encode(count: Int, with encoders: [ImageEncoder] = encoders(),
                       _ body: (Int, ImageEncoder) throws -> Void) throws {
        let lock = NSLock()
        var firstError: Error?
        let next = SharedIndex()
        let workers = max(1, min(count, encoders.count))
        DispatchQueue.concurrentPerform(iterations: workers) { worker in
            let encoder = encoders[worker]
            while true {
                let index = next.increment()
                guard index < count, lock.withLock({ firstError == nil }) else { return }
                do {
                    try body(index, encoder)
                } catch {
                    lock.withLock { if firstError == nil { firstError = error } }
                }
            }
        }
        if let firstError { throw firstError }
    }
}

/// Work started on a background thread; `finish` (from any thread, any number of times) waits for it and
/// rethrows its error.
final class BackgroundWork: @unchecked Sendable {
    private let done = DispatchSemaphore(value: 0)
    private let lock = NSLock()
    private var error: Error?
    private var body: (() throws -> Void)?

    init(_ body: @escaping () throws -> Void) {
        self.body = body
        DispatchQueue.global().async { self.run() }
    }

    private func run() {
        do {
            try runBody()
        } catch {
            lock.withLock { self.error = error }
        }
        done.signal()
    }

    /// Drops the body, and what it captured, before the waiters go on. Otherwise the last reference to a captured
    /// object could be released on this thread after `finish` returned: a GPUService released that way at exit
    /// unloaded the Vulkan driver while the main thread ran the process's exit handlers, and the process crashed.
    private func runBody() throws {
        let body = lock.withLock { () -> (() throws -> Void)? in
            defer { self.body = nil }
            return self.body
        }
        try body?()
    }

    func finish() throws {
        // A latch: each waiter passes the signal on to the next.
        done.wait()
        done.signal()
        if let error = lock.withLock({ error }) { throw error }
    }

    /// Whether the work has ended with an error (does not wait).
    var hasFailed: Bool { lock.withLock { error != nil } }
}

/// Hands out 0, 1, 2 ... to concurrent workers (lock-protected).
final class SharedIndex: @unchecked Sendable {
    private var value = 0
    private let lock = NSLock()

    func increment() -> Int {
        lock.withLock {
            defer { value += 1 }
            return value
        }
    }
}
