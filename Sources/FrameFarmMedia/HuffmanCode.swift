/// Canonical Huffman code lengths and codes for deflate (RFC 1951, 3.2.2), length-limited, always complete:
/// zlib, and so libpng and the browsers that use it, refuse an incomplete code table.
enum HuffmanCode {
    /// Code lengths (0 for unused symbols) of an optimal prefix code for `frequencies`, none longer than `limit`.
    /// At least two symbols get a code, so the code is complete even when one symbol or none is used.
    static func lengths(of frequencies: UnsafePointer<UInt32>, count: Int, limit: Int,
                        into lengths: UnsafeMutablePointer<UInt8>) {
        var weights = (0..<count).map { frequencies[$0] }
        var used = weights.indices.filter { weights[$0] > 0 }
        for symbol in 0..<count where used.count < 2 && weights[symbol] == 0 {
            weights[symbol] = 1
            used.append(symbol)
        }
        // Over the limit, every weight is halved (kept above zero) and the tree rebuilt, until it fits. A heuristic:
        // the lengths are then not the optimal limited ones (package-merge finds those), but the limit binds only
        // on blocks whose rarest symbols are at least ~1600 times (a Fibonacci ratio) rarer than their commonest,
        // where the loss is small.
        while true {
            let depths = treeDepths(weights: used.map { weights[$0] })
            if depths.max()! <= limit {
                for symbol in 0..<count { lengths[symbol] = 0 }
                for (index, symbol) in used.enumerated() { lengths[symbol] = UInt8(depths[index]) }
                return
            }
            for symbol in used { weights[symbol] = weights[symbol] >> 1 | 1 }
        }
    }

    /// Depth of each leaf in a Huffman tree over `weights` (two or more), built with the two-queue method.
    private static func treeDepths(weights: [UInt32]) -> [Int] {
        let leaves = weights.indices.sorted { (weights[$0], $0) < (weights[$1], $1) }
        var weight = leaves.map { UInt64(weights[$0]) }  // leaves by weight, then inner nodes as they are made
        var parent = [Int](repeating: 0, count: 2 * leaves.count - 1)
        var nextLeaf = 0, nextInner = leaves.count
        func takeLightest() -> Int {
            if nextLeaf < leaves.count, nextInner == weight.count || weight[nextLeaf] <= weight[nextInner] {
                nextLeaf += 1
                return nextLeaf - 1
            }
            nextInner += 1
            return nextInner - 1
        }
        for _ in 1..<leaves.count {
            let first = takeLightest(), second = takeLightest()
            parent[first] = weight.count
            parent[second] = weight.count
            weight.append(weight[first] + weight[second])
        }
        var depth = [Int](repeating: 0, count: weight.count)
        for node in stride(from: weight.count - 2, through: 0, by: -1) { depth[node] = depth[parent[node]] + 1 }
        var depths = [Int](repeating: 0, count: leaves.count)
        for (rank, index) in leaves.enumerated() { depths[index] = depth[rank] }
        return depths
    }

    /// The canonical codes for `lengths`, bit-reversed: deflate sends Huffman codes from their first bit, into a
    /// stream packed from each byte's lowest bit.
    static func codes(for lengths: UnsafePointer<UInt8>, count: Int, into codes: UnsafeMutablePointer<UInt32>) {
        var lengthCounts = [Int](repeating: 0, count: 16)
        for symbol in 0..<count { lengthCounts[Int(lengths[symbol])] += 1 }
        lengthCounts[0] = 0
        var next = [UInt32](repeating: 0, count: 16)
        var code: UInt32 = 0
        for length in 1..<16 {
            code = (code + UInt32(lengthCounts[length - 1])) << 1
            next[length] = code
        }
        for symbol in 0..<count {
            let length = Int(lengths[symbol])
            guard length > 0 else { codes[symbol] = 0; continue }
            codes[symbol] = next[length].bitReversed(length)
            next[length] += 1
        }
    }
}

extension UInt32 {
    /// The low `count` bits in reverse order.
    func bitReversed(_ count: Int) -> UInt32 { count == 0 ? 0 : self.bitSwapped >> (32 - count) }

    private var bitSwapped: UInt32 {
        var value = self
        value = (value & 0x5555_5555) << 1 | (value >> 1) & 0x5555_5555
        value = (value & 0x3333_3333) << 2 | (value >> 2) & 0x3333_3333
        value = (value & 0x0F0F_0F0F) << 4 | (value >> 4) & 0x0F0F_0F0F
        return value.byteSwapped
    }
}
