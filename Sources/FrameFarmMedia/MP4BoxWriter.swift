import Foundation

/// Builds ISO BMFF (MP4) boxes into one buffer: fields are big-endian, and a box's size is filled in when its body
/// closure returns. Pure; a value type, one per file being built.
struct MP4BoxWriter {
    private(set) var data = Data()

    /// A box of `type` whose payload `body` writes.
    mutating func box(_ type: String, _ body: (inout MP4BoxWriter) -> Void) {
        let start = data.count
        uint32(0)
        fourCC(type)
        body(&self)
        let size = UInt32(data.count - start)
        data.replaceSubrange(start..<(start + 4), with: [UInt8(size >> 24), UInt8(size >> 16 & 0xFF),
                                                         UInt8(size >> 8 & 0xFF), UInt8(size & 0xFF)])
    }

    /// A FullBox: a box whose payload starts with a version byte and 24 bits of flags.
    mutating func fullBox(_ type: String, version: UInt8 = 0, flags: UInt32 = 0, _ body: (inout MP4BoxWriter) -> Void) {
        box(type) { box in
            box.uint8(version)
            box.uint8(UInt8(flags >> 16 & 0xFF))
            box.uint16(UInt16(flags & 0xFFFF))
            body(&box)
        }
    }

    mutating func uint8(_ value: UInt8) { data.append(value) }
    mutating func uint16(_ value: UInt16) { data.append(contentsOf: [UInt8(value >> 8), UInt8(value & 0xFF)]) }
    mutating func uint32(_ value: UInt32) {
        data.append(contentsOf: [UInt8(value >> 24), UInt8(value >> 16 & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)])
    }
    mutating func uint64(_ value: UInt64) {
        uint32(UInt32(value >> 32))
        uint32(UInt32(value & 0xFFFF_FFFF))
    }
    mutating func fourCC(_ code: String) {
        precondition(code.utf8.count == 4, "a four-character code")
        data.append(contentsOf: code.utf8)
    }
    mutating func zeros(_ count: Int) { data.append(contentsOf: repeatElement(0, count: count)) }
    mutating func bytes(_ bytes: Data) { data.append(bytes) }

    /// The unity transformation matrix of mvhd and tkhd (16.16 and 2.30 fixed point).
    mutating func unityMatrix() {
        for value: UInt32 in [0x0001_0000, 0, 0, 0, 0x0001_0000, 0, 0, 0, 0x4000_0000] { uint32(value) }
    }
}
