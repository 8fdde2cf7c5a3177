import Foundation
import FrameFarmCore

/// One large baseline JPEG from strips encoded apart, on as many threads: a 3840x3600 sprite sheet or an 8K poster
/// is otherwise one thread's work while the other cores wait for it.
///
/// Each strip but the last is a whole number of MCU rows (16 pixel rows at 4:2:0), encoded as a JPEG of its own
/// with the same settings, so with the same quantisation and Huffman tables and with the DC predictions starting
/// from zero. That is exactly what a JPEG restart interval is (ITU-T T.81, F.1.1.5: at a restart marker the coder
/// pads the last byte with 1 bits and resets the predictions): the strips' entropy-coded data, laid end to end
/// with RST markers between them, under one header whose DRI gives the interval (a strip's MCU count) and whose
/// frame header the whole height, is the JPEG one encoder writes with that restart interval, and every decoder
/// reads it; the pixels are those of the image encoded whole.
public enum JPEGStrips {
    /// Pixel rows of one MCU row at 4:2:0.
    public static let mcuHeight = 16

    /// Rows per strip to cut a `width` x `height` image into `count` strips (fewer where a strip would be under
    /// `minimumPixels`), a multiple of `mcuHeight`; nil where that is one strip. Where DRI's 16 bits cannot count
    /// a strip's MCUs (an 8K picture in two strips), into more, a multiple of `count` so that each thread gets as
    /// many rows.
    public static func rowsPerStrip(width: Int, height: Int, count: Int, minimumPixels: Int) -> Int? {
        let mcuRows = (height + mcuHeight - 1) / mcuHeight, mcusPerRow = (width + mcuHeight - 1) / mcuHeight
        let minimumRows = max(1, (minimumPixels + width * mcuHeight - 1) / (width * mcuHeight))
        var strips = max(1, min(count, mcuRows / minimumRows))
        let reach = Int(UInt16.max) / mcusPerRow  // MCU rows a restart interval can hold
        let needed = (mcuRows + reach - 1) / reach
        if needed > strips { strips = (needed + max(1, count) - 1) / max(1, count) * max(1, count) }
        guard strips > 1 else { return nil }
        let rows = (mcuRows + strips - 1) / strips
        return rows < mcuRows ? rows * mcuHeight : nil
    }

    /// The strips, top to bottom (every one but the last `rowsPerStrip` rows high), as one JPEG `height` rows high.
    public static func join(_ strips: [Data], width: Int, height: Int, rowsPerStrip: Int) throws -> Data {
        precondition(!strips.isEmpty && rowsPerStrip % mcuHeight == 0)
        let parts = try strips.map(Parts.init)
        let first = parts[0]
        for part in parts.dropFirst() where part.header != first.header || part.scanHeader != first.scanHeader {
            throw MediaError(call: "JPEGStrips.join", message: "strips were encoded with different tables")
        }
        let interval = (width + mcuHeight - 1) / mcuHeight * (rowsPerStrip / mcuHeight)
        var jpeg = Data(first.header)
        // The frame header's number of lines (T.81 B.2.2): the SOF segment's bytes 5-6.
        jpeg[first.frameHeaderOffset + 5] = UInt8(height >> 8)
        jpeg[first.frameHeaderOffset + 6] = UInt8(height & 0xFF)
        jpeg.append(contentsOf: [0xFF, 0xDD, 0x00, 0x04, UInt8(interval >> 8), UInt8(interval & 0xFF)])  // DRI
        jpeg.append(first.scanHeader)
        for (index, part) in parts.enumerated() {
            if index > 0 { jpeg.append(contentsOf: [0xFF, 0xD0 + UInt8((index - 1) % 8)]) }  // RST0...RST7
            jpeg.append(part.entropyCodedData)
        }
        jpeg.append(contentsOf: [0xFF, 0xD9])  // EOI
        return jpeg
    }

    /// A baseline JPEG cut where its scan starts: the segments before the SOS marker (SOF's height zeroed, so
    /// that strips compare equal), the SOS segment, and the entropy-coded data up to EOI.
    private struct Parts {
        var header: Data
        var frameHeaderOffset: Int
        var scanHeader: Data
        var entropyCodedData: Data

        init(_ jpeg: Data) throws {
            let bytes = [UInt8](jpeg)
            func fail(_ why: String) -> MediaError { MediaError(call: "JPEGStrips.join", message: why) }
            guard bytes.count >= 4, bytes[0] == 0xFF, bytes[1] == 0xD8,
                  bytes[bytes.count - 2] == 0xFF, bytes[bytes.count - 1] == 0xD9 else { throw fail("a strip is not a JPEG") }
            var offset = 2, frameHeader: Int?
            while offset + 4 <= bytes.count, bytes[offset] == 0xFF {
                let marker = bytes[offset + 1], length = Int(bytes[offset + 2]) << 8 | Int(bytes[offset + 3])
                if marker == 0xC0 || marker == 0xC1 { frameHeader = offset }  // sequential Huffman: baseline, extended
                if (0xC2...0xCF).contains(marker) && marker != 0xC4 && marker != 0xC8 && marker != 0xCC || marker == 0xDD {
                    throw fail("a strip is not sequential Huffman without restarts")
                }
                if marker == 0xDA {
                    guard let frameHeader, offset + 2 + length <= bytes.count - 2 else { throw fail("a strip has no frame") }
                    header = Data(bytes[..<offset])
                    header[frameHeader + 5] = 0
                    header[frameHeader + 6] = 0
                    frameHeaderOffset = frameHeader
                    scanHeader = Data(bytes[offset..<(offset + 2 + length)])
                    entropyCodedData = Data(bytes[(offset + 2 + length)..<(bytes.count - 2)])
                    return
                }
                offset += 2 + length
            }
            throw fail("a strip has no scan")
        }
    }
}
