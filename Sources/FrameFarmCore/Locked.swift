import Foundation

/// A value shared between threads, touched only under its lock. Thread-safe.
///
/// Not `Synchronization.Mutex`: on Linux that locks with raw futex calls, which ThreadSanitizer cannot see, so
/// `make test-sanitize` reported every access made under it as a race. `NSLock` is a pthread mutex, which it sees.
public final class Locked<Value: Sendable>: @unchecked Sendable {  // unchecked: `value` is only touched under `lock`
    private var value: Value
    private let lock = NSLock()

    public init(_ value: Value) { self.value = value }

    public func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}
