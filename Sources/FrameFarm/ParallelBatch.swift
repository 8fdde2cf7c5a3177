import Dispatch
import Foundation
import FrameFarmMedia

/// Runs independent per-input work on all cores and returns the results in input order.
public enum ParallelBatch {
    /// Inputs not yet started when `BatchCancellation` is requested get `notStarted(input)` instead of `body`.
    /// `startOrder` (indices of `inputs`) is the order they start in; the default is input order.
    public static func map<Input: Sendable, Output: Sendable>(
        _ inputs: [Input], width: Int = Concurrent.cores, startOrder: [Int]? = nil,
        notStarted: (@Sendable (Input) -> Output)? = nil, _ body: @Sendable (Input) -> Output
    ) -> [Output] {
        Concurrent.map(count: inputs.count, width: width, startOrder: startOrder) { index in
            if let notStarted, BatchCancellation.isStopRequested { return notStarted(inputs[index]) }
            return body(inputs[index])
        }
    }

    /// Runs `body` for 0..<count over all cores, each image with an encoder of `encoders` taken for its encoding;
    /// returns the results in index order, or rethrows the first error. Encodings that share a pool and run at
    /// once together encode no more images at a time than the pool has encoders.
    @discardableResult
    static func encode<Output: Sendable>(count: Int, with encoders: EncoderPool = EncoderPool(),
                                         _ body: @Sendable (Int, ImageEncoder) throws -> Output) throws -> [Output] {
        let results = Locked([Output?](repeating: nil, count: count))
        try Concurrent.forEach(count: count, width: encoders.count) { index in
            let output = try encoders.withEncoder { try body(index, $0) }
            results.withLock { $0[index] = output }
        }
        return results.withLock { $0.map { $0! } }
    }
}

/// Image encoders, one per core, lent out one image at a time. Kept across batches, they keep their scratch
/// memory; shared by encodings that overlap (a preview batch: its videos in flight and each one's consecutive
/// submissions), they bound how many images are encoded at once.
// Unchecked: its encoders own libjpeg-turbo and libdeflate handles; each is lent to one thread at a time, under a lock.
final class EncoderPool: @unchecked Sendable {
    let count: Int
    let pngCompressor: PNGCompressor
    private var idle: [ImageEncoder]
    private let lock = NSLock()
    private let available: DispatchSemaphore

    init(count: Int = ProcessInfo.processInfo.activeProcessorCount, pngCompressor: PNGCompressor = .framefarm) {
        self.count = max(1, count)
        self.pngCompressor = pngCompressor
        idle = (0..<self.count).map { _ in ImageEncoder(pngCompressor: pngCompressor) }
        available = DispatchSemaphore(value: self.count)
    }

    /// Sets aside in every idle encoder the scratch memory an image of `size` needs (see `ImageEncoder.reserve`);
    /// one lent out grows, if it must, when it next encodes.
    func reserve(_ size: PixelSize, format: ImageFormat) {
        lock.withLock { for encoder in idle { encoder.reserve(width: size.width, height: size.height, format: format) } }
    }

    /// Runs `body` with an encoder no one else holds, waiting for one if all are lent.
    func withEncoder<Result>(_ body: (ImageEncoder) throws -> Result) rethrows -> Result {
        available.wait()
        let encoder = lock.withLock { idle.removeLast() }
        defer {
            lock.withLock { idle.append(encoder) }
            available.signal()
        }
        return try body(encoder)
    }
}

/// Work started on a background thread, whose value or error `finish` (from any thread, any number of times)
/// waits for.
final class BackgroundWork<Value: Sendable>: Sendable {
    private let done = DispatchSemaphore(value: 0)
    private let outcome = Locked<Result<Value, any Error>?>(nil)
    private let body: Locked<(@Sendable () throws -> Value)?>

    init(_ body: @escaping @Sendable () throws -> Value) {
        self.body = Locked(body)
        DispatchQueue.global().async { self.run() }
    }

    /// Drops the body, and what it captured, before the waiters go on. Otherwise the last reference to a captured
    /// object could be released on this thread after `finish` returned: a GPUService released that way at exit
    /// unloaded the Vulkan driver while the main thread ran the process's exit handlers, and the process crashed.
    private func run() {
        let result = Result { () throws -> Value in
            let body = self.body.withLock { body in
                defer { body = nil }
                return body
            }
            return try body!()
        }
        outcome.withLock { $0 = result }
        done.signal()
    }

    @discardableResult
    func finish() throws -> Value {
        // A latch: each waiter passes the signal on to the next.
        done.wait()
        done.signal()
        return try outcome.withLock { $0! }.get()
    }

    /// Whether the work has ended with an error (does not wait).
    var hasFailed: Bool {
        outcome.withLock { outcome in
            guard case .failure = outcome else { return false }
            return true
        }
    }
}
