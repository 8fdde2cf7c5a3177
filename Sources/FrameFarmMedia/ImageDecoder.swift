import CDeflate
import CPNG
import CTurboJPEG
import Foundation
import FrameFarmCore

/// Reads PNG, JPEG and WebP files back to RGBA: used to validate outputs when resuming a batch, and by the tests.
public enum ImageDecoder {
    public static func decode(_ data: Data) throws -> RGBAImage {
        if data.starts(with: [0x89, 0x50, 0x4E, 0x47]) { return try decodePNG(data) }
        if data.starts(with: [0xFF, 0xD8]) { return try decodeJPEG(data) }
        if WebPCodec.isWebP(data) { return try WebPCodec.decode(data) }
        throw MediaError(call: "decode", message: "neither PNG, JPEG nor WebP")
    }

    private static func decodePNG(_ data: Data) throws -> RGBAImage {
        try checkPNGChunks(data)
        var image = png_image()
        image.version = png_uint_32(PNG_IMAGE_VERSION)
        let began = data.withUnsafeBytes { png_image_begin_read_from_memory(&image, $0.baseAddress, $0.count) }
        guard began != 0 else { throw pngError(&image, "png_image_begin_read_from_memory") }
        image.format = png_uint_32(PNG_FORMAT_RGB | PNG_FORMAT_FLAG_ALPHA)
        let width = Int(image.width), height = Int(image.height)
        var pixels = [UInt8](repeating: 0, count: width * height * 4)
        let finished = pixels.withUnsafeMutableBytes { buffer in
            png_image_finish_read(&image, nil, buffer.baseAddress, Int32(width * 4), nil)
        }
        guard finished != 0 else { throw pngError(&image, "png_image_finish_read") }
        return RGBAImage(width: width, height: height, pixels: pixels)
    }

    /// libpng's simplified reader stops after the image data, so a bad chunk after it (an IEND with a wrong CRC,
    /// which libpng's full reader and ImageMagick refuse) would pass: every chunk's CRC and the file's end are
    /// checked here, as `pngcheck` does.
    static func checkPNGChunks(_ data: Data) throws {
        func fail(_ message: String) -> MediaError { MediaError(call: "PNG chunk check", message: message) }
        try data.withUnsafeBytes { (bytes: UnsafeRawBufferPointer) in
            func word(at offset: Int) -> Int {
                (0..<4).reduce(0) { $0 << 8 | Int(bytes[offset + $1]) }
            }
            var offset = 8
            var types: [String] = []
            while offset < bytes.count {
                guard offset + 12 <= bytes.count else { throw fail("chunk header cut short at byte \(offset)") }
                let length = word(at: offset)
                let end = offset + 12 + length
                guard length <= Int(Int32.max), end <= bytes.count else { throw fail("chunk cut short at byte \(offset)") }
                let type = String(decoding: bytes[(offset + 4)..<(offset + 8)], as: UTF8.self)
                // Type and payload are contiguous, so the CRC is taken in one call over a non-empty buffer.
                let crc = libdeflate_crc32(0, bytes.baseAddress! + offset + 4, 4 + length)
                guard crc == UInt32(word(at: offset + 8 + length)) else { throw fail("\(type): CRC error") }
                types.append(type)
                offset = end
                if type == "IEND" { break }
            }
            guard types.first == "IHDR" else { throw fail("first chunk is not IHDR") }
            guard types.last == "IEND" else { throw fail("no IEND chunk") }
            guard offset == bytes.count else { throw fail("\(bytes.count - offset) bytes after IEND") }
        }
    }

    private static func decodeJPEG(_ data: Data) throws -> RGBAImage {
        guard let handle = tjInitDecompress() else { throw MediaError(call: "tjInitDecompress", message: "") }
        defer { tjDestroy(handle) }
        var width: Int32 = 0, height: Int32 = 0, subsampling: Int32 = 0, colorspace: Int32 = 0
        let header = data.withUnsafeBytes { buffer in
            tjDecompressHeader3(handle, buffer.baseAddress!.assumingMemoryBound(to: UInt8.self), UInt(buffer.count),
                                &width, &height, &subsampling, &colorspace)
        }
        guard header == 0 else {
            throw MediaError(call: "tjDecompressHeader3", message: String(cString: tjGetErrorStr2(handle)))
        }
        var pixels = [UInt8](repeating: 0, count: Int(width) * Int(height) * 4)
        let result = data.withUnsafeBytes { source in
            pixels.withUnsafeMutableBytes { target in
                tjDecompress2(handle, source.baseAddress!.assumingMemoryBound(to: UInt8.self), UInt(source.count),
                              target.baseAddress!.assumingMemoryBound(to: UInt8.self), width, width * 4, height,
                              Int32(TJPF_RGBA.rawValue), TJFLAG_ACCURATEDCT | TJFLAG_STOPONWARNING)
            }
        }
        guard result == 0 else {
            throw MediaError(call: "tjDecompress2", message: String(cString: tjGetErrorStr2(handle)))
        }
        return RGBAImage(width: Int(width), height: Int(height), pixels: pixels)
    }
}

func pngError(_ image: inout png_image, _ call: String) -> MediaError {
    let message = withUnsafeBytes(of: &image.message) { buffer in
        String(decoding: buffer.prefix { $0 != 0 }, as: UTF8.self)
    }
    png_image_free(&image)
    return MediaError(call: call, message: message)
}
