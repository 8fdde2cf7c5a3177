/// A machine-readable frame number drawn into every frame of `framefarm sample`, legible after scaling the frame
/// down to a 160-px thumbnail: two rows of twelve black/white cells across the bottom fifth of the picture.
/// 24 bits = a 20-bit frame number and a 4-bit check, so a blend of two frames or a black frame reads as nothing.
public enum FrameCode {
    public static let columns = 12
    public static let rows = 2
    /// The band's top edge as a fraction of the picture height; the band reaches the bottom.
    public static let bandTop = 0.8
    public static let maximumValue = (1 << 20) - 1

    /// The 24 cells (row-major, true = white) that encode `value` (taken modulo 2^20).
    public static func cells(for value: Int) -> [Bool] {
        let number = value & maximumValue
        let bits = number << 4 | check(number)
        return (0..<(rows * columns)).map { cell in bits >> (rows * columns - 1 - cell) & 1 == 1 }
    }

    /// The cell containing the point at fractions (`x`, `y`) of the picture, nil outside the band.
    public static func cell(atX x: Double, y: Double) -> Int? {
        guard y >= bandTop, y < 1, x >= 0, x < 1 else { return nil }
        let row = min(rows - 1, Int((y - bandTop) / ((1 - bandTop) / Double(rows))))
        return row * columns + min(columns - 1, Int(x * Double(columns)))
    }

    /// Reads the frame number back from a picture of `width` x `height` pixels; `luma(x, y)` returns a
    /// brightness 0...255 for a pixel. Each cell is judged by the mean of its central half, so scaling blur and
    /// compression at cell edges don't matter. Returns nil when the cells don't form a valid code.
    public static func read(width: Int, height: Int, luma: (Int, Int) -> Double) -> Int? {
        guard width >= columns * 2, height >= 10 else { return nil }
        let rowHeight = Double(height) * (1 - bandTop) / Double(rows)
        let cellWidth = Double(width) / Double(columns)
        var bits = 0
        for row in 0..<rows {
            for column in 0..<columns {
                let centerX = (Double(column) + 0.5) * cellWidth
                let centerY = Double(height) * bandTop + (Double(row) + 0.5) * rowHeight
                let x0 = Int((centerX - cellWidth / 4).rounded()), x1 = max(x0, Int((centerX + cellWidth / 4).rounded()) - 1)
                let y0 = Int((centerY - rowHeight / 4).rounded()), y1 = max(y0, Int((centerY + rowHeight / 4).rounded()) - 1)
                var sum = 0.0
                for y in y0...min(y1, height - 1) {
                    for x in x0...min(x1, width - 1) { sum += luma(x, y) }
                }
                let mean = sum / Double((min(y1, height - 1) - y0 + 1) * (min(x1, width - 1) - x0 + 1))
                bits = bits << 1 | (mean >= 128 ? 1 : 0)
            }
        }
        let number = bits >> 4
        return bits & 0xF == check(number) ? number : nil
    }

    /// Reads the code from tightly packed RGBA8 pixels (a rect of a canvas: `origin` and `size` in pixels,
    /// `rowPixels` the canvas width).
    public static func read(rgba: [UInt8], rowPixels: Int, rect: PixelRect) -> Int? {
        read(width: rect.width, height: rect.height) { x, y in
            let offset = ((rect.y + y) * rowPixels + rect.x + x) * 4
            return 0.2126 * Double(rgba[offset]) + 0.7152 * Double(rgba[offset + 1]) + 0.0722 * Double(rgba[offset + 2])
        }
    }

    /// Sum of the number's five nibbles, mixed so that 0 has a non-zero check (a black frame is not frame 0).
    static func check(_ number: Int) -> Int {
        var sum = 0
        for shift in stride(from: 0, to: 20, by: 4) { sum += number >> shift & 0xF }
        return (sum & 0xF) ^ 0xA
    }
}
