import Foundation
import FrameFarmCore

/// One large PNG from strips encoded apart, on as many threads: a 5K preview render or a PNG sprite sheet is
/// otherwise one thread's work while the other cores wait for it.
///
/// A PNG's rows are one zlib stream, and `PNGDeflater`'s runs look back one pixel only, never before the data it
/// was given. So each strip's filtered rows (its first row filtered against the row above, as in the whole image)
/// deflate on their own into a piece of raw deflate data ending on a byte boundary (`PNGDeflater.Part`). Laid end
/// to end between the zlib header and the Adler-32 of all the rows (combined from the strips' own), they are one
/// valid stream of the image's filtered rows: the same pixels, and a few bytes more than one stream would be.
public enum PNGStrips {
    /// Rows per strip to cut a `width` x `height` image into `count` strips (fewer where a strip would be under
    /// `minimumPixels`); nil where that is one strip.
    public static func rowsPerStrip(width: Int, height: Int, count: Int, minimumPixels: Int) -> Int? {
        let strips = max(1, min(count, width * height / max(1, minimumPixels), height))
        guard strips > 1 else { return nil }
        return (height + strips - 1) / strips
    }

    /// The strips from `ImageEncoder.encodeStrip`, top to bottom (every one but the last `rowsPerStrip` rows
    /// high), as one PNG.
    public static func join(_ strips: [Data], width: Int, height: Int, rowsPerStrip: Int) throws -> Data {
        precondition(!strips.isEmpty && rowsPerStrip > 0)
        guard (strips.count - 1) * rowsPerStrip < height, strips.count * rowsPerStrip >= height else {
            throw MediaError(call: "PNGStrips.join", message: "\(strips.count) strips of \(rowsPerStrip) rows are not \(height) rows")
        }
        let rowBytes = 1 + width * 3
        var stream = Data(PNGDeflater.zlibHeader)
        stream.reserveCapacity(strips.reduce(6) { $0 + $1.count })
        var checksum: UInt32 = 1
        for (index, strip) in strips.enumerated() {
            guard strip.count > 4 else { throw MediaError(call: "PNGStrips.join", message: "strip \(index) is empty") }
            let rows = min(rowsPerStrip, height - index * rowsPerStrip)
            let stripChecksum = strip.suffix(4).reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
            checksum = PNGDeflater.combinedChecksum(checksum, stripChecksum, secondCount: rows * rowBytes)
            stream.append(strip.prefix(strip.count - 4))
        }
        withUnsafeBytes(of: checksum.bigEndian) { stream.append(contentsOf: $0) }
        return stream.withUnsafeBytes { ImageEncoder.pngFile(width: width, height: height, zlibStream: $0) }
    }
}
