import Foundation
import FrameFarmCore
import Testing
@testable import FrameFarmMedia

/// Every chunk of a PNG we write carries the CRC the spec asks for, checked by a CRC-32 written here from the
/// spec's definition (independent of libdeflate), and the reader refuses a file whose chunks are damaged.
@Suite struct PNGChunkTests {
    /// CRC-32 as PNG defines it (ISO 3309, reflected polynomial 0xEDB88320), bit by bit.
    static func crc32(_ bytes: some Collection<UInt8>) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes {
            crc ^= UInt32(byte)
            for _ in 0..<8 { crc = crc & 1 == 1 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
        }
        return ~crc
    }

    struct Chunk {
        var type: String
        var storedCRC: UInt32
        var computedCRC: UInt32
    }

    static func chunks(_ png: Data) -> [Chunk] {
        let bytes = [UInt8](png)
        func word(_ offset: Int) -> Int { (0..<4).reduce(0) { $0 << 8 | Int(bytes[offset + $1]) } }
        var offset = 8, found: [Chunk] = []
        while offset + 12 <= bytes.count {
            let length = word(offset)
            found.append(Chunk(type: String(decoding: bytes[(offset + 4)..<(offset + 8)], as: UTF8.self),
                               storedCRC: UInt32(word(offset + 8 + length)),
                               computedCRC: crc32(bytes[(offset + 4)..<(offset + 8 + length)])))
            offset += 12 + length
        }
        return found
    }

    private func image(width: Int, height: Int) -> RGBAImage {
        var image = RGBAImage(width: width, height: height)
        for index in 0..<(width * height) { image.pixels[index * 4] = UInt8(truncatingIfNeeded: index * 7) }
        return image
    }

    @Test(arguments: [(1, 1), (64, 16), (333, 97)], PNGCompressor.allCases)
    func everyChunkCarriesItsCRC(size: (Int, Int), compressor: PNGCompressor) throws {
        let original = image(width: size.0, height: size.1)
        let png = try ImageEncoder(pngCompressor: compressor).encode(original, format: .png)
        #expect(try ImageDecoder.decode(png) == original, "lossless")
        let chunks = Self.chunks(png)
        #expect(chunks.map(\.type).first == "IHDR" && chunks.map(\.type).last == "IEND")
        for chunk in chunks {
            #expect(chunk.storedCRC == chunk.computedCRC, "\(chunk.type): stored \(chunk.storedCRC), spec \(chunk.computedCRC)")
        }
        // The CRC of an empty IEND is a constant of the format.
        #expect(png.suffix(8) == Data([0x49, 0x45, 0x4E, 0x44, 0xAE, 0x42, 0x60, 0x82]))
    }

    @Test func theReaderRefusesDamagedChunks() throws {
        let png = try ImageEncoder().encode(image(width: 8, height: 8), format: .png)
        var badEnd = png
        badEnd[badEnd.count - 1] ^= 0xFF
        #expect(throws: MediaError.self) { try ImageDecoder.decode(badEnd) }
        var badHeader = png
        badHeader[20] ^= 0x01  // inside IHDR's payload: its CRC no longer matches
        #expect(throws: MediaError.self) { try ImageDecoder.decode(badHeader) }
        #expect(throws: MediaError.self) { try ImageDecoder.decode(png + Data([0])) }
        #expect(throws: MediaError.self) { try ImageDecoder.decode(png.prefix(png.count - 12)) }
        #expect(try ImageDecoder.decode(png).size == PixelSize(width: 8, height: 8))
    }
}
