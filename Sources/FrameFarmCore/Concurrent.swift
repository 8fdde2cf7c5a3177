import Dispatch
import Foundation

/// The one way FrameFarm spreads work over threads: indices 0..<count handed out, one at a time, to at most
/// `width` workers, on Dispatch's pool up to one per core and on threads of their own past that (work that waits
/// on a GPU or a server, such as inputs in flight, may want more workers than cores; the pool never runs more).
/// The caller waits until every index is done. Thread-safe.
public enum Concurrent {
    public static var cores: Int { ProcessInfo.processInfo.activeProcessorCount }

    /// `body` for every index; the results in index order.
    /// `startOrder`, a permutation of `0..<count`, is the order the indices start in (default: ascending); the
    /// results are by index either way.
    public static func map<Output: Sendable>(count: Int, width: Int = cores, startOrder: [Int]? = nil,
                                             _ body: @Sendable (Int) -> Output) -> [Output] {
        precondition(startOrder.map { $0.count == count } ?? true, "startOrder must list every index once")
        let results = Slots<Output>(count: count)
        let next = Counter()
        run(workers: min(width, count)) {
            while case let started = next.take(), started < count {
                let index = startOrder?[started] ?? started
                results[index] = body(index)
            }
        }
        return results.values
    }

    /// `body` for every index until one throws; then no further index starts, and the first error is rethrown.
    public static func forEach(count: Int, width: Int = cores, _ body: @Sendable (Int) throws -> Void) throws {
        let firstError = Slots<any Error>(count: 1)
        let next = Counter()
        run(workers: min(width, count)) {
            while case let index = next.take(), index < count, firstError[0] == nil {
                do {
                    try body(index)
                } catch {
                    firstError.setIfEmpty(0, error)
                }
            }
        }
        if let error = firstError[0] { throw error }
    }

    /// Runs `worker` on `workers` threads at once (one at least, the caller's among them) and returns when every
    /// one has returned.
    private static func run(workers: Int, _ worker: @Sendable () -> Void) {
        guard workers > cores else {
            DispatchQueue.concurrentPerform(iterations: max(1, workers)) { _ in worker() }
            return
        }
        // Threads of their own, lent `worker` and waited for. A thread may outlive its last use of the closure (its
        // own object goes later), so the closure is taken back before the call returns.
        withoutActuallyEscaping(worker) { worker in
            let lent = Locked<(@Sendable () -> Void)?>(worker)
            let done = DispatchGroup()
            for _ in 1..<workers {
                done.enter()
                Thread.detachNewThread {
                    lent.withLock { $0 }?()
                    done.leave()
                }
            }
            worker()
            done.wait()
            lent.withLock { $0 = nil }
        }
    }

    /// Hands out 0, 1, 2 ... to concurrent workers.
    private final class Counter: Sendable {
        private let next = Locked(0)

        func take() -> Int { next.withLock { value in defer { value += 1 }; return value } }
    }

    /// Results written by index from several threads.
    private final class Slots<Value: Sendable>: Sendable {
        private let slots: Locked<[Value?]>

        init(count: Int) { slots = Locked([Value?](repeating: nil, count: count)) }

        subscript(index: Int) -> Value? {
            get { slots.withLock { $0[index] } }
            set { slots.withLock { $0[index] = newValue } }
        }

        func setIfEmpty(_ index: Int, _ value: Value) { slots.withLock { if $0[index] == nil { $0[index] = value } } }

        var values: [Value] { slots.withLock { $0.map { $0! } } }
    }
}
