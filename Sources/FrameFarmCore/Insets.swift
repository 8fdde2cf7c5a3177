/// Safe-area insets in points (what UIKit reports) and in pixels (what renders use).

/// Insets in points, as UIKit's `safeAreaInsets` reports them.
public struct SafeAreaInsets: Codable, Sendable, Hashable {
    public var top: Double
    public var left: Double
    public var bottom: Double
    public var right: Double

    public init(top: Double = 0, left: Double = 0, bottom: Double = 0, right: Double = 0) {
        self.top = top
        self.left = left
        self.bottom = bottom
        self.right = right
    }

    public static let zero = SafeAreaInsets()

    /// The same insets in pixels at `scale` pixels per point, each rounded up so the safe rect never grows.
    public func pixelInsets(scale: Double) -> PixelInsets {
        // The slack keeps 44 pt x 3 = 132.00000000000003 from becoming 133 px.
        func pixels(_ points: Double) -> Int { max(0, Int((points * scale - 1e-9).rounded(.up))) }
        return PixelInsets(top: pixels(top), left: pixels(left), bottom: pixels(bottom), right: pixels(right))
    }
}

/// Insets in whole pixels.
public struct PixelInsets: Codable, Sendable, Hashable {
    public var top: Int
    public var left: Int
    public var bottom: Int
    public var right: Int

    public init(top: Int = 0, left: Int = 0, bottom: Int = 0, right: Int = 0) {
        self.top = top
        self.left = left
        self.bottom = bottom
        self.right = right
    }

    public static let zero = PixelInsets()

    /// The rect left inside a screen of `size` (empty, never negative, when the insets meet).
    public func insetRect(in size: PixelSize) -> PixelRect {
        let x = min(left, size.width), y = min(top, size.height)
        return PixelRect(x: x, y: y, width: max(0, size.width - left - right),
                         height: max(0, size.height - top - bottom))
    }
}
