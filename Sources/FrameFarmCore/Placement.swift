/// Where a picture lands on a screen in each viewing mode: the one place every preview frame's rects come from.

/// Fractions (0...1) of the content picture that a placement does not show.
public struct CroppedFraction: Codable, Sendable, Hashable {
    public var horizontal: Double
    public var vertical: Double
    public var area: Double

    public init(horizontal: Double, vertical: Double, area: Double) {
        self.horizontal = horizontal
        self.vertical = vertical
        self.area = area
    }

    public static let none = CroppedFraction(horizontal: 0, vertical: 0, area: 0)
}

/// A picture placed on a screen: what to sample from the content and where to draw it, plus the figures a preview
/// reports and the safe-area rect its overlay draws. A value type; thread-safe.
public struct Placement: Codable, Sendable, Hashable {
    public var mode: ViewingMode
    public var region: FitRegion
    /// The content's display size (SAR and rotation applied, baked-in padding removed).
    public var content: PixelSize
    /// The content's exact shape, width to height: `content` is rounded to whole pixels, which changes an
    /// anamorphic picture's shape (720x480 at 32:27 is exactly 16:9; 853x480 is not, and fit left a black column).
    public var aspect: PixelSize
    public var screen: PixelSize
    /// The safe area in screen pixels.
    public var safeArea: PixelRect
    /// Where the picture is drawn, whole screen pixels, always inside the screen.
    public var destination: PixelRect
    /// What of the content is drawn, in content display pixels; fractional where fill crops an odd amount.
    public var sourceCrop: SourceRect
    public var croppedFraction: CroppedFraction
    /// Fraction of the visible picture's area on screen that lies outside the safe area.
    public var fractionOutsideSafeArea: Double

    /// Places `content`, of the shape `aspect` (its own by default), on a `screen` whose safe area is
    /// `safeAreaInsets` in pixels. `region` only affects fit. Empty content, or an empty region to fit into, gives
    /// an empty destination.
    public init(content: PixelSize, aspect: PixelSize? = nil, screen: PixelSize, safeAreaInsets: PixelInsets,
                mode: ViewingMode, region: FitRegion = .screen) {
        let aspect = aspect ?? content
        let screenRect = PixelRect(size: screen)
        let safeArea = safeAreaInsets.insetRect(in: screen)
        let whole = SourceRect(PixelRect(size: content))
        self.mode = mode
        self.region = region
        self.content = content
        self.aspect = aspect
        self.screen = screen
        self.safeArea = safeArea
        switch mode {
        case .fit:
            destination = Self.fitRect(of: aspect, in: region == .screen ? screenRect : safeArea)
            sourceCrop = whole
            croppedFraction = .none
        case .fill:
            destination = screenRect
            sourceCrop = Self.fillCrop(of: content, aspect: aspect, toAspectOf: screen)
            croppedFraction = Self.fillCroppedFraction(content: content, aspect: aspect, screen: screen)
        case .stretch:
            destination = screenRect
            sourceCrop = whole
            croppedFraction = .none
        }
        let visible = destination.area
        fractionOutsideSafeArea = visible == 0 ? 0
            : 1 - Double(destination.intersection(safeArea).area) / Double(visible)
    }

    /// The largest whole-pixel rect with `content`'s shape that fits in `region`, centred (any odd pixel of
    /// slack goes right or below). The fitted side spans the region; the other is rounded to the nearest pixel
    /// and is at least 1.
    public static func fitRect(of content: PixelSize, in region: PixelRect) -> PixelRect {
        guard content.width > 0, content.height > 0, !region.isEmpty else {
            return PixelRect(x: region.x, y: region.y, width: 0, height: 0)
        }
        let contentW = content.width, contentH = content.height
        var width = region.width, height = region.height
        // Cross-multiplied so the choice of the fitted side is exact.
        if contentW * region.height >= contentH * region.width {
            height = min(region.height, max(1, roundedQuotient(contentH * region.width, contentW)))
        } else {
            width = min(region.width, max(1, roundedQuotient(contentW * region.height, contentH)))
        }
        return PixelRect(x: region.x + (region.width - width) / 2, y: region.y + (region.height - height) / 2,
                         width: width, height: height)
    }

    /// The centred sub-rect of `content`, of the shape `aspect` (its own by default), with `target`'s shape (what
    /// fill shows); the whole content when either size is empty.
    public static func fillCrop(of content: PixelSize, aspect: PixelSize? = nil, toAspectOf target: PixelSize) -> SourceRect {
        let whole = SourceRect(PixelRect(size: content))
        let shape = aspect ?? content
        guard content.area > 0, shape.area > 0, target.area > 0 else { return whole }
        let contentW = Double(content.width), contentH = Double(content.height)
        // Cross-multiplied, so a picture of the target's exact shape is kept whole; the part kept is the ratio of
        // the two shapes.
        let wider = shape.width * target.height, taller = shape.height * target.width
        if wider > taller {
            let width = contentW * Double(taller) / Double(wider)
            return SourceRect(x: (contentW - width) / 2, y: 0, width: width, height: contentH)
        }
        if wider < taller {
            let height = contentH * Double(wider) / Double(taller)
            return SourceRect(x: 0, y: (contentH - height) / 2, width: contentW, height: height)
        }
        return whole
    }

    /// What fill crops of `content` (of the shape `aspect`) on `screen`; independent of pixel rounding.
    public static func fillCroppedFraction(content: PixelSize, aspect: PixelSize? = nil, screen: PixelSize) -> CroppedFraction {
        guard content.area > 0 else { return .none }
        let crop = fillCrop(of: content, aspect: aspect, toAspectOf: screen)
        let horizontal = 1 - crop.width / Double(content.width)
        let vertical = 1 - crop.height / Double(content.height)
        return CroppedFraction(horizontal: horizontal, vertical: vertical,
                               area: 1 - (1 - horizontal) * (1 - vertical))
    }
}

/// numerator / denominator rounded half up, for non-negative operands.
private func roundedQuotient(_ numerator: Int, _ denominator: Int) -> Int {
    (2 * numerator + denominator) / (2 * denominator)
}
