import CDeflate
import CTurboJPEG
import Foundation
import FrameFarmCore

/// RGBA pixels (rows of `bytesPerRow` bytes, alpha ignored: outputs are opaque) to PNG, JPEG or WebP bytes.
/// Owns a libjpeg-turbo handle and a PNG deflater; not thread-safe: use one encoder per thread.
public final class ImageEncoder {
    private var jpegHandle: tjhandle?
    private let deflater = PNGDeflater()
    /// PNG scratch (filtered rows, deflated bytes), kept from image to image and never cleared: a fresh buffer
    /// costs a page fault per 4 KiB it touches, and zero-filled ones touch every page (deflate output rarely
    /// fills its worst-case bound). Fresh zeroed buffers per image were a fifth of a preview's page faults.
    private var filtered = UnsafeMutableRawBufferPointer(start: nil, count: 0)
    private var compressed = UnsafeMutableRawBufferPointer(start: nil, count: 0)

    public init() {}

    deinit {
        if let jpegHandle { tjDestroy(jpegHandle) }
        filtered.deallocate()
        compressed.deallocate()
    }

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

    /// Sets aside the scratch memory an image of `width` x `height` needs, so that encoding images up to that size
    /// in any order touches no fresh pages.
    public func reserve(width: Int, height: Int, format: ImageFormat) {
        guard format == .png else { return }
        let filteredCount = (1 + width * 3) * height
        Self.grow(&filtered, to: filteredCount)
        Self.grow(&compressed, to: PNGDeflater.bound(filteredCount))
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

    /// PNG: 8-bit RGB, every row Up-filtered (the difference from the row above), the rows deflated by
    /// `PNGDeflater` into one IDAT. The Up filter turns smooth pictures and letterbox bars into runs of small
    /// differences and zeros, which the deflater codes as pixel repeats and short codes.
    private func encodePNG(_ pixels: UnsafeRawBufferPointer, width: Int, height: Int, bytesPerRow: Int) throws -> Data {
        reserve(width: width, height: height, format: .png)
        let rowBytes = 1 + width * 3
        let filteredCount = rowBytes * height
        // Up on every row: the spec takes the row above the first as zeros, so the first is stored as is.
        let zeros = [UInt8](repeating: 0, count: width * 4)
        zeros.withUnsafeBufferPointer { zeroRow in
            let source = pixels.baseAddress!.assumingMemoryBound(to: UInt8.self)
            let target = filtered.baseAddress!.assumingMemoryBound(to: UInt8.self)
            for y in 0..<height {
                let row = source + y * bytesPerRow
                let above = y == 0 ? zeroRow.baseAddress! : row - bytesPerRow
                let out = target + y * rowBytes
                out[0] = 2  // Up
                for x in 0..<width {
                    out[1 + 3 * x] = row[4 * x] &- above[4 * x]
                    out[2 + 3 * x] = row[4 * x + 1] &- above[4 * x + 1]
                    out[3 + 3 * x] = row[4 * x + 2] &- above[4 * x + 2]
                }
            }
        }
        let compressedCount = deflater.compress(UnsafeRawBufferPointer(rebasing: filtered[..<filteredCount]),
                                                into: compressed)
        var png = Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])
        png.reserveCapacity(compressedCount + 64)
        var header = [UInt8]()
        for value in [UInt32(width), UInt32(height)] { withUnsafeBytes(of: value.bigEndian) { header += $0 } }
        header += [8, 2, 0, 0, 0]  // 8-bit, truecolour (RGB), deflate, adaptive filtering, no interlace
        header.withUnsafeBytes { Self.appendChunk("IHDR", $0, to: &png) }
        Self.appendChunk("IDAT", UnsafeRawBufferPointer(rebasing: compressed[..<compressedCount]), to: &png)
        Self.appendChunk("IEND", UnsafeRawBufferPointer(start: nil, count: 0), to: &png)
        return png
    }

    private static func grow(_ buffer: inout UnsafeMutableRawBufferPointer, to count: Int) {
        guard buffer.count < count else { return }
        buffer.deallocate()
        buffer = .allocate(byteCount: count, alignment: 64)
    }

    /// Length, type, data and the CRC-32 of type and data (PNG spec, 5.3).
    private static func appendChunk(_ type: String, _ data: UnsafeRawBufferPointer, to png: inout Data) {
        let typeBytes = Array(type.utf8)
        withUnsafeBytes(of: UInt32(data.count).bigEndian) { png.append(contentsOf: $0) }
        png.append(contentsOf: typeBytes)
        png.append(contentsOf: data)
        var crc = typeBytes.withUnsafeBytes { libdeflate_crc32(0, $0.baseAddress, $0.count) }
        crc = libdeflate_crc32(crc, data.baseAddress, data.count)
        withUnsafeBytes(of: crc.bigEndian) { png.append(contentsOf: $0) }
    }
}
