import Foundation
import FrameFarm

/// Turns JPEG/PNG outputs and video frames into pixels through the ffmpeg CLI: the engine's public surface has
/// no image decoder and no decoded-frame access (see the report's "Not measured"), so checking outputs and
/// building references needs ffmpeg; without it they are reported as not checked.
struct ImageDecoding {
    let ffmpeg: FFmpegPeer

    /// An 8-bit RGBA picture from a JPEG or PNG file.
    func decodeImage(_ path: String) throws -> RGBAImage {
        let data = try Data(contentsOf: URL(fileURLWithPath: path))
        guard let size = ImageHeader.size(of: data) else { throw BenchError("\(path): not a JPEG or PNG") }
        let pixels = try raw(["-i", path, "-f", "rawvideo", "-pix_fmt", "rgba", "-"])
        guard pixels.count == size.width * size.height * 4 else { throw BenchError("\(path): decoded size mismatch") }
        return RGBAImage(width: size.width, height: size.height, pixels: [UInt8](pixels))
    }

    /// Frame number `frame` of `clip` at full display size as 16-bit RGB converted with the clip's colour matrix
    /// and range, accurate rounding and full chroma interpolation: the input of the float reference.
    func decodeFrame(clip: BenchClip, frame: Int) throws -> FloatImage {
        // Seek half a frame early: ffmpeg's input seek gives the first frame at or after the time.
        let time = max(0, (Double(frame) - 0.5) / clip.frameRate)
        let scale = "scale=w=\(clip.displayWidth):h=\(clip.displayHeight):in_color_matrix=\(Self.matrix(clip.colorMatrix))"
            + ":in_range=\(Self.range(clip.colorRange)):flags=lanczos+accurate_rnd+full_chroma_int+full_chroma_inp"
        let bytes = try raw(["-ss", Format.number(time, digits: 4), "-i", clip.path, "-frames:v", "1", "-vf", scale,
                             "-f", "rawvideo", "-pix_fmt", "rgb48le", "-"])
        let count = clip.displayWidth * clip.displayHeight * 3
        guard bytes.count == count * 2 else { throw BenchError("\(clip.path): frame \(frame) did not decode") }
        var values = [Float](repeating: 0, count: count)
        bytes.withUnsafeBytes { buffer in
            for index in 0..<count {
                values[index] = Float(buffer.loadUnaligned(fromByteOffset: index * 2, as: UInt16.self).littleEndian) / 257
            }
        }
        return FloatImage(width: clip.displayWidth, height: clip.displayHeight, values: values)
    }

    private func raw(_ arguments: [String]) throws -> Data {
        let result = try CommandRunner.run(ffmpeg.executable, ["-v", "error", "-nostdin"] + arguments,
                                           captureOutput: true)
        guard result.succeeded else {
            throw CommandFailure(command: "ffmpeg", status: result.status, message: result.standardError)
        }
        return result.standardOutput
    }

    static func matrix(_ name: String) -> String {
        if name.contains("2020") { return "bt2020" }
        if name.contains("601") || name.contains("170m") || name.contains("470") { return "bt601" }
        return "bt709"
    }

    static func range(_ name: String) -> String {
        ["pc", "full", "jpeg"].contains(name.lowercased()) ? "full" : "limited"
    }
}

/// Width and height from a PNG's IHDR or a JPEG's start-of-frame marker.
enum ImageHeader {
    static func size(of data: Data) -> PixelSize? {
        let bytes = [UInt8](data.prefix(min(data.count, 1 << 16)))
        if bytes.count > 24, bytes[0] == 0x89, bytes[1] == 0x50 {
            return PixelSize(width: bigEndian(bytes, 16, 4), height: bigEndian(bytes, 20, 4))
        }
        guard bytes.count > 4, bytes[0] == 0xFF, bytes[1] == 0xD8 else { return nil }
        var offset = 2
        while offset + 9 < bytes.count {
            guard bytes[offset] == 0xFF else { return nil }
            let marker = bytes[offset + 1]
            if (0xC0...0xCF).contains(marker), ![0xC4, 0xC8, 0xCC].contains(marker) {
                return PixelSize(width: bigEndian(bytes, offset + 7, 2), height: bigEndian(bytes, offset + 5, 2))
            }
            offset += 2 + bigEndian(bytes, offset + 2, 2)
        }
        return nil
    }

    private static func bigEndian(_ bytes: [UInt8], _ offset: Int, _ count: Int) -> Int {
        (0..<count).reduce(0) { $0 << 8 | Int(bytes[offset + $1]) }
    }
}
