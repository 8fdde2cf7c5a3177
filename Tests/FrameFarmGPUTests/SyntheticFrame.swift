import FrameFarmCore
import Foundation
@testable import FrameFarmGPU

/// A frame made in the test: integer sample values per plane (as the codec would store them, before any bit
/// shift) and the bytes laid out as `format.packedPlanes`, written the way the media layer will.
struct SyntheticFrame {
    var format: FrameFormat
    /// Stored values: luma W x H, chroma chromaWidth x chromaHeight (empty for gray).
    var luma: [Int]
    var cb: [Int]
    var cr: [Int]

    /// Normalized functions: luma 0...1 over the legal range, chroma -0.5...0.5, of the plane pixel centre in
    /// luma pixel units (so chroma functions see the same picture).
    init(format: FrameFormat, luma lumaFunction: (Double, Double) -> Double,
         cb cbFunction: (Double, Double) -> Double = { _, _ in 0 },
         cr crFunction: (Double, Double) -> Double = { _, _ in 0 }) {
        self.format = format
        let bits = Double(format.bitDepth)
        let limited = format.color.range == .limited
        let step = pow(2, bits - 8)
        let maximum = pow(2, bits) - 1
        func lumaCode(_ v: Double) -> Int {
            let code = limited ? 16 * step + 219 * step * v : maximum * v
            return Int(min(max(code, 0), maximum).rounded())
        }
        func chromaCode(_ v: Double) -> Int {
            let code = limited ? 128 * step + 224 * step * v : pow(2, bits - 1) + maximum * v
            return Int(min(max(code, 0), maximum).rounded())
        }
        let width = format.width, height = format.height
        luma = (0..<height).flatMap { y in (0..<width).map { x in
            lumaCode(lumaFunction(Double(x) + 0.5, Double(y) + 0.5))
        } }
        if format.layout == .gray {
            cb = []
            cr = []
        } else {
            let sx = Double(format.chromaSubsamplingX), sy = Double(format.chromaSubsamplingY)
            let points = (0..<format.chromaHeight).flatMap { y in (0..<format.chromaWidth).map { x in
                ((Double(x) + 0.5) * sx, (Double(y) + 0.5) * sy)
            } }
            cb = points.map { chromaCode(cbFunction($0.0, $0.1)) }
            cr = points.map { chromaCode(crFunction($0.0, $0.1)) }
        }
    }

    /// A frame of one colour: stored Y, Cb, Cr codes.
    init(format: FrameFormat, codes: (y: Int, cb: Int, cr: Int)) {
        self.format = format
        luma = Array(repeating: codes.y, count: format.width * format.height)
        let chromaCount = format.layout == .gray ? 0 : format.chromaWidth * format.chromaHeight
        cb = Array(repeating: codes.cb, count: chromaCount)
        cr = Array(repeating: codes.cr, count: chromaCount)
    }

    var bytes: [UInt8] {
        var bytes = [UInt8](repeating: 0, count: format.byteCount)
        let planes = format.packedPlanes
        func put(_ value: Int, at offset: Int) {
            let stored = value << format.bitShift
            bytes[offset] = UInt8(stored & 0xFF)
            if format.bytesPerSample == 2 { bytes[offset + 1] = UInt8(stored >> 8) }
        }
        let bps = format.bytesPerSample
        for y in 0..<format.height {
            for x in 0..<format.width {
                put(luma[y * format.width + x], at: planes[0].byteOffset + y * planes[0].bytesPerRow + x * bps)
            }
        }
        guard format.layout != .gray else { return bytes }
        for y in 0..<format.chromaHeight {
            for x in 0..<format.chromaWidth {
                let index = y * format.chromaWidth + x
                if format.layout == .semiPlanar {
                    let row = planes[1].byteOffset + y * planes[1].bytesPerRow
                    put(cb[index], at: row + 2 * x * bps)
                    put(cr[index], at: row + (2 * x + 1) * bps)
                } else {
                    put(cb[index], at: planes[1].byteOffset + y * planes[1].bytesPerRow + x * bps)
                    put(cr[index], at: planes[2].byteOffset + y * planes[2].bytesPerRow + x * bps)
                }
            }
        }
        return bytes
    }

    var sourceFrame: SourceFrame {
        let bytes = self.bytes
        return SourceFrame(format: format) { destination in
            bytes.withUnsafeBytes { destination.copyMemory(from: $0) }
        }
    }

    /// The frame lending its planes (`SourceFrame.planes`) from memory that holds each plane's rows bottom-up,
    /// with a negative row stride, as decoders may: a host prefilter reads them there.
    var lentSourceFrame: SourceFrame {
        let bytes = self.bytes
        let memory = BottomUpPlanes(bytes, format: format)
        return SourceFrame(format: format, planes: memory.planes) { destination in
            withExtendedLifetime(memory) { bytes.withUnsafeBytes { destination.copyMemory(from: $0) } }
        }
    }
}

/// A frame's packed planes copied with their rows in reverse order.
private final class BottomUpPlanes {
    let storage: UnsafeMutableRawBufferPointer
    let planes: [PlaneMemory]

    init(_ bytes: [UInt8], format: FrameFormat) {
        storage = .allocate(byteCount: bytes.count, alignment: 16)
        var planes: [PlaneMemory] = []
        for plane in format.packedPlanes {
            let lastRow = plane.byteOffset + (plane.height - 1) * plane.bytesPerRow
            for row in 0..<plane.height {
                let from = plane.byteOffset + row * plane.bytesPerRow
                let to = lastRow - row * plane.bytesPerRow
                for offset in 0..<plane.bytesPerRow { storage[to + offset] = bytes[from + offset] }
            }
            planes.append(PlaneMemory(firstRow: UnsafeRawPointer(storage.baseAddress! + lastRow),
                                      bytesPerRow: -plane.bytesPerRow))
        }
        self.planes = planes
    }

    deinit { storage.deallocate() }
}

/// Formats by their FFmpeg names.
enum TestFormat: String, CaseIterable, CustomStringConvertible {
    case yuv420p, nv12, yuv422p, yuv444p, yuv420p10le, p010, gray

    var description: String { rawValue }

    func format(width: Int, height: Int, color: ColorDescription) -> FrameFormat {
        switch self {
        case .yuv420p:
            FrameFormat(layout: .planar, width: width, height: height, bytesPerSample: 1, bitDepth: 8,
                        chromaSubsamplingX: 2, chromaSubsamplingY: 2, color: color)
        case .nv12:
            FrameFormat(layout: .semiPlanar, width: width, height: height, bytesPerSample: 1, bitDepth: 8,
                        chromaSubsamplingX: 2, chromaSubsamplingY: 2, color: color)
        case .yuv422p:
            FrameFormat(layout: .planar, width: width, height: height, bytesPerSample: 1, bitDepth: 8,
                        chromaSubsamplingX: 2, chromaSubsamplingY: 1, color: color)
        case .yuv444p:
            FrameFormat(layout: .planar, width: width, height: height, bytesPerSample: 1, bitDepth: 8,
                        chromaSubsamplingX: 1, chromaSubsamplingY: 1, color: color)
        case .yuv420p10le:
            FrameFormat(layout: .planar, width: width, height: height, bytesPerSample: 2, bitDepth: 10,
                        chromaSubsamplingX: 2, chromaSubsamplingY: 2, color: color)
        case .p010:
            FrameFormat(layout: .semiPlanar, width: width, height: height, bytesPerSample: 2, bitDepth: 10,
                        bitShift: 6, chromaSubsamplingX: 2, chromaSubsamplingY: 2, color: color)
        case .gray:
            FrameFormat(layout: .gray, width: width, height: height, bytesPerSample: 1, bitDepth: 8,
                        chromaSubsamplingX: 1, chromaSubsamplingY: 1, color: color)
        }
    }
}
