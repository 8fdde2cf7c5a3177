/// How a stream's coded picture is turned for display: the display matrix's rotation (clockwise degrees, one of
/// 0, 90, 180, 270) and an optional horizontal mirror applied before the rotation.
public struct DisplayTransform: Codable, Sendable, Hashable {
    public var rotation: Int
    public var mirrored: Bool

    public init(rotation: Int = 0, mirrored: Bool = false) {
        let quarterTurns = Int((Double(rotation) / 90).rounded())
        self.rotation = ((quarterTurns * 90) % 360 + 360) % 360
        self.mirrored = mirrored
    }

    public static let identity = DisplayTransform()
    public var swapsAxes: Bool { rotation == 90 || rotation == 270 }
}

/// A sample (pixel) aspect ratio; 0:1 or any non-positive part means "unknown", treated as square.
public struct SampleAspectRatio: Codable, Sendable, Hashable, CustomStringConvertible {
    public var numerator: Int
    public var denominator: Int

    /// In lowest terms (a GIF's 64:64 is 1:1), as FFmpeg and players give it.
    public init(_ numerator: Int, _ denominator: Int) {
        var (a, b) = (abs(numerator), abs(denominator))
        while b != 0 { (a, b) = (b, a % b) }
        let divisor = numerator > 0 && denominator > 0 ? a : 1
        self.numerator = numerator / divisor
        self.denominator = denominator / divisor
    }

    public static let square = SampleAspectRatio(1, 1)

    /// Usable ratio: unknown, absurd (beyond 1:100 .. 100:1) or zero values fall back to square pixels.
    public var value: Double {
        guard numerator > 0, denominator > 0 else { return 1 }
        let ratio = Double(numerator) / Double(denominator)
        return (0.01...100).contains(ratio) ? ratio : 1
    }

    public var description: String { "\(numerator):\(denominator)" }
}

/// Coded size + sample aspect ratio + display transform: everything needed to go from coded pixels to what a
/// viewer sees. Every size a user sees is a display size.
public struct DisplayGeometry: Codable, Sendable, Hashable {
    public var codedSize: PixelSize
    public var sampleAspectRatio: SampleAspectRatio
    public var transform: DisplayTransform

    public init(codedSize: PixelSize, sampleAspectRatio: SampleAspectRatio = .square,
                transform: DisplayTransform = .identity) {
        self.codedSize = codedSize
        self.sampleAspectRatio = sampleAspectRatio
        self.transform = transform
    }

    /// The coded size with SAR applied (width stretched, as FFmpeg and players do), before rotation.
    public var unrotatedDisplaySize: PixelSize {
        let width = max(1, Int((Double(codedSize.width) * sampleAspectRatio.value).rounded()))
        return PixelSize(width: width, height: codedSize.height)
    }

    public var displaySize: PixelSize {
        transform.swapsAxes ? unrotatedDisplaySize.transposed : unrotatedDisplaySize
    }

    /// The exact shape, width to height in lowest terms, of `size` coded pixels as displayed (SAR and rotation
    /// applied): the display sizes above are rounded to whole pixels, which changes an anamorphic picture's shape.
    public func displayAspect(ofCoded size: PixelSize) -> PixelSize {
        let sar = sampleAspectRatio
        let valid = sar.numerator > 0 && sar.denominator > 0 && sar.value == Double(sar.numerator) / Double(sar.denominator)
        var width = size.width * (valid ? sar.numerator : 1), height = size.height * (valid ? sar.denominator : 1)
        var (a, b) = (width, height)
        while b != 0 { (a, b) = (b, a % b) }
        if a > 1 { (width, height) = (width / a, height / a) }
        let shape = PixelSize(width: width, height: height)
        return transform.swapsAxes ? shape.transposed : shape
    }

    /// Maps a rect of coded pixels to display pixels (SAR scaling, then the transform).
    public func displayRect(ofCoded rect: SourceRect) -> SourceRect {
        let scale = sampleAspectRatio.value
        var x = rect.x * scale, width = rect.width * scale
        var y = rect.y, height = rect.height
        let full = unrotatedDisplaySize
        let fullWidth = Double(codedSize.width) * scale, fullHeight = Double(full.height)
        if transform.mirrored { x = fullWidth - x - width }
        switch transform.rotation {
        case 90: (x, y, width, height) = (fullHeight - y - height, x, height, width)
        case 180: (x, y) = (fullWidth - x - width, fullHeight - y - height)
        case 270: (x, y, width, height) = (y, fullWidth - x - width, height, width)
        default: break
        }
        return SourceRect(x: x, y: y, width: width, height: height)
    }

    /// `displayRect(ofCoded:)` of whole coded pixels, rounded to whole display pixels (at least 1x1).
    public func displayPixelRect(ofCoded rect: PixelRect) -> PixelRect {
        let display = displayRect(ofCoded: SourceRect(rect))
        return PixelRect(x: Int(display.x.rounded()), y: Int(display.y.rounded()),
                         width: max(1, Int(display.width.rounded())), height: max(1, Int(display.height.rounded())))
    }

    /// Inverse of `displayRect(ofCoded:)`: which coded pixels a display-space rect shows.
    public func codedRect(ofDisplay rect: SourceRect) -> SourceRect {
        let scale = sampleAspectRatio.value
        let fullWidth = Double(codedSize.width) * scale, fullHeight = Double(codedSize.height)
        var x = rect.x, y = rect.y, width = rect.width, height = rect.height
        switch transform.rotation {
        case 90: (x, y, width, height) = (y, fullHeight - x - width, height, width)
        case 180: (x, y) = (fullWidth - x - width, fullHeight - y - height)
        case 270: (x, y, width, height) = (fullWidth - y - height, x, height, width)
        default: break
        }
        if transform.mirrored { x = fullWidth - x - width }
        return SourceRect(x: x / scale, y: y, width: width / scale, height: height)
    }
}
