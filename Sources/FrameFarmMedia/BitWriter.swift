/// Packs bit fields into bytes from each byte's lowest bit up, as deflate (RFC 1951, 3.1.1) sends them.
/// Writes through a pointer it does not own: the caller sizes the buffer.
struct BitWriter {
    private let start: UnsafeMutablePointer<UInt8>
    private var next: UnsafeMutablePointer<UInt8>
    private var bits: UInt64 = 0
    private var bitCount = 0  // below 32 between calls

    init(_ start: UnsafeMutablePointer<UInt8>) {
        self.start = start
        next = start
    }

    /// The low `count` bits of `value` (at most 32; no bits above them may be set).
    @inline(__always) mutating func put(_ value: UInt32, _ count: Int) {
        bits |= UInt64(value) << UInt64(bitCount)
        bitCount += count
        if bitCount >= 32 {
            UnsafeMutableRawPointer(next).storeBytes(of: UInt32(truncatingIfNeeded: bits).littleEndian, as: UInt32.self)
            next += 4
            bits >>= 32
            bitCount -= 32
        }
    }

    /// Pads with zero bits to a byte boundary and writes out every whole byte.
    mutating func alignToByte() {
        bitCount = (bitCount + 7) & ~7
        while bitCount > 0 {
            next.pointee = UInt8(truncatingIfNeeded: bits)
            next += 1
            bits >>= 8
            bitCount -= 8
        }
    }

    /// Raw bytes, after `alignToByte`.
    mutating func append(_ bytes: UnsafeRawBufferPointer) {
        precondition(bitCount == 0, "append needs a byte boundary")
        guard let base = bytes.baseAddress, !bytes.isEmpty else { return }
        UnsafeMutableRawPointer(next).copyMemory(from: base, byteCount: bytes.count)
        next += bytes.count
    }

    /// Bytes written, after `alignToByte`.
    func finish() -> Int {
        precondition(bitCount == 0, "finish needs a byte boundary")
        return next - start
    }
}
