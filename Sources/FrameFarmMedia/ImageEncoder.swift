import CDeflate
import CTurboJPEG
import Foundation
import FrameFarmCore

/// How PNG image data is deflated. Both take the same filtered rows and write valid zlib streams of them, so the
/// pixels are the same; only size and speed differ, and the bench times both (`bench --only preview`).
public enum PNGCompressor: String, Sendable, Hashable, CaseIterable {
    /// `PNGDeflater`: pixel runs and Huffman codes fitted per block, written for filtered pictures.
    case framefarm
    /// libdeflate at its fastest level: the well-kept library `PNGDeflater` must beat to earn its place.
    case libdeflate
}

/// RGBA pixels (rows of `bytesPerRow` bytes, alpha ignored: outputs are opaque) to PNG, JPEG or WebP bytes.
/// Owns a libjpeg-turbo handle and a PNG deflater; not thread-safe: use one encoder per thread.
public final class ImageEncoder {
    public let pngCompressor: PNGCompressor
    private var jpegHandle: tjhandle?
    private let deflater = PNGDeflater()
    private var libdeflate: OpaquePointer?
    /// PNG scratch (a block's worth of filtered rows, the deflated image), kept from image to image and never
    /// cleared: a fresh buffer costs a page fault per 4 KiB it touches, and zero-filled ones touch every page
    /// (deflate output rarely fills its worst-case bound). Fresh zeroed buffers per image were a fifth of a
    /// preview's page faults.
    private var filteredRows = UnsafeMutableRawBufferPointer(start: nil, count: 0)
    private var compressed = UnsafeMutableRawBufferPointer(start: nil, count: 0)

    public init(pngCompressor: PNGCompressor = .framefarm) {
        self.pngCompressor = pngCompressor
    }

    deinit {
        if let jpegHandle { tjDestroy(jpegHandle) }
        if let libdeflate { libdeflate_free_compressor(libdeflate) }
        filteredRows.deallocate()
        compressed.deallocate()
    }

    public func encode(_ pixels: UnsafeRawBufferPointer, width: Int, height: Int, bytesPerRow: Int,
                       format: ImageFormat, quality: Int = 85) throws -> Data {
        precondition(pixels.count >= bytesPerRow * (height - 1) + width * 4, "pixel buffer too small")
        try Self.checkSize(width: width, height: height, format: format)
        switch format {
        case .png: return try encodePNG(pixels, width: width, height: height, bytesPerRow: bytesPerRow)
        case .jpeg: return try encodeJPEG(pixels, width: width, height: height, bytesPerRow: bytesPerRow, quality: quality)
        case .webp: return try WebPCodec.encode(pixels, width: width, height: height, bytesPerRow: bytesPerRow,
                                                quality: quality)
        }
    }

    /// Refuses an image larger than `format` holds, in words a user can act on, before any encoder (or the join
    /// of strips, whose headers hold 16-bit sizes) sees it.
    public static func checkSize(width: Int, height: Int, format: ImageFormat) throws {
        guard max(width, height) > format.maxSide else { return }
        throw MediaError(call: "ImageEncoder", message: "a \(width)x\(height) image is larger than \(format.rawValue.uppercased()) "
                         + "allows (\(format.maxSide) px a side)")
    }

    /// Sets aside the scratch memory an image of `width` x `height` needs, so that encoding images up to that size
    /// in any order touches no fresh pages.
    public func reserve(width: Int, height: Int, format: ImageFormat) {
        guard format == .png else { return }
        let rowBytes = 1 + width * 3
        switch pngCompressor {
        case .framefarm:
            // The last row's filter may write 2 bytes past it.
            Self.grow(&filteredRows, to: PNGDeflater.runDistance + Self.rowsPerBlock(rowBytes: rowBytes) * rowBytes + 2)
            Self.grow(&compressed, to: PNGDeflater.bound(rowBytes * height))
        case .libdeflate:
            if libdeflate == nil { libdeflate = libdeflate_alloc_compressor(1) }
            Self.grow(&filteredRows, to: rowBytes * height + 2)
            Self.grow(&compressed, to: libdeflate_zlib_compress_bound(libdeflate, rowBytes * height))
        }
    }

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
        guard let jpegHandle else { throw MediaError(call: "tjInitCompress", message: "cannot create encoder") }
        var output: UnsafeMutablePointer<UInt8>?
        var size: UInt = 0
        let result = tjCompress2(jpegHandle, pixels.baseAddress!.assumingMemoryBound(to: UInt8.self), Int32(width),
                                 Int32(bytesPerRow), Int32(height), Int32(TJPF_RGBX.rawValue), &output, &size,
                                 Int32(TJSAMP_420.rawValue), Int32(min(100, max(1, quality))), TJFLAG_ACCURATEDCT)
        defer { tjFree(output) }
        guard result == 0, let output else {
            throw MediaError(call: "tjCompress2", message: String(cString: tjGetErrorStr2(jpegHandle)))
        }
        return Data(bytes: output, count: Int(size))
    }

    /// Rows `rows` of the image, as `JPEGStrips.join` (for JPEG) or `PNGStrips.join` (for PNG, by `PNGDeflater`)
    /// takes them to make one image of several strips encoded at once: a JPEG of those rows, or those rows'
    /// filtered bytes as a piece of the image's zlib stream (`PNGDeflater.Part`), then their Adler-32, 4 bytes
    /// big-endian. `pixels` is the whole image, since a PNG strip's first row is filtered against the row above.
    public func encodeStrip(_ pixels: UnsafeRawBufferPointer, width: Int, height: Int, bytesPerRow: Int,
                            rows: Range<Int>, format: ImageFormat, quality: Int = 85) throws -> Data {
        precondition(rows.lowerBound >= 0 && rows.upperBound <= height && !rows.isEmpty, "strip rows outside the image")
        switch format {
        case .png:
            precondition(pngCompressor == .framefarm, "only PNGDeflater writes a PNG in strips")
            reserve(width: width, height: rows.count, format: .png)
            let filtered = FilteredRows(source: pixels.baseAddress!.assumingMemoryBound(to: UInt8.self), width: width,
                                        bytesPerRow: bytesPerRow, rows: rows)
            var strip = Data(UnsafeRawBufferPointer(rebasing: compressed[..<deflateInBlocks(
                filtered, part: rows.upperBound == height ? .lastPiece : .piece)]))
            withUnsafeBytes(of: deflater.checksum.bigEndian) { strip.append(contentsOf: $0) }
            return strip
        case .jpeg, .webp:
            return try encode(UnsafeRawBufferPointer(rebasing: pixels[(rows.lowerBound * bytesPerRow)...]), width: width,
                              height: rows.count, bytesPerRow: bytesPerRow, format: format, quality: quality)
        }
    }

    /// PNG: 8-bit RGB, every row Up-filtered (the difference from the row above), the rows deflated into one
    /// IDAT by `pngCompressor`. The Up filter turns smooth pictures and letterbox bars into runs of small
    /// differences and zeros, which `PNGDeflater` codes as pixel repeats and short codes.
    private func encodePNG(_ pixels: UnsafeRawBufferPointer, width: Int, height: Int, bytesPerRow: Int) throws -> Data {
        reserve(width: width, height: height, format: .png)
        let rows = FilteredRows(source: pixels.baseAddress!.assumingMemoryBound(to: UInt8.self), width: width,
                                bytesPerRow: bytesPerRow, rows: 0..<height)
        let compressedCount = switch pngCompressor {
        case .framefarm: deflateInBlocks(rows, part: .whole)
        case .libdeflate: try deflateWithLibdeflate(rows)
        }
        return Self.pngFile(width: width, height: height,
                            zlibStream: UnsafeRawBufferPointer(rebasing: compressed[..<compressedCount]))
    }

    /// The PNG file of an RGB image whose filtered rows `zlibStream` holds: signature, IHDR, one IDAT, IEND.
    static func pngFile(width: Int, height: Int, zlibStream: UnsafeRawBufferPointer) -> Data {
        var png = Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])
        png.reserveCapacity(zlibStream.count + 64)
        var header = [UInt8]()
        for value in [UInt32(width), UInt32(height)] { withUnsafeBytes(of: value.bigEndian) { header += $0 } }
        header += [8, 2, 0, 0, 0]  // 8-bit, truecolour (RGB), deflate, adaptive filtering, no interlace
        header.withUnsafeBytes { appendChunk("IHDR", $0, to: &png) }
        appendChunk("IDAT", zlibStream, to: &png)
        appendChunk("IEND", UnsafeRawBufferPointer(start: nil, count: 0), to: &png)
        return png
    }

    /// Rows `rows` of the picture and how filtered rows are laid out.
    private struct FilteredRows {
        let source: UnsafePointer<UInt8>
        let width: Int, bytesPerRow: Int
        let rows: Range<Int>
        var rowBytes: Int { 1 + width * 3 }

        /// Filters `row` (of the picture) into `target`.
        func filter(_ row: Int, into target: UnsafeMutablePointer<UInt8>) {
            ImageEncoder.upFilter(source + row * bytesPerRow, above: row == 0 ? nil : source + (row - 1) * bytesPerRow,
                                  width: width, into: target)
        }
    }

    /// `PNGDeflater`, a deflate block of rows at a time: the rows are filtered into scratch that stays in cache,
    /// rather than all before deflating. Returns the compressed byte count.
    private func deflateInBlocks(_ rows: FilteredRows, part: PNGDeflater.Part) -> Int {
        let rowBytes = rows.rowBytes, rowsPerBlock = Self.rowsPerBlock(rowBytes: rowBytes)
        // The block's rows follow the last bytes of the block before, which runs may repeat.
        let history = PNGDeflater.runDistance
        let scratch = filteredRows.baseAddress!.assumingMemoryBound(to: UInt8.self)
        deflater.begin(into: compressed, inputCount: rowBytes * rows.rows.count, part: part)
        var y = rows.rows.lowerBound
        while y < rows.rows.upperBound {
            let count = min(rowsPerBlock, rows.rows.upperBound - y)
            for row in y..<(y + count) { rows.filter(row, into: scratch + history + (row - y) * rowBytes) }
            deflater.append(UnsafeRawBufferPointer(start: scratch + history, count: count * rowBytes),
                            isLast: y + count == rows.rows.upperBound)
            scratch.update(from: scratch + count * rowBytes, count: history)
            y += count
        }
        return deflater.end()
    }

    /// libdeflate's fastest level over all the filtered rows at once (it takes one buffer).
    private func deflateWithLibdeflate(_ rows: FilteredRows) throws -> Int {
        let scratch = filteredRows.baseAddress!.assumingMemoryBound(to: UInt8.self)
        for row in rows.rows { rows.filter(row, into: scratch + (row - rows.rows.lowerBound) * rows.rowBytes) }
        let count = libdeflate_zlib_compress(libdeflate, scratch, rows.rowBytes * rows.rows.count,
                                             compressed.baseAddress, compressed.count)
        guard count > 0 else { throw MediaError(call: "libdeflate_zlib_compress", message: "output did not fit") }
        return count
    }

    /// Whole rows of filtered bytes that fit in one deflate block (one at least).
    private static func rowsPerBlock(rowBytes: Int) -> Int { max(1, PNGDeflater.blockBytes / rowBytes) }

    /// One filtered row: the Up filter's type byte, then each RGB byte minus the one above it. The spec takes the
    /// row above the first as zeros, so the first is stored as is. Two pixels at a time in 64-bit words: each
    /// pair's 8-byte store lays down 6 bytes and 2 that the next pair (or, past the row's end, the next row or
    /// nothing) overwrites, so `out` needs 2 bytes beyond the row.
    fileprivate static func upFilter(_ row: UnsafePointer<UInt8>, above: UnsafePointer<UInt8>?, width: Int,
                                 into out: UnsafeMutablePointer<UInt8>) {
        out[0] = 2  // Up
        let source = UnsafeRawPointer(row), target = UnsafeMutableRawPointer(out + 1)
        let previous = above.map(UnsafeRawPointer.init)
        var x = 0
        while x + 2 <= width {
            var pair = source.loadUnaligned(fromByteOffset: 4 * x, as: UInt64.self)
            if let previous {
                pair = bytewiseDifference(pair, previous.loadUnaligned(fromByteOffset: 4 * x, as: UInt64.self))
            }
            // Little-endian RGBA RGBA to RGB RGB.
            let packed = pair & 0xFF_FFFF | (pair >> 8) & 0xFFFF_FF00_0000
            target.storeBytes(of: packed.littleEndian, toByteOffset: 3 * x, as: UInt64.self)
            x += 2
        }
        if x < width {
            for channel in 0..<3 {
                out[1 + 3 * x + channel] = row[4 * x + channel] &- (above?[4 * x + channel] ?? 0)
            }
        }
    }

    /// a - b in each of the eight bytes, wrapping, without borrowing across bytes.
    @inline(__always) private static func bytewiseDifference(_ a: UInt64, _ b: UInt64) -> UInt64 {
        let high: UInt64 = 0x8080_8080_8080_8080
        return ((a | high) &- (b & ~high)) ^ ((a ^ ~b) & high)
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
        // Given a nil buffer, libdeflate_crc32 returns its initial value, not `crc`: IEND's empty payload adds nothing.
        if let bytes = data.baseAddress, data.count > 0 { crc = libdeflate_crc32(crc, bytes, data.count) }
        withUnsafeBytes(of: crc.bigEndian) { png.append(contentsOf: $0) }
    }
}
