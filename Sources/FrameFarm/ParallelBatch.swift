import Dispatch
import Foundation

/// Runs independent per-input work on all cores and returns the results in input order.
public enum ParallelBatch {
    /// Inputs not yet started when `BatchCancellation` is requested get `notStarted(input)` instead of `body`.
    public static func map<Input, Output>(_ inputs: [Input], width: Int = ProcessInfo.processInfo.activeProcessorCount,
                                          notStarted: ((Input) -> Output)? = nil,
                                          _ body: (Input) -> Output) -> [Output] {
        var results = [Output?](repeating: nil, count: inputs.count)
        let lock = NSLock()
        let next = ManagedAtomicCounter()
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
}

/// A lock-protected counter handing out 0, 1, 2 ... to concurrent workers.
final class ManagedAtomicCounter: @unchecked Sendable {
    private var value = 0
    private let lock = NSLock()

    func increment() -> Int {
        lock.withLock {
            defer { value += 1 }
            return value
        }
    }
}
