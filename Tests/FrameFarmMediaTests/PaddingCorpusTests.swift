import Foundation
import FrameFarmCore
import Testing
@testable import FrameFarmMedia

/// The hard cases of padding detection, each a 10-s clip of ten 1-s scenes painted pixel by pixel and written as
/// Y4M (raw frames, every one a keyframe, so the detector samples nine distinct scenes through the real demuxer
/// and decoder). Negatives are dark picture that cropdetect-style darkness alone takes for bars; none may be
/// cropped. Positives are real bars in the forms they come in; each must be found to within 2 pixels.
@Suite struct PaddingCorpusTests {
    static let width = 320, height = 180

    /// One scene: luma in 8-bit limited-range units (16 black, 235 white), chroma neutral.
    typealias Painter = @Sendable (_ scene: Int, _ x: Int, _ y: Int) -> Double

    /// Busy mid-grey picture that changes from scene to scene.
    static func picture(_ scene: Int, _ x: Int, _ y: Int) -> Double {
        let s = Double(scene)
        return 120 + 70 * sin(Double(x) * 0.05 + s) * cos(Double(y) * 0.07 - s * 0.5)
    }

    /// A repeatable pseudo-random value in -1...1 (noise and grain that differ per pixel and scene).
    static func noise(_ scene: Int, _ x: Int, _ y: Int) -> Double {
        var v = UInt64(truncatingIfNeeded: scene &* 73_856_093 ^ x &* 19_349_663 ^ y &* 83_492_791)
        v ^= v >> 33
        v = v &* 0xff51afd7ed558ccd
        v ^= v >> 33
        return Double(v % 2001) / 1000 - 1
    }

    /// Writes the scenes as Y4M: 8-bit 4:2:0, or 10-bit (`C420p10`, luma scaled by 4); full range maps 16...235
    /// onto 0...255 first.
    static func write(_ path: String, scenes: Int = 10, tenBit: Bool = false, fullRange: Bool = false,
                      _ paint: Painter) throws {
        var data = Data("YUV4MPEG2 W\(width) H\(height) F1:1 Ip A1:1 \(tenBit ? "C420p10" : "C420jpeg")\(fullRange ? " XCOLORRANGE=FULL" : "")\n".utf8)
        let chroma = (width / 2) * (height / 2)
        for scene in 0..<scenes {
            data.append(contentsOf: Array("FRAME\n".utf8))
            var luma: [Double] = []
            luma.reserveCapacity(width * height)
            for y in 0..<height {
                for x in 0..<width {
                    let value = paint(scene, x, y)
                    luma.append(fullRange ? (value - 16) * 255 / 219 : value)
                }
            }
            if tenBit {
                for value in luma {
                    let sample = UInt16(max(0, min(1023, (value * 4).rounded())))
                    data.append(contentsOf: [UInt8(sample & 0xff), UInt8(sample >> 8)])
                }
                for _ in 0..<(2 * chroma) { data.append(contentsOf: [0x00, 0x02]) }
            } else {
                data.append(contentsOf: luma.map { UInt8(max(0, min(255, $0.rounded()))) })
                data.append(contentsOf: [UInt8](repeating: 128, count: 2 * chroma))
            }
        }
        try data.write(to: URL(fileURLWithPath: path))
    }

    static func detect(scenes: Int = 10, tenBit: Bool = false, fullRange: Bool = false,
                       _ paint: @escaping Painter) throws -> Padding {
        let directory = TemporaryDirectory()
        let path = directory.file("scene.y4m")
        try write(path, scenes: scenes, tenBit: tenBit, fullRange: fullRange, paint)
        return try PaddingDetector.detect(MediaProber.open(path: path), path: path)
    }

    // MARK: Negatives: dark picture, never a bar.

    static let negatives: [(String, Int, Painter)] = [
        // Dark hair or a wall down the left edge, moving with the scene.
        ("a dark object along one edge", 10, { s, x, y in
            x < 30 + (s % 4) * 5 ? 26 + 8 * sin(Double(x) * 0.9 + Double(y) * 0.37 + Double(s)) : picture(s, x, y)
        }),
        // Night sky over a lit town: dark blue-black getting lighter downwards, with stars.
        ("night sky along the top", 10, { s, x, y in
            guard y < 60 else { return picture(s, x, y) }
            return noise(s, x, y) > 0.995 ? 200 : 17 + Double(y) * 0.4
        }),
        // Vignetting: the picture falls off towards the corners.
        ("vignetting", 10, { s, x, y in
            let dx = Double(x) / Double(width) - 0.5, dy = Double(y) / Double(height) - 0.5
            return 16 + (picture(s, x, y) - 16) * max(0, 1 - 2.2 * (dx * dx + dy * dy))
        }),
        // Dark credits: white lines of text, of different lengths, scrolling up over black.
        ("dark credits", 10, { s, x, y in
            let top = 20 + s * 11, line = (y - top) / 12
            guard y >= top, line < 4, (y - top) % 12 < 7 else { return 16 }
            let half = 40 + ((s * 3 + line * 5) % 7) * 12
            return abs(x - width / 2) < half && (x / 3) % 2 == 0 ? 230 : 16
        }),
        // A slow fade from black: each scene brighter than the last.
        ("a slow fade", 10, { s, x, y in 16 + (picture(s, x, y) - 16) * Double(s) / 9 }),
        // A dark clip of two frames: too little evidence, whatever it shows.
        ("a dark short clip", 2, { s, x, y in
            y < 30 || y >= height - 30 ? 16 : 16 + (picture(s, x, y) - 16) * 0.3
        }),
        // A subject on a flat black studio background, moving about the frame.
        ("a subject on a flat black background", 10, { s, x, y in
            let cx = Double(110 + s * 12), cy = 90 + 12 * sin(Double(s))
            let dx = (Double(x) - cx) / 55, dy = (Double(y) - cy) / 65
            return dx * dx + dy * dy < 1 ? picture(s, x, y) : 16
        }),
        // A dark doorway at the left of a shot that pans a little: dark wood, grained, not flat black.
        ("a dark doorway", 10, { s, x, y in
            x < 36 + s % 3 ? 24 + 6 * sin(Double(y) * 0.8 + Double(x) * 0.3) : picture(s, x, y)
        }),
        // A low-key scene: dark all over but for a lamp in the middle.
        ("a low-key scene", 10, { s, x, y in
            let dx = Double(x - 160 - s * 4), dy = Double(y - 90)
            return dx * dx + dy * dy < 400 ? 220 : 20 + 10 * (0.5 + 0.5 * sin(Double(x) * 0.2 + Double(y) * 0.3 + Double(s)))
        }),
        // A dark ceiling and floor, textured, above and below the lit middle of a room.
        ("a dark ceiling and floor", 10, { s, x, y in
            y < 28 || y >= height - 28 ? 25 + 8 * sin(Double(x) * 0.5 + Double(y) * 0.9 + Double(s)) : picture(s, x, y)
        }),
    ]

    @Test func noNegativeIsCropped() throws {
        var cropped: [String] = []
        for (name, scenes, paint) in Self.negatives {
            let padding = try Self.detect(scenes: scenes, paint)
            if padding.kind != .none || padding.contentRect != PixelRect(x: 0, y: 0, width: Self.width, height: Self.height) {
                cropped.append("\(name): \(padding.kind) \(padding.contentRect)")
            }
        }
        #expect(Self.negatives.count >= 10)
        #expect(cropped.isEmpty, "cropped: \(cropped)")
    }

    // MARK: Positives: real bars, found to within 2 pixels.

    struct Positive: Sendable {
        var name: String
        var content: PixelRect
        var tenBit = false
        var fullRange = false
        /// Luma of bar pixel (x, y) in scene s; picture elsewhere unless `paint` says otherwise.
        var bar: Painter = { _, _, _ in 16 }
        var paint: Painter?
    }

    static let letterbox = PixelRect(x: 0, y: 23, width: 320, height: 134)
    static let pillarbox = PixelRect(x: 40, y: 0, width: 240, height: 180)

    static let positives: [Positive] = [
        Positive(name: "clean letterbox", content: letterbox),
        Positive(name: "clean pillarbox", content: pillarbox),
        Positive(name: "letterbox with film grain", content: letterbox, bar: { s, x, y in 17 + 2.5 * noise(s, x, y) }),
        Positive(name: "pillarbox with analog noise", content: pillarbox, bar: { s, x, y in 16 + 5 * noise(s, x, y) }),
        Positive(name: "full-range bars at 0", content: letterbox, fullRange: true),
        Positive(name: "windowbox", content: PixelRect(x: 30, y: 20, width: 260, height: 140)),
        Positive(name: "a scaler's uneven rows", content: PixelRect(x: 0, y: 22, width: 320, height: 134)),
        Positive(name: "10-bit letterbox", content: letterbox, tenBit: true),
        // Dark picture next to the bar in some scenes: those say only that the bar is no thicker.
        Positive(name: "letterbox over dark scenes", content: letterbox, paint: { s, x, y in
            guard letterbox.contains(x: x, y: y) else { return 16 }
            return s < 4 && y < letterbox.y + 20 ? 26 + 6 * sin(Double(x) * 0.7 + Double(s)) : picture(s, x, y)
        }),
        // Encoders' 2-px dark edges at the sides are not bars.
        Positive(name: "letterbox with thin encoder edges", content: letterbox, paint: { s, x, y in
            guard letterbox.contains(x: x, y: y) else { return 16 }
            return x < 2 || x >= width - 2 ? 16 : picture(s, x, y)
        }),
    ]

    @Test func positivesAreFoundToWithinTwoPixels() throws {
        var found = 0
        var missed: [String] = []
        for positive in Self.positives {
            let content = positive.content
            let padding = try Self.detect(tenBit: positive.tenBit, fullRange: positive.fullRange, positive.paint ?? { s, x, y in
                content.contains(x: x, y: y) ? Self.picture(s, x, y) : positive.bar(s, x, y)
            })
            let rect = padding.contentRect
            let close = abs(rect.x - content.x) <= 2 && abs(rect.y - content.y) <= 2
                && abs(rect.maxX - content.maxX) <= 2 && abs(rect.maxY - content.maxY) <= 2
            if padding.kind == .throughout && close { found += 1 } else { missed.append("\(positive.name): \(rect)") }
        }
        #expect(Self.positives.count >= 10)
        #expect(found >= 9, "missed: \(missed)")
    }
}

private extension PixelRect {
    func contains(x: Int, y: Int) -> Bool { x >= self.x && x < maxX && y >= self.y && y < maxY }
}
