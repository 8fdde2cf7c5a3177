/// Whole-pixel sizes and rects (what every output is made of) and the fractional source rects that feed them.

public struct PixelSize: Codable, Sendable, Hashable, CustomStringConvertible {
    public var width: Int
    public var height: Int

    public init(width: Int, height: Int) {
        self.width = width
        self.height = height
    }

    public var area: Int { width * height }
    /// Width / height; 0 for an empty size.
    public var aspectRatio: Double { height == 0 ? 0 : Double(width) / Double(height) }
    public var transposed: PixelSize { PixelSize(width: height, height: width) }
    public var description: String { "\(width)x\(height)" }
}

/// A rect of whole pixels; `x`, `y` is the top-left corner, y grows downwards.
public struct PixelRect: Codable, Sendable, Hashable, CustomStringConvertible {
    public var x: Int
    public var y: Int
    public var width: Int
    public var height: Int

    public init(x: Int, y: Int, width: Int, height: Int) {
        self.x = x
        self.y = y
        self.width = width
        self.height = height
    }

    public init(size: PixelSize) {
        self.init(x: 0, y: 0, width: size.width, height: size.height)
    }

    public var size: PixelSize { PixelSize(width: width, height: height) }
    public var maxX: Int { x + width }
    public var maxY: Int { y + height }
    public var area: Int { width * height }
    public var isEmpty: Bool { width <= 0 || height <= 0 }

    public func contains(_ other: PixelRect) -> Bool {
        other.x >= x && other.y >= y && other.maxX <= maxX && other.maxY <= maxY
    }

    public func intersection(_ other: PixelRect) -> PixelRect {
        let left = max(x, other.x), top = max(y, other.y)
        let right = min(maxX, other.maxX), bottom = min(maxY, other.maxY)
        return PixelRect(x: left, y: top, width: max(0, right - left), height: max(0, bottom - top))
    }

    public var description: String { "\(width)x\(height)+\(x)+\(y)" }
}

/// A rect in continuous source-pixel coordinates (pixel i covers [i, i+1)); used for source crops, which need not
/// fall on whole pixels (a fill crop of an odd-sized frame, say).
public struct SourceRect: Codable, Sendable, Hashable, CustomStringConvertible {
    public var x: Double
    public var y: Double
    public var width: Double
    public var height: Double

    public init(x: Double, y: Double, width: Double, height: Double) {
        self.x = x
        self.y = y
        self.width = width
        self.height = height
    }

    public init(_ rect: PixelRect) {
        self.init(x: Double(rect.x), y: Double(rect.y), width: Double(rect.width), height: Double(rect.height))
    }

    public var maxX: Double { x + width }
    public var maxY: Double { y + height }
    public var isEmpty: Bool { width <= 0 || height <= 0 }
    public var description: String { "\(width)x\(height)+\(x)+\(y)" }

    /// Whether `other` lies inside this rect, to within a millionth of a pixel.
    public func contains(_ other: SourceRect) -> Bool {
        let slack = 1e-6
        return other.x >= x - slack && other.y >= y - slack && other.maxX <= maxX + slack && other.maxY <= maxY + slack
    }

    /// The part both rects cover; empty (zero size) when they do not meet.
    public func intersection(_ other: SourceRect) -> SourceRect {
        let left = max(x, other.x), top = max(y, other.y)
        return SourceRect(x: left, y: top, width: max(0, min(maxX, other.maxX) - left),
                          height: max(0, min(maxY, other.maxY) - top))
    }
}
