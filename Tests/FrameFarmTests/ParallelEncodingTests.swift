import Foundation
import FrameFarmCore
import FrameFarmMedia
import Testing
@testable import FrameFarm

@Suite struct ParallelEncodingTests {
    /// Hashed noise over gradients: every JPEG block differs, so a strip out of place changes pixels.
    private func picture(width: Int, height: Int, seed: Int) -> RGBAImage {
        var image = RGBAImage(width: width, height: height)
        for y in 0..<height {
            for x in 0..<width {
                let noise = UInt8(truncatingIfNeeded: (x &* 2_654_435_761 ^ y &* 40_503 ^ seed) >> 7) & 63
                let offset = (y * width + x) * 4
                image.pixels[offset] = UInt8(x * 190 / width) &+ noise
                image.pixels[offset + 1] = UInt8(y * 190 / height) &+ noise
                image.pixels[offset + 2] = UInt8(truncatingIfNeeded: seed * 40) &+ noise
                image.pixels[offset + 3] = 255
            }
        }
        return image
    }

    /// Images of every kind in one call, with four encoders: each result is its own image (in order), a large
    /// JPEG comes back in strips joined with restart markers, and every JPEG decodes to exactly the pixels of
    /// that image encoded whole by one encoder; every PNG is lossless, the large one in strips (not the bytes
    /// one encoder writes for it whole), the small one whole.
    @Test func eachImageComesBackInOrderAndAsEncodedWhole() throws {
        let sizes = [(1500, 900, ImageFormat.jpeg), (160, 90, .jpeg), (700, 500, .png), (1200, 1000, .jpeg), (1400, 900, .png)]
        let images = sizes.enumerated().map { picture(width: $1.0, height: $1.1, seed: $0) }
        let requests = zip(images, sizes).map { image, size in
            EncodeRequest(width: image.width, height: image.height, bytesPerRow: image.width * 4, format: size.2,
                          quality: 80) { body in try image.pixels.withUnsafeBytes { try body($0) } }
        }
        let encoded = try ParallelBatch.encode(requests, with: EncoderPool(count: 4))
        #expect(encoded.count == images.count)
        let encoder = ImageEncoder()
        for (index, (image, size)) in zip(images, sizes).enumerated() {
            let decoded = try ImageDecoder.decode(encoded[index])
            guard size.2 == .jpeg else {
                #expect(decoded == image, "image \(index)")
                let inStrips = encoded[index] != (try encoder.encode(image, format: .png))
                #expect(inStrips == (index == 4), "image \(index)")
                continue
            }
            #expect(decoded == (try ImageDecoder.decode(try encoder.encode(image, format: .jpeg, quality: 80))),
                    "image \(index)")
            let bytes = [UInt8](encoded[index])
            let restarts = zip(bytes, bytes.dropFirst()).filter { $0.0 == 0xFF && (0xD0...0xD7).contains($0.1) }.count
            // The two large JPEGs (over two strips' minimum) come in two strips each, the small one whole.
            #expect(restarts == (index == 1 ? 0 : 1), "image \(index): \(restarts) restart markers")
        }
    }
}
