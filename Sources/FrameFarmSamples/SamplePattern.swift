import Foundation
import FrameFarmCore
import FrameFarmMedia

/// Draws the synthetic sample's frames into 8-bit Y, Cb, Cr planes: a moving colour field, a moving zone plate
/// (fine detail that aliases visibly if a scaler doesn't filter), a bouncing box, a clock, and the FrameCode
/// band, all inside the content rect (outside it: black bars, as baked-in padding would be).
struct SamplePattern {
    let size: PixelSize
    let content: PixelRect
    let chromaSubsamplingX: Int
    let chromaSubsamplingY: Int
    /// See `SampleOptions.darkEdge`.
    let darkEdge: Bool
    private let zonePlate: [UInt8]
    private let zonePlateSize: Int

    init(size: PixelSize, content: PixelRect, chromaSubsamplingX: Int, chromaSubsamplingY: Int, darkEdge: Bool = false) {
        self.size = size
        self.content = content
        self.chromaSubsamplingX = chromaSubsamplingX
        self.chromaSubsamplingY = chromaSubsamplingY
        self.darkEdge = darkEdge
        // Radius R with frequency rising to Nyquist (0.5 cycles/px) at the rim: phase = pi r^2 / (2R).
        let diameter = max(8, min(content.width, content.height * 4 / 5) / 2) & ~1
        zonePlateSize = diameter
        let radius = Double(diameter) / 2
        var plate = [UInt8](repeating: 0, count: diameter * diameter)
        for y in 0..<diameter {
            for x in 0..<diameter {
                let dx = Double(x) + 0.5 - radius, dy = Double(y) + 0.5 - radius
                let r2 = dx * dx + dy * dy
                plate[y * diameter + x] = r2 <= radius * radius
                    ? UInt8(126 + 100 * cos(Double.pi * r2 / (2 * radius))) : 0
            }
        }
        zonePlate = plate
    }

    typealias Planes = YCbCrPlanes

    /// An interlaced frame: even rows (the top field) from `top`, odd rows from `bottom`, in every plane (4:2:0
    /// interlaced video alternates fields by chroma row too).
    func interlace(top: Planes, bottom: Planes) -> Planes {
        func merge(_ a: [UInt8], _ b: [UInt8], width: Int) -> [UInt8] {
            var merged = a
            for row in stride(from: 1, to: a.count / width, by: 2) {
                merged.replaceSubrange(row * width..<(row + 1) * width, with: b[row * width..<(row + 1) * width])
            }
            return merged
        }
        let chromaWidth = (size.width + chromaSubsamplingX - 1) / chromaSubsamplingX
        return Planes(luma: merge(top.luma, bottom.luma, width: size.width),
                      cb: merge(top.cb, bottom.cb, width: chromaWidth), cr: merge(top.cr, bottom.cr, width: chromaWidth))
    }

    /// Draws frame `index` shown at `time` seconds; `brightness` 0...1 fades towards black; `blurred` applies a
    /// strong box blur (a deliberately out-of-focus stretch for poster tests).
    func draw(index: Int, time: Double, brightness: Double, blurred: Bool) -> Planes {
        let chromaWidth = (size.width + chromaSubsamplingX - 1) / chromaSubsamplingX
        let chromaHeight = (size.height + chromaSubsamplingY - 1) / chromaSubsamplingY
        var planes = Planes(luma: [UInt8](repeating: 16, count: size.area),
                            cb: [UInt8](repeating: 128, count: chromaWidth * chromaHeight),
                            cr: [UInt8](repeating: 128, count: chromaWidth * chromaHeight))
        guard brightness > 0 else { return planes }
        drawBackground(into: &planes, time: time, chromaWidth: chromaWidth, chromaHeight: chromaHeight)
        drawZonePlate(into: &planes.luma, time: time)
        drawBouncingBox(into: &planes.luma, time: time)
        drawClock(into: &planes.luma, time: time, index: index)
        if darkEdge { drawDarkEdge(into: &planes.luma, time: time) }
        if blurred { boxBlur(&planes.luma, radius: max(2, content.height / 40)) }
        drawFrameCode(into: &planes.luma, value: index)
        if brightness < 1 { fade(&planes, brightness: brightness) }
        return planes
    }

    /// Every term of the field depends on the row or on the column alone, so each is computed once per row or
    /// column (the same expressions, so the same bytes): per pixel, the trigonometry took half of the time a
    /// 1080p bench input took to make.
    private func drawBackground(into planes: inout Planes, time: Double, chromaWidth: Int, chromaHeight: Int) {
        let codeTop = content.y + Int(Double(content.height) * FrameCode.bandTop)
        let horizontal = (content.x..<content.maxX).map { x in
            cos(Double(x - content.x) / Double(content.width) * 2 * .pi - time * 0.5)
        }
        for y in content.y..<codeTop {
            let vertical = sin(Double(y - content.y) / Double(content.height) * 2 * .pi + time * 0.7)
            let row = y * size.width + content.x
            for (column, horizontal) in horizontal.enumerated() {
                planes.luma[row + column] = UInt8(110 + 35 * vertical * horizontal)
            }
        }
        let chromaContent = PixelRect(x: content.x / chromaSubsamplingX, y: content.y / chromaSubsamplingY,
                                      width: content.width / chromaSubsamplingX, height: content.height / chromaSubsamplingY)
        // The frame-code band keeps neutral chroma so its cells read as pure black and white.
        let chromaBandTop = (content.y + Int(Double(content.height) * FrameCode.bandTop)) / chromaSubsamplingY
        let columns = chromaContent.x..<min(chromaWidth, chromaContent.maxX)
        let cbOfColumn = columns.map { x in
            let u = Double(x - chromaContent.x) / Double(max(1, chromaContent.width))
            return UInt8(128 + 45 * cos(2 * .pi * (u + time / 10)))
        }
        for y in chromaContent.y..<min(chromaHeight, chromaBandTop) {
            let v = Double(y - chromaContent.y) / Double(max(1, chromaContent.height))
            let cr = UInt8(128 + 45 * sin(2 * .pi * (v + time / 7)))
            let row = y * chromaWidth + columns.lowerBound
            for (column, cb) in cbOfColumn.enumerated() {
                planes.cb[row + column] = cb
                planes.cr[row + column] = cr
            }
        }
    }

    /// Luma 16...34 (under a tenth of the range above black, so dark), in a moving texture of ridges: dark
    /// picture, not flat like a bar.
    private func drawDarkEdge(into luma: inout [UInt8], time: Double) {
        let codeTop = content.y + Int(Double(content.height) * FrameCode.bandTop)
        for y in content.y..<codeTop {
            for x in content.x..<(content.x + content.width / 8) {
                luma[y * size.width + x] = UInt8(25 + 9 * sin(Double(x) * 0.9 + Double(y) * 0.37 + time))
            }
        }
    }

    private func drawZonePlate(into luma: inout [UInt8], time: Double) {
        let travel = max(0, content.width - zonePlateSize)
        let phase = (time / 8).truncatingRemainder(dividingBy: 2)
        let left = content.x + Int(Double(travel) * (phase < 1 ? phase : 2 - phase))
        let top = content.y + max(0, (Int(Double(content.height) * FrameCode.bandTop) - zonePlateSize) / 2)
        for y in 0..<zonePlateSize where top + y < content.maxY {
            for x in 0..<zonePlateSize where left + x < content.maxX {
                let value = zonePlate[y * zonePlateSize + x]
                if value != 0 { luma[(top + y) * size.width + left + x] = value }
            }
        }
    }

    private func drawBouncingBox(into luma: inout [UInt8], time: Double) {
        let side = max(2, content.height / 8)
        let bandHeight = Int(Double(content.height) * FrameCode.bandTop) - side
        let phase = (time / 3).truncatingRemainder(dividingBy: 2)
        let x = content.x + Int(Double(content.width - side) * (1 - abs(1 - (time / 5).truncatingRemainder(dividingBy: 2))))
        let y = content.y + Int(Double(max(0, bandHeight)) * (phase < 1 ? phase : 2 - phase))
        fillRect(&luma, PixelRect(x: x, y: y, width: side, height: side), value: 235)
    }

    /// "MM:SS.mmm" and the frame number in seven-segment digits at the top left.
    private func drawClock(into luma: inout [UInt8], time: Double, index: Int) {
        let digitHeight = max(5, content.height / 10)
        let milliseconds = Int((time * 1000).rounded())
        let text = String(format: "%02d:%02d.%03d", milliseconds / 60_000, milliseconds / 1000 % 60, milliseconds % 1000)
        let origin = (x: content.x + digitHeight / 2, y: content.y + digitHeight / 2)
        fillRect(&luma, PixelRect(x: origin.x - 2, y: origin.y - 2, width: digitHeight * text.count * 6 / 10 + 4,
                                  height: digitHeight * 23 / 10 + 4), value: 16)
        SevenSegment.draw(text, into: &luma, rowPixels: size.width, clip: content,
                          x: origin.x, y: origin.y, height: digitHeight)
        SevenSegment.draw(String(index), into: &luma, rowPixels: size.width, clip: content,
                          x: origin.x, y: origin.y + digitHeight * 13 / 10, height: digitHeight)
    }

    private func drawFrameCode(into luma: inout [UInt8], value: Int) {
        let cells = FrameCode.cells(for: value)
        let bandTop = content.y + Int((Double(content.height) * FrameCode.bandTop).rounded())
        for y in bandTop..<content.maxY {
            let fy = (Double(y - content.y) + 0.5) / Double(content.height)
            for x in content.x..<content.maxX {
                let fx = (Double(x - content.x) + 0.5) / Double(content.width)
                guard let cell = FrameCode.cell(atX: fx, y: fy) else { continue }
                luma[y * size.width + x] = cells[cell] ? 235 : 16
            }
        }
    }

    private func fillRect(_ luma: inout [UInt8], _ rect: PixelRect, value: UInt8) {
        let clipped = rect.intersection(content)
        for y in clipped.y..<clipped.maxY {
            for x in clipped.x..<clipped.maxX { luma[y * size.width + x] = value }
        }
    }

    /// Two passes of a separable running-sum box blur over the picture above the code band.
    private func boxBlur(_ luma: inout [UInt8], radius: Int) {
        let bandTop = content.y + Int(Double(content.height) * FrameCode.bandTop)
        let area = PixelRect(x: content.x, y: content.y, width: content.width, height: bandTop - content.y)
        func blurLine(count: Int, index: (Int) -> Int) {
            var line = [Int](repeating: 0, count: count)
            for i in 0..<count { line[i] = Int(luma[index(i)]) }
            var prefix = [Int](repeating: 0, count: count + 1)
            for i in 0..<count { prefix[i + 1] = prefix[i] + line[i] }
            for i in 0..<count {
                let low = max(0, i - radius), high = min(count - 1, i + radius)
                luma[index(i)] = UInt8((prefix[high + 1] - prefix[low]) / (high - low + 1))
            }
        }
        for _ in 0..<2 {
            for y in area.y..<area.maxY { blurLine(count: area.width) { y * size.width + area.x + $0 } }
            for x in area.x..<area.maxX { blurLine(count: area.height) { (area.y + $0) * size.width + x } }
        }
    }

    /// Fades the picture (not the frame code, which must stay readable) towards black.
    private func fade(_ planes: inout Planes, brightness: Double) {
        let bandTop = content.y + Int(Double(content.height) * FrameCode.bandTop)
        for y in content.y..<bandTop {
            for x in content.x..<content.maxX {
                let index = y * size.width + x
                planes.luma[index] = UInt8(16 + Double(Int(planes.luma[index]) - 16) * brightness)
            }
        }
        for index in planes.cb.indices {
            planes.cb[index] = UInt8(128 + Double(Int(planes.cb[index]) - 128) * brightness)
            planes.cr[index] = UInt8(128 + Double(Int(planes.cr[index]) - 128) * brightness)
        }
    }
}

/// Seven-segment digits and a colon/dot, drawn with rectangles (no font files needed).
enum SevenSegment {
    // Segments a b c d e f g as bits 0...6.
    private static let digits: [Int] = [0x3F, 0x06, 0x5B, 0x4F, 0x66, 0x6D, 0x7D, 0x07, 0x7F, 0x6F]

    static func draw(_ text: String, into luma: inout [UInt8], rowPixels: Int, clip: PixelRect,
                     x: Int, y: Int, height: Int) {
        let width = height / 2, stroke = max(1, height / 8)
        var cursor = x
        for character in text {
            if let digit = character.wholeNumberValue {
                let bits = digits[digit]
                let half = height / 2
                let segments: [PixelRect] = [
                    PixelRect(x: cursor, y: y, width: width, height: stroke),
                    PixelRect(x: cursor + width - stroke, y: y, width: stroke, height: half),
                    PixelRect(x: cursor + width - stroke, y: y + half, width: stroke, height: height - half),
                    PixelRect(x: cursor, y: y + height - stroke, width: width, height: stroke),
                    PixelRect(x: cursor, y: y + half, width: stroke, height: height - half),
                    PixelRect(x: cursor, y: y, width: stroke, height: half),
                    PixelRect(x: cursor, y: y + half - stroke / 2, width: width, height: stroke),
                ]
                for (bit, segment) in segments.enumerated() where bits >> bit & 1 == 1 {
                    fill(segment.intersection(clip), into: &luma, rowPixels: rowPixels)
                }
                cursor += width + stroke * 2
            } else {
                let dotY = character == ":" ? [y + height / 4, y + height * 3 / 4] : [y + height - stroke]
                for top in dotY {
                    fill(PixelRect(x: cursor, y: top, width: stroke, height: stroke).intersection(clip),
                         into: &luma, rowPixels: rowPixels)
                }
                cursor += stroke * 3
            }
        }
    }

    private static func fill(_ rect: PixelRect, into luma: inout [UInt8], rowPixels: Int) {
        for row in rect.y..<max(rect.y, rect.maxY) {
            for column in rect.x..<max(rect.x, rect.maxX) { luma[row * rowPixels + column] = 235 }
        }
    }
}
