import CPNG
import CTurboJPEG
import Foundation
import FrameFarmCore

/// RGBA pixels (rows of `bytesPerRow` bytes, alpha ignored: outputs are opaque) to PNG, JPEG or WebP bytes.
/// Owns a libjpeg-turbo handle; not thread-safe: use one encoder per thread.
public final class ImageEncoder {
    private var jpegHandle: tjhandle?

    public init() {}

    deinit { if let jpegHandle { tjDestroy(jpegHandle) } }

    public func encode(_ pixels: UnsafeRawBufferPointer, width: Int, height: Int, bytesPerRow: Int,
                       format: ImageFormat, quality: Int = 85) throws -> Data {
        precondition(pixels.count >= bytesPerRow * (height - 1) + width * 4, "pixel buffer too small")
        switch format {
        case .png: return try encodePNG(pixels, width: width, height: height, bytesPerRow: bytesPerRow)
        case .jpeg: return try encodeJPEG(pixels, width: width, height: height, bytesPerRow: bytesPerRow, quality: quality)
        case .webp: return try WebPCodec.encode(pixels, width: width, height: height, bytesPerRow: bytesPerRow,
                                                quality: quality)
        }
    }

    /// Whether this FFmpeg can write WebP (Debian's can: it is built with libwebp).
    public static var canEncodeWebP: Bool { WebPCodec.canEncode }

    public func encode(_ image: RGBAImage, format: ImageFormat, quality: Int = 85) throws -> Data {
        try image.pixels.withUnsafeBytes {
            try encode($0, width: image.width, height: image.height, bytesPerRow: image.width * 4,
                       format: format, quality: quality)
        }
    }

    /// JPEG, 4:2:0 chroma, accurate DCT.
    private func encodeJPEG(_ pixels: UnsafeRawBufferPointer, width: Int, height: Int, bytesPerRow: Int,
                            quality: Int) throws -> Data {
        if jpegHandle == nil { jpegHandle = tjInitCompress() }
        guard let jpegHandle else { throw MediaError(call: "tjInitCompress", code: -1, message: "cannot create encoder") }
        var output: UnsafeMutablePointer<UInt8>?
        var size: UInt = 0
        let result = tjCompress2(jpegHandle, pixels.baseAddress!.assumingMemoryBound(to: UInt8.self), Int32(width),
                                 Int32(bytesPerRow), Int32(height), Int32(TJPF_RGBX.rawValue), &output, &size,
                                 Int32(TJSAMP_420.rawValue), Int32(min(100, max(1, quality))), TJFLAG_ACCURATEDCT)
        defer { tjFree(output) }
        guard result == 0, let output else {
            throw MediaError(call: "tjCompress2", code: result, message: String(cString: tjGetErrorStr2(jpegHandle)))
        }
        return Data(bytes: output, count: Int(size))
    }

    /// PNG via libpng's simplified API (no setjmp error handling to bridge); RGB, fast zlib settings.
    private func encodePNG(_ pixels: UnsafeRawBufferPointer, width: Int, height: Int, bytesPerRow: Int) throws -> Data {
        var rgb = [UInt8](repeating: 0, count: width * height * 3)
        rgb.withUnsafeMutableBufferPointer { target in
            for y in 0..<height {
                let row = pixels.baseAddress! + y * bytesPerRow
                for x in 0..<width {
                    let source = row + x * 4, destination = (y * width + x) * 3
                    target[destination] = source.load(as: UInt8.self)
                    target[destination + 1] = source.load(fromByteOffset: 1, as: UInt8.self)
                    target[destination + 2] = source.load(fromByteOffset: 2, as: UInt8.self)
                }
            }
        }
        var image = png_image()
        image.version = png_uint_32(PNG_IMAGE_VERSION)
        image.width = png_uint_32(width)
        image.height = png_uint_32(height)
        image.format = png_uint_32(PNG_FORMAT_RGB)
        image.flags = png_uint_32(PNG_IMAGE_FLAG_FAST)
        // Compress once into a buffer of libpng's worst-case size (png.h, PNG_IMAGE_PNG_SIZE_MAX): asking libpng
        // for the size first would run the whole compression twice.
        var size = png_alloc_size_t(Self.pngSizeBound(width: width, height: height))
        var data = Data(count: Int(size))
        var written = data.withUnsafeMutableBytes { buffer in
            png_image_write_to_memory(&image, buffer.baseAddress, &size, 0, rgb, Int32(width * 3), nil)
        }
        if written == 0 && Int(size) > data.count {
            // Another zlib could exceed the bound: libpng reported the size it needs.
            data = Data(count: Int(size))
            written = data.withUnsafeMutableBytes { buffer in
                png_image_write_to_memory(&image, buffer.baseAddress, &size, 0, rgb, Int32(width * 3), nil)
            }
        }
        guard written != 0 else { throw pngError(&image, "png_image_write_to_memory") }
        data.count = Int(size)
        return data
    }

    /// An upper bound on an 8-bit RGB PNG's size: zlib's deflateBound of the filtered rows plus every chunk.
    static func pngSizeBound(width: Int, height: Int) -> Int {
        let rows = (width * 3 + 1) * height
        let compressed = rows + (rows + 7) / 8 + (rows + 63) / 64 + 11
        return 8 + 25 + 16 + 44 + 12 + 12 + 12 * (compressed / 8192 + 1) + compressed
    }
}

func pngError(_ image: inout png_image, _ call: String) -> MediaError {
    let message = withUnsafeBytes(of: &image.message) { buffer in
        String(decoding: buffer.prefix { $0 != 0 }, as: UTF8.self)
    }
    png_image_free(&image)
    return MediaError(call: call, code: -1, message: message)
}
