import FrameFarmCore
import Testing

/// Every index lands in exactly one part, in order, and no part is more than one longer than another.
@Test(arguments: [(0, 1), (1, 1), (4, 3), (20, 2), (9, 4), (9, 9), (3, 5)])
func rangeSplitsIntoBalancedConsecutiveParts(length: Int, parts: Int) {
    let range = 7..<(7 + length)
    let split = range.split(into: parts)
    #expect(split.count == parts)
    #expect(split.flatMap { Array($0) } == Array(range))
    let lengths = split.map(\.count)
    #expect(lengths.max()! - lengths.min()! <= 1)
}
