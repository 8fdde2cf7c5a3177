import Foundation
import Testing
@testable import FrameFarmCore

@Suite struct ConcurrentTests {
    /// Past the core count the workers get threads of their own: as many at once as asked (Dispatch's pool runs
    /// one per core at most), the results in index order, and the work closure never outlives the call (the
    /// runtime traps a non-escaping closure still held by a thread once the call returns, so many short calls
    /// would crash here).
    @Test func moreWorkersThanCoresRunAtOnce() throws {
        let width = Concurrent.cores + 2
        let overlap = Locked((now: 0, most: 0))
        let squares = Concurrent.map(count: 2 * width, width: width) { index in
            overlap.withLock { $0.now += 1; $0.most = max($0.most, $0.now) }
            Thread.sleep(forTimeInterval: 0.1)
            overlap.withLock { $0.now -= 1 }
            return index * index
        }
        #expect(squares == (0..<(2 * width)).map { $0 * $0 })
        #expect(overlap.withLock { $0.most } == width)
        for round in 0..<300 {
            let sums = Concurrent.map(count: width, width: width) { $0 + round }
            #expect(sums == (0..<width).map { $0 + round })
        }
        let visited = Locked([Int]())
        try Concurrent.forEach(count: 50, width: width) { index in visited.withLock { $0.append(index) } }
        #expect(visited.withLock { $0 }.sorted() == Array(0..<50))
    }
}
