import Foundation
import FrameFarm

/// Checks what the timed thumbnail runs wrote (each tile's frame code against the frame it should show) and
/// scores sampled tiles against the float reference of the frame each tile actually shows.
final class ThumbnailQuality {
    let clip: BenchClip
    let decoder: ImageDecoding
    let samples: Int
    let exact: Bool
    /// Scaled references by (frame, tile width, tile height): decoding a frame deep in a GOP is the slow part.
    private var references: [String: FloatImage] = [:]

    init(clip: BenchClip, decoder: ImageDecoding, samples: Int, exact: Bool) {
        self.clip = clip
        self.decoder = decoder
        self.samples = samples
        self.exact = exact
    }

    /// A tile: the picture it is in and its rect.
    private struct Tile {
        var image: RGBAImage
        var rect: PixelRect
    }

    func checkFrameFarm(_ measurement: inout Measurement, section: ThumbnailsSection, folder: String) {
        do {
            let sheets = try section.sheets.map { try decoder.decodeImage(folder + "/" + $0) }
            measurement.outputBytes = Format.totalBytes(section.sheets.map { folder + "/" + $0 })
            let perSheet = section.columns * section.rows
            let tiles = (0..<section.count).map { index -> Tile in
                let within = index % perSheet
                return Tile(image: sheets[index / perSheet],
                            rect: PixelRect(x: within % section.columns * section.tileWidth,
                                            y: within / section.columns * section.tileHeight,
                                            width: section.tileWidth, height: section.tileHeight))
            }
            var matches = 0
            var onTime = 0
            for (index, tile) in tiles.enumerated() {
                let time = section.frameTimes[index]
                if tile.image.frameCode(in: tile.rect) == Int((time * clip.frameRate).rounded()) { matches += 1 }
                if isOnTime(frameTime: time, target: Double(index) * section.intervalSeconds) { onTime += 1 }
            }
            measurement.verification = "\(section.sheets.count) sheets; \(matches)/\(tiles.count) tiles show the frame "
                + "their manifest names; \(onTime)/\(tiles.count) frames " + (exact ? "on screen at the thumbnail time" : "at or before it")
            score(&measurement, tiles: tiles)
        } catch {
            measurement.verification = "not checked: \(error)"
        }
    }

    func checkPeer(_ measurement: inout Measurement, layout: PeerThumbnails.Layout, count: Int) {
        do {
            var tiles: [Tile] = []
            var files: [String] = []
            switch layout {
            case .sheets(let folder):
                var sheet = 1
                while tiles.count < count, FileManager.default.fileExists(atPath: folder + String(format: "/out%03d.jpg", sheet)) {
                    files.append(folder + String(format: "/out%03d.jpg", sheet))
                    let image = try decoder.decodeImage(files[files.count - 1])
                    let tileWidth = image.width / 10
                    let tileHeight = image.height / 10
                    for within in 0..<100 where tiles.count < count {
                        tiles.append(Tile(image: image, rect: PixelRect(x: within % 10 * tileWidth, y: within / 10 * tileHeight,
                                                                        width: tileWidth, height: tileHeight)))
                    }
                    sheet += 1
                }
            case .singleFiles(let folder):
                files = (0..<count).map { folder + String(format: "/thumb-%04d.jpg", $0 + 1) }
                tiles = try files.map {
                    let image = try decoder.decodeImage($0)
                    return Tile(image: image, rect: PixelRect(size: image.size))
                }
            }
            measurement.outputBytes = Format.totalBytes(files)
            var onTime = 0
            for (index, tile) in tiles.enumerated() {
                guard let code = tile.image.frameCode(in: tile.rect) else { continue }
                if isOnTime(frameTime: Double(code) / clip.frameRate, target: Double(index) * 10) { onTime += 1 }
            }
            measurement.verification = "\(tiles.count)/\(count) thumbnails written; \(onTime)/\(tiles.count) show a frame "
                + (exact ? "within one frame of the thumbnail time" : "at or before it")
            score(&measurement, tiles: tiles)
        } catch {
            measurement.verification = "not checked: \(error)"
        }
    }

    /// Exact: the frame shown at `target` (one frame's slack for peers that round to the nearest frame).
    /// Keyframe: any frame at or before the target.
    private func isOnTime(frameTime: Double, target: Double) -> Bool {
        let frame = 1 / clip.frameRate
        return exact ? abs(frameTime - target) <= frame + 1e-6 : frameTime <= target + frame / 2
    }

    /// Mean PSNR of evenly spaced tiles against the reference of the frame each one shows.
    private func score(_ measurement: inout Measurement, tiles: [Tile]) {
        let count = min(samples, tiles.count)
        guard count > 0 else { return }
        var values: [Double] = []
        for sample in 0..<count {
            let tile = tiles[sample * tiles.count / count]
            guard let frame = tile.image.frameCode(in: tile.rect),
                  let reference = try? reference(frame: frame, size: tile.rect.size) else { continue }
            values.append(PSNR.decibels(tile.image, in: tile.rect, reference: reference))
        }
        guard !values.isEmpty else { return }
        measurement.psnr = values.reduce(0, +) / Double(values.count)
        measurement.psnrSamples = values.count
    }

    private func reference(frame: Int, size: PixelSize) throws -> FloatImage {
        let key = "\(frame)-\(size)"
        if let cached = references[key] { return cached }
        let source = try decoder.decodeFrame(clip: clip, frame: frame)
        guard source.rgba.frameCode() == frame else { throw BenchError("reference decode of frame \(frame) missed") }
        let reference = ReferenceScaler.render(source, crop: SourceRect(x: 0, y: 0, width: Double(source.width),
                                                                        height: Double(source.height)),
                                               destination: PixelRect(size: size), canvas: size)
        references[key] = reference
        return reference
    }
}
