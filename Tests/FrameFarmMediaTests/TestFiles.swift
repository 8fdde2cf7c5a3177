import CDeflate
import Foundation
import FrameFarmCore
@testable import FrameFarmMedia
import FrameFarmSamples

/// A temporary folder per test, removed when the value goes away.
final class TemporaryDirectory {
    let path: String

    init() {
        path = NSTemporaryDirectory() + "framefarm-media-\(UUID().uuidString)"
        try! FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(atPath: path) }

    func file(_ name: String) -> String { path + "/" + name }
}

/// Makes a small sample (ultrafast preset) and returns its path.
func makeSample(in directory: TemporaryDirectory, name: String = "sample.mp4",
                _ configure: (inout SampleOptions) -> Void = { _ in }) throws -> String {
    var options = SampleOptions()
    options.size = PixelSize(width: 320, height: 180)
    options.durationSeconds = 2
    options.preset = "ultrafast"
    configure(&options)
    let path = directory.file(name)
    try SampleVideoWriter.write(to: path, options: options)
    return path
}

/// Reads the frame code from a decoded frame's luma plane (coded orientation).
func readFrameCode(_ frame: DecodedFrame, content: PixelRect? = nil) -> Int? {
    let rect = content ?? PixelRect(size: frame.size)
    return frame.withLumaPlane { base, bytesPerRow in
        FrameCode.read(width: rect.width, height: rect.height) { x, y in
            let offset = (rect.y + y) * bytesPerRow + (rect.x + x) * frame.format.bytesPerSample
            let raw = frame.format.bytesPerSample == 1
                ? Double(base.load(fromByteOffset: offset, as: UInt8.self))
                : Double(base.loadUnaligned(fromByteOffset: offset, as: UInt16.self) >> frame.format.bitShift) / 4
            return frame.format.color.range == .full ? raw : (raw - 16) * 255 / 219
        }
    }
}

/// A zlib stream inflated by libdeflate, which checks its Adler-32: nil unless it is one whole stream of at most
/// `count` bytes.
func inflateZlib(_ stream: [UInt8], expecting count: Int) -> [UInt8]? {
    guard let inflater = libdeflate_alloc_decompressor() else { return nil }
    defer { libdeflate_free_decompressor(inflater) }
    var output = [UInt8](repeating: 0, count: count + 1)
    var written = 0
    let result = stream.withUnsafeBytes { input in
        output.withUnsafeMutableBytes {
            libdeflate_zlib_decompress(inflater, input.baseAddress, input.count, $0.baseAddress, $0.count, &written)
        }
    }
    return result == LIBDEFLATE_SUCCESS ? Array(output.prefix(written)) : nil
}
