import Foundation
import FrameFarmCore
import Testing
@testable import FrameFarmMedia

@Suite struct PNGStripsTests {
    /// Gradients, hashed noise and flat bars (long runs that may cross a strip's first row).
    private func picture(width: Int, height: Int) -> RGBAImage {
        var image = RGBAImage(width: width, height: height)
        for y in 0..<height {
            for x in 0..<width {
                let noise = UInt8(truncatingIfNeeded: (x &* 73_856_093 ^ y &* 19_349_663) >> 5) & 15
                let bar = y % 50 < 20
                let offset = (y * width + x) * 4
                image.pixels[offset] = bar ? 16 : UInt8(x * 200 / width) &+ noise
                image.pixels[offset + 1] = bar ? 16 : UInt8(y * 200 / height) &+ noise
                image.pixels[offset + 2] = bar ? 16 : UInt8((x + y) % 256)
                image.pixels[offset + 3] = 255
            }
        }
        return image
    }

    /// The IDAT payload of a PNG with one IDAT chunk.
    private func idat(_ png: Data) throws -> [UInt8] {
        let bytes = [UInt8](png)
        func word(_ offset: Int) -> Int { (0..<4).reduce(0) { $0 << 8 | Int(bytes[offset + $1]) } }
        var offset = 8
        while offset + 12 <= bytes.count {
            let length = word(offset)
            if bytes[(offset + 4)..<(offset + 8)].elementsEqual("IDAT".utf8) {
                return Array(bytes[(offset + 8)..<(offset + 8 + length)])
            }
            offset += 12 + length
        }
        throw MediaError(call: "idat", message: "no IDAT")
    }

    /// The strips joined are a PNG that libpng reads back to the picture's exact pixels, and whose zlib stream
    /// (checksum checked) holds exactly the filtered rows of the picture encoded whole by the reference deflater,
    /// libdeflate; a strip costs a few bytes against one stream. Sizes: a partial last strip, more strips than
    /// fit many rows (3 rows each), and a 1080p picture in 16.
    @Test(arguments: [(1000, 733, 5), (7, 9, 3), (1920, 1080, 16)])
    func joinedStripsAreThePicturesRows(width: Int, height: Int, strips: Int) throws {
        let image = picture(width: width, height: height)
        let encoder = ImageEncoder()
        let rows = try #require(PNGStrips.rowsPerStrip(width: width, height: height, count: strips, minimumPixels: 0))
        let parts = try stride(from: 0, to: height, by: rows).map { firstRow in
            try image.pixels.withUnsafeBytes {
                try encoder.encodeStrip($0, width: width, height: height, bytesPerRow: width * 4,
                                        rows: firstRow..<min(firstRow + rows, height), format: .png)
            }
        }
        #expect(parts.count == strips)
        let joined = try PNGStrips.join(parts, width: width, height: height, rowsPerStrip: rows)
        #expect(try ImageDecoder.decode(joined) == image)

        let reference = try ImageEncoder(pngCompressor: .libdeflate).encode(image, format: .png)
        let filteredBytes = (1 + 3 * width) * height
        let filtered = try #require(inflateZlib(try idat(reference), expecting: filteredBytes))
        #expect(inflateZlib(try idat(joined), expecting: filteredBytes) == filtered)

        let whole = try encoder.encode(image, format: .png)
        #expect(joined.count <= whole.count + 300 * (strips - 1), "\(joined.count) bytes against \(whole.count) whole")
    }

    /// A picture is cut into as many strips as asked, but none under the minimum and none without a row.
    @Test func stripsKeepToTheMinimumAndTheRows() {
        #expect(PNGStrips.rowsPerStrip(width: 1000, height: 1000, count: 4, minimumPixels: 100_000) == 250)
        #expect(PNGStrips.rowsPerStrip(width: 1000, height: 1000, count: 16, minimumPixels: 300_000) == 334)
        #expect(PNGStrips.rowsPerStrip(width: 1000, height: 1000, count: 4, minimumPixels: 600_000) == nil)
        #expect(PNGStrips.rowsPerStrip(width: 4000, height: 2, count: 8, minimumPixels: 0) == 1)
        #expect(PNGStrips.rowsPerStrip(width: 4000, height: 1, count: 8, minimumPixels: 0) == nil)
    }

    /// Strips that do not make the height are refused, not written as a short or torn image.
    @Test func stripsThatDoNotMakeTheHeightAreRefused() throws {
        let image = picture(width: 40, height: 30)
        let parts = try [0..<10, 10..<20].map { rows in
            try image.pixels.withUnsafeBytes {
                try ImageEncoder().encodeStrip($0, width: 40, height: 30, bytesPerRow: 160, rows: rows, format: .png)
            }
        }
        #expect(throws: MediaError.self) { try PNGStrips.join(parts, width: 40, height: 30, rowsPerStrip: 10) }
    }
}
