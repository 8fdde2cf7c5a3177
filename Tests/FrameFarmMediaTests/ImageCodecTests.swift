import Foundation
import FrameFarmCore
import Testing
@testable import FrameFarmMedia

@Suite struct ImageCodecTests {
    /// Eight solid 8x8 patches, so JPEG's blocks each hold one colour.
    private func patches() -> RGBAImage {
        let colors: [(UInt8, UInt8, UInt8)] = [(255, 0, 0), (0, 255, 0), (0, 0, 255), (255, 255, 255),
                                               (0, 0, 0), (191, 191, 0), (0, 191, 191), (128, 128, 128)]
        var image = RGBAImage(width: 64, height: 16)
        for y in 0..<16 {
            for x in 0..<64 {
                let color = colors[x / 8]
                let offset = (y * 64 + x) * 4
                image.pixels[offset] = color.0
                image.pixels[offset + 1] = color.1
                image.pixels[offset + 2] = color.2
            }
        }
        return image
    }

    /// An image past its format's limit (JPEG 65500 px a side, WebP 16383) is refused in words, never handed to
    /// the encoder or a strip join whose 16-bit header fields it would overflow; one at the limit encodes.
    @Test func imagesLargerThanTheFormatHoldsAreRefused() throws {
        for (format, side) in [(ImageFormat.jpeg, 65500), (.webp, 16383)] {
            let atLimit = RGBAImage(width: 2, height: side)
            #expect(try ImageDecoder.decode(ImageEncoder().encode(atLimit, format: format)).height == side)
            let error = #expect(throws: MediaError.self) {
                try ImageEncoder().encode(RGBAImage(width: 2, height: side + 1), format: format)
            }
            #expect(error?.message == "a 2x\(side + 1) image is larger than \(format.rawValue.uppercased()) allows (\(side) px a side)")
        }
    }

    @Test func pngRoundTripIsLossless() throws {
        let image = patches()
        let data = try ImageEncoder().encode(image, format: .png)
        #expect(data.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]))
        #expect(try ImageDecoder.decode(data) == image)
    }

    @Test func jpegRoundTripKeepsFlatColoursClose() throws {
        let image = patches()
        let data = try ImageEncoder().encode(image, format: .jpeg, quality: 95)
        #expect(data.starts(with: [0xFF, 0xD8]) && data.suffix(2) == Data([0xFF, 0xD9]))
        expectPatchCentres(of: try ImageDecoder.decode(data), near: image)
    }

    /// Lossy codecs are judged at patch centres: 4:2:0 chroma blurs across patch edges by design.
    private func expectPatchCentres(of decoded: RGBAImage, near image: RGBAImage) {
        #expect(decoded.size == image.size)
        for patch in 0..<8 {
            let original = image.pixel(x: patch * 8 + 4, y: 8), read = decoded.pixel(x: patch * 8 + 4, y: 8)
            for (a, b) in [(original.red, read.red), (original.green, read.green), (original.blue, read.blue)] {
                #expect(abs(Int(a) - Int(b)) <= 12, "patch \(patch): \(original) read as \(read)")
            }
        }
    }

    /// Read back by FFmpeg's own WebP decoder, independent of the libwebp encoder that wrote it.
    @Test func webpRoundTripKeepsFlatColoursClose() throws {
        let image = patches()
        let data = try ImageEncoder().encode(image, format: .webp, quality: 95)
        #expect(data.prefix(4) == Data("RIFF".utf8) && data.dropFirst(8).prefix(4) == Data("WEBP".utf8))
        // The RIFF size field covers the rest of the file.
        let riffSize = data.dropFirst(4).prefix(4).enumerated().reduce(0) { $0 | Int($1.element) << (8 * $1.offset) }
        #expect(riffSize + 8 == data.count)
        expectPatchCentres(of: try ImageDecoder.decode(data), near: image)
    }

    @Test func encoderHonoursRowStride() throws {
        let image = patches()
        var padded = [UInt8](repeating: 7, count: 16 * 300)
        for y in 0..<16 { padded.replaceSubrange(y * 300..<(y * 300 + 256), with: image.pixels[(y * 256)..<(y * 256 + 256)]) }
        let data = try padded.withUnsafeBytes {
            try ImageEncoder().encode($0, width: 64, height: 16, bytesPerRow: 300, format: .png)
        }
        #expect(try ImageDecoder.decode(data) == image)
    }

    /// Noise at an odd size, so every row's Up-filter differences wrap around below zero, read back by libpng,
    /// which checks each chunk's CRC and the zlib stream's checksum.
    @Test func pngRoundTripIsLosslessOnNoise() throws {
        var image = RGBAImage(width: 37, height: 23)
        var state: UInt32 = 12345
        for index in stride(from: 0, to: image.pixels.count, by: 4) {
            for channel in 0..<3 {
                state = state &* 1_103_515_245 &+ 12345
                image.pixels[index + channel] = UInt8(truncatingIfNeeded: state >> 16)
            }
        }
        let data = try ImageEncoder().encode(image, format: .png)
        #expect(try ImageDecoder.decode(data) == image)
    }

    /// Bars, a gradient and a noisy patch over several deflate blocks, so one image mixes stored, run-heavy
    /// and literal-heavy blocks; read back by libpng, whose zlib refuses incomplete code tables.
    @Test func pngRoundTripIsLosslessAcrossDeflateBlocks() throws {
        var image = RGBAImage(width: 421, height: 310)
        var state: UInt32 = 777
        for y in 40..<270 {
            for x in 0..<421 {
                let offset = (y * 421 + x) * 4
                if y > 200, x < 200 {
                    for channel in 0..<3 {
                        state = state &* 1_103_515_245 &+ 12345
                        image.pixels[offset + channel] = UInt8(truncatingIfNeeded: state >> 16)
                    }
                } else {
                    image.pixels[offset] = UInt8(x * 255 / 420)
                    image.pixels[offset + 1] = UInt8(y * 255 / 309)
                    image.pixels[offset + 2] = UInt8((x + y) % 256)
                }
            }
        }
        #expect(421 * 3 * 310 > PNGDeflater.blockBytes)
        let data = try ImageEncoder().encode(image, format: .png)
        #expect(try ImageDecoder.decode(data) == image)
    }

    /// A row longer than a deflate block: the deflater splits it, and runs look back across the split.
    @Test func pngRoundTripIsLosslessWithRowsLongerThanABlock() throws {
        let width = PNGDeflater.blockBytes / 3 + 1000
        var image = RGBAImage(width: width, height: 3)
        for index in stride(from: 0, to: image.pixels.count, by: 4) {
            let x = index / 4 % width
            image.pixels[index] = UInt8(truncatingIfNeeded: x / 7)
            image.pixels[index + 1] = UInt8(truncatingIfNeeded: x % 5 == 0 ? 255 : 0)
            image.pixels[index + 2] = UInt8(truncatingIfNeeded: index / 4 / width * 40)
        }
        let data = try ImageEncoder().encode(image, format: .png)
        #expect(try ImageDecoder.decode(data) == image)
    }
}
