/// An 8-bit RGBA picture with tightly packed rows (width * 4 bytes); what encoders take and decoders give.
public struct RGBAImage: Sendable, Equatable {
    public var width: Int
    public var height: Int
    public var pixels: [UInt8]

    public init(width: Int, height: Int, pixels: [UInt8]) {
        precondition(pixels.count == width * height * 4, "pixel count must be width * height * 4")
        self.width = width
        self.height = height
        self.pixels = pixels
    }

    public init(width: Int, height: Int, fill: (red: UInt8, green: UInt8, blue: UInt8, alpha: UInt8) = (0, 0, 0, 255)) {
        self.width = width
        self.height = height
        pixels = [UInt8](repeating: 0, count: width * height * 4)
        for index in stride(from: 0, to: pixels.count, by: 4) {
            pixels[index] = fill.red
            pixels[index + 1] = fill.green
            pixels[index + 2] = fill.blue
            pixels[index + 3] = fill.alpha
        }
    }

    public var size: PixelSize { PixelSize(width: width, height: height) }

    public func pixel(x: Int, y: Int) -> (red: UInt8, green: UInt8, blue: UInt8, alpha: UInt8) {
        let offset = (y * width + x) * 4
        return (pixels[offset], pixels[offset + 1], pixels[offset + 2], pixels[offset + 3])
    }

    /// Rec. 709 luma of a pixel, 0...255 (for brightness tests and frame-code reading).
    public func luma(x: Int, y: Int) -> Double {
        let offset = (y * width + x) * 4
        return 0.2126 * Double(pixels[offset]) + 0.7152 * Double(pixels[offset + 1]) + 0.0722 * Double(pixels[offset + 2])
    }

    /// The frame number drawn by `framefarm sample`, read from a rect of this image (the whole image by default).
    public func frameCode(in rect: PixelRect? = nil) -> Int? {
        FrameCode.read(rgba: pixels, rowPixels: width, rect: rect ?? PixelRect(size: size))
    }
}
