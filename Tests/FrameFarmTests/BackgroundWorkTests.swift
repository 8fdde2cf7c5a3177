import Foundation
import Testing
@testable import FrameFarm

@Suite struct BackgroundWorkTests {
    /// Calls `released` from its deinit, on whichever thread lets go of it last.
    final class Witness: Sendable {
        let released: @Sendable () -> Void
        init(released: @escaping @Sendable () -> Void) { self.released = released }
        deinit { released() }
    }

    /// Counts releases from any thread.
    final class Counter: @unchecked Sendable {  // every access under `lock`
        private var value = 0
        private let lock = NSLock()

        func increment() -> Int { lock.withLock { defer { value += 1 }; return value } }
    }

    /// What the work captured is let go of before `finish` returns, so its last release cannot happen on the
    /// worker thread while the waiter goes on (a GPUService released that way at exit crashed the CLI).
    @Test func whatTheWorkCapturedIsReleasedBeforeFinishReturns() throws {
        for round in 0..<2000 {
            let releases = Counter()
            let work: BackgroundWork<Void>
            do {
                let witness = Witness { _ = releases.increment() }
                work = BackgroundWork { _ = witness }
            }
            try work.finish()
            // Reading the counter takes the next number: 1 when the witness was released already.
            #expect(releases.increment() == 1, "round \(round): still held after finish returned")
        }
    }

    @Test func finishRethrowsTheErrorToEveryWaiter() {
        struct Failure: Error {}
        let work = BackgroundWork { throw Failure() }
        #expect(throws: Failure.self) { try work.finish() }
        #expect(throws: Failure.self) { try work.finish() }
        #expect(work.hasFailed)
    }
}
