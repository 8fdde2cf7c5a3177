import Foundation
import FrameFarmCore
import Testing
@testable import FrameFarmMedia

@Suite struct JPEGStripsTests {
    /// A picture every JPEG block of which differs: gradients, hashed noise and hard-edged bars; neither side a
    /// multiple of 16, so the last strip and the last column of MCUs are partial.
    private func picture(width: Int, height: Int) -> RGBAImage {
        var image = RGBAImage(width: width, height: height)
        for y in 0..<height {
            for x in 0..<width {
                let noise = UInt8(truncatingIfNeeded: (x &* 73_856_093 ^ y &* 19_349_663) >> 5) & 31
                let bar = (x / 37 + y / 23) % 3 == 0
                let offset = (y * width + x) * 4
                image.pixels[offset] = bar ? 250 : UInt8(x * 200 / width) &+ noise
                image.pixels[offset + 1] = UInt8(y * 200 / height) &+ noise
                image.pixels[offset + 2] = bar ? 10 : UInt8((x + y) % 256)
                image.pixels[offset + 3] = 255
            }
        }
        return image
    }

    /// The strips joined decode, by libjpeg-turbo stopping on any warning and by FFmpeg's own decoder, to exactly
    /// the pixels of the picture encoded whole: the restart interval is each strip's MCU count, the markers are
    /// in sequence, and the header is the whole picture's.
    /// (Asked for 16 strips, 1920x1080 gets 14 of 80 rows: the markers wrap from RST7 to RST0.)
    @Test(arguments: [(1000, 733, 5, 5), (64, 200, 3, 3), (1920, 1080, 16, 14)])
    func joinedStripsDecodeToTheWholePicturesPixels(width: Int, height: Int, asked: Int, strips: Int) throws {
        let image = picture(width: width, height: height)
        let encoder = ImageEncoder()
        let whole = try encoder.encode(image, format: .jpeg, quality: 85)
        let rows = try #require(JPEGStrips.rowsPerStrip(width: width, height: height, count: asked, minimumPixels: 0))
        let parts = try stride(from: 0, to: height, by: rows).map { firstRow in
            try image.pixels.withUnsafeBytes { pixels in
                try encoder.encode(UnsafeRawBufferPointer(rebasing: pixels[(firstRow * width * 4)...]), width: width,
                                   height: min(rows, height - firstRow), bytesPerRow: width * 4, format: .jpeg, quality: 85)
            }
        }
        #expect(parts.count == strips)
        let joined = try JPEGStrips.join(parts, width: width, height: height, rowsPerStrip: rows)

        let bytes = [UInt8](joined)
        let markers = zip(bytes, bytes.dropFirst()).filter { $0.0 == 0xFF && (0xD0...0xD7).contains($0.1) }.map(\.1)
        #expect(markers == (0..<(strips - 1)).map { 0xD0 + UInt8($0 % 8) })
        let decoded = try ImageDecoder.decode(joined)
        #expect(decoded.width == width && decoded.height == height)
        #expect(decoded == (try ImageDecoder.decode(whole)))

        let directory = TemporaryDirectory()
        func ffmpegPlanes(_ data: Data, _ name: String) throws -> [UInt8] {
            let path = directory.path + "/" + name
            try data.write(to: URL(fileURLWithPath: path))
            let frame = try #require(try FrameReader(path: path).nextFrame())
            #expect(frame.size == PixelSize(width: width, height: height))
            var planes = [UInt8](repeating: 0, count: frame.format.byteCount)
            planes.withUnsafeMutableBytes { frame.copyPlanes(into: $0) }
            return planes
        }
        #expect(try ffmpegPlanes(joined, "joined.jpg") == ffmpegPlanes(whole, "whole.jpg"))
    }

    @Test func stripsAreWholeMCURowsWithinTheRestartIntervalsReach() {
        // 3840 px: 240 MCUs a row; four strips of 225 rows round up to 15 MCU rows (240 px).
        #expect(JPEGStrips.rowsPerStrip(width: 3840, height: 900, count: 4, minimumPixels: 0) == 240)
        // No strip under the minimum: 1 Mpx at 3840 px is 18 MCU rows, so 12 strips of 225 MCU rows, not 16.
        #expect(JPEGStrips.rowsPerStrip(width: 3840, height: 3600, count: 16, minimumPixels: 1 << 20) == 19 * 16)
        // 65535 MCUs at most: at 65520 px (4095 MCUs a row) a strip is 16 MCU rows whatever the count.
        #expect(JPEGStrips.rowsPerStrip(width: 65520, height: 4096, count: 2, minimumPixels: 0) == 256)
        // At 8192 px (512 MCUs a row) 127 MCU rows at most: 270 need three strips, so four for two threads.
        #expect(JPEGStrips.rowsPerStrip(width: 8192, height: 4320, count: 2, minimumPixels: 0) == 68 * 16)
        // One strip: a picture of one MCU row, or a count of 1.
        #expect(JPEGStrips.rowsPerStrip(width: 3840, height: 16, count: 8, minimumPixels: 0) == nil)
        #expect(JPEGStrips.rowsPerStrip(width: 3840, height: 3600, count: 1, minimumPixels: 0) == nil)
        // A 640-px tile is under one strip's minimum.
        #expect(JPEGStrips.rowsPerStrip(width: 640, height: 360, count: 16, minimumPixels: 1 << 19) == nil)
    }
}
