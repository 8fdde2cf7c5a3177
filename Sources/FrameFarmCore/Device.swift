/// A device screen that previews are rendered for, and its validation.

import Foundation

/// What kind of screen a device is; decides its natural orientation and catalog group.
public enum DeviceKind: String, Codable, Sendable, CaseIterable {
    case phone, tablet, tv, mac, watch, vision, pip
}

/// A device screen as `devices --json` describes it. Sizes in points times `scale` give pixels. A value type;
/// thread-safe.
public struct Device: Codable, Sendable, Hashable {
    /// Kebab-case identifier used on the command line and in output names, e.g. `iphone-16-pro`.
    public var id: String
    public var name: String
    public var kind: DeviceKind
    /// Native screen pixels, portrait for phones, tablets and watches, landscape for the rest.
    public var nativePixels: PixelSize
    /// Pixels per point.
    public var scale: Double
    /// Safe-area insets in points in portrait; required when `orientations` has portrait.
    public var safeAreaPortrait: SafeAreaInsets?
    /// Safe-area insets in points in landscape; required when `orientations` has landscape.
    public var safeAreaLandscape: SafeAreaInsets?
    /// Screen corner radius in points; nil where the corners are square.
    public var cornerRadius: Double?
    /// The orientations video is watched in on this device.
    public var orientations: [Orientation]

    public init(id: String, name: String, kind: DeviceKind, nativePixels: PixelSize, scale: Double,
                safeAreaPortrait: SafeAreaInsets?, safeAreaLandscape: SafeAreaInsets?, cornerRadius: Double?,
                orientations: [Orientation]) {
        self.id = id
        self.name = name
        self.kind = kind
        self.nativePixels = nativePixels
        self.scale = scale
        self.safeAreaPortrait = safeAreaPortrait
        self.safeAreaLandscape = safeAreaLandscape
        self.cornerRadius = cornerRadius
        self.orientations = orientations
    }

    private enum CodingKeys: String, CodingKey {
        case id, name, kind, nativePixels, scale, safeAreaPortrait, safeAreaLandscape, cornerRadius, orientations
    }

    /// Writes every key, absent values as `null`, so `devices --json` has the same keys for every device.
    public func encode(to encoder: Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id, forKey: .id)
        try container.encode(name, forKey: .name)
        try container.encode(kind, forKey: .kind)
        try container.encode(nativePixels, forKey: .nativePixels)
        try container.encode(scale, forKey: .scale)
        try container.encode(safeAreaPortrait, forKey: .safeAreaPortrait)
        try container.encode(safeAreaLandscape, forKey: .safeAreaLandscape)
        try container.encode(cornerRadius, forKey: .cornerRadius)
        try container.encode(orientations, forKey: .orientations)
    }

    /// The screen in `orientation`, or nil when the device is not used that way.
    public func screen(_ orientation: Orientation) -> DeviceScreen? {
        guard orientations.contains(orientation) else { return nil }
        let insets = (orientation == .portrait ? safeAreaPortrait : safeAreaLandscape) ?? .zero
        return DeviceScreen(deviceID: id, orientation: orientation, size: nativePixels.oriented(orientation),
                            safeAreaInsets: insets.pixelInsets(scale: scale),
                            cornerRadius: cornerRadius.map { $0 * scale })
    }

    /// The screens of every supported orientation, in `orientations` order.
    public var screens: [DeviceScreen] { orientations.compactMap(screen) }
}

/// One device screen in one orientation, in pixels: what a preview canvas is made from.
public struct DeviceScreen: Codable, Sendable, Hashable {
    public var deviceID: String
    public var orientation: Orientation
    public var size: PixelSize
    public var safeAreaInsets: PixelInsets
    /// Corner radius in pixels; nil where the corners are square.
    public var cornerRadius: Double?

    public init(deviceID: String, orientation: Orientation, size: PixelSize, safeAreaInsets: PixelInsets,
                cornerRadius: Double?) {
        self.deviceID = deviceID
        self.orientation = orientation
        self.size = size
        self.safeAreaInsets = safeAreaInsets
        self.cornerRadius = cornerRadius
    }

    /// The safe area in screen pixels.
    public var safeArea: PixelRect { safeAreaInsets.insetRect(in: size) }
}

/// One thing wrong with a device description: the field (a JSON key path) and why.
public struct DeviceProblem: Sendable, Equatable {
    public var field: String
    public var reason: String
}

extension Device {
    /// Everything wrong with this description; empty when it is usable.
    public var problems: [DeviceProblem] {
        var problems: [DeviceProblem] = []
        func check(_ ok: Bool, _ field: String, _ reason: String) {
            if !ok { problems.append(DeviceProblem(field: field, reason: reason)) }
        }
        check(Self.isKebabCase(id), "id", "must be kebab-case: lowercase letters and digits joined by '-'")
        check(DeviceGroup(rawValue: id) == nil, "id", "must not be a group's name (\(id) names a group in --devices)")
        check(!name.trimmingCharacters(in: .whitespaces).isEmpty, "name", "must not be empty")
        for (side, value) in [("width", nativePixels.width), ("height", nativePixels.height)] {
            check(value > 0 && value <= Self.largestSide, "nativePixels.\(side)", "must be from 1 to \(Self.largestSide)")
        }
        check(scale.isFinite && scale > 0 && scale <= Self.largestScale, "scale",
              "must be a positive number up to \(Int(Self.largestScale))")
        check(!orientations.isEmpty, "orientations", "must list at least one orientation")
        check(Set(orientations).count == orientations.count, "orientations", "must not repeat an orientation")
        if let cornerRadius {
            let limit = Double(min(nativePixels.width, nativePixels.height)) / 2 / scale
            check(cornerRadius >= 0 && cornerRadius <= limit, "cornerRadius",
                  "must be from 0 to half the short side (\(limit) pt)")
        }
        guard problems.isEmpty else { return problems }
        for orientation in orientations {
            let field = orientation == .portrait ? "safeAreaPortrait" : "safeAreaLandscape"
            guard let insets = orientation == .portrait ? safeAreaPortrait : safeAreaLandscape else {
                check(false, field, "is missing but orientations has \(orientation.rawValue)")
                continue
            }
            problems += insetProblems(insets, field: field, orientation: orientation)
        }
        // Insets for an orientation the device is never shown in: a mistake in the file (the other orientation's
        // field, or the orientation left out), which no render would ever show.
        for orientation in [Orientation.portrait, .landscape] where !orientations.contains(orientation) {
            let given = orientation == .portrait ? safeAreaPortrait : safeAreaLandscape
            check(given == nil, orientation == .portrait ? "safeAreaPortrait" : "safeAreaLandscape",
                  "is given but orientations has no \(orientation.rawValue): no render would use it")
        }
        return problems
    }

    private func insetProblems(_ insets: SafeAreaInsets, field: String, orientation: Orientation)
        -> [DeviceProblem] {
        let values = [("top", insets.top), ("left", insets.left), ("bottom", insets.bottom), ("right", insets.right)]
        let screen = nativePixels.oriented(orientation)
        // In points: past the screen's longer side an inset means nothing, and its pixels would not fit an Int.
        let longest = Double(max(screen.width, screen.height)) / scale
        let bad = values.filter { !$0.1.isFinite || $0.1 < 0 || $0.1 > longest }
        if !bad.isEmpty {
            return bad.map {
                DeviceProblem(field: "\(field).\($0.0)", reason: "must be from 0 to the screen's longer side (\(longest) pt)")
            }
        }
        let safe = insets.pixelInsets(scale: scale).insetRect(in: screen)
        guard safe.isEmpty else { return [] }
        let points = "\(Double(screen.width) / scale)x\(Double(screen.height) / scale) pt"
        return [DeviceProblem(field: field, reason: "leaves no safe area inside the \(points) screen")]
    }

    /// The longest screen side a device may have: past any screen made (8K is 7680), and what a render's canvas
    /// holds on every GPU FrameFarm runs on.
    public static let largestSide = 16384
    /// Pixels per point: 1 to 3 on every screen made.
    static let largestScale = 16.0

    static func isKebabCase(_ text: String) -> Bool {
        let words = text.split(separator: "-", omittingEmptySubsequences: false)
        return !text.isEmpty && words.allSatisfy { word in
            !word.isEmpty && word.unicodeScalars.allSatisfy { ("a"..."z").contains($0) || ("0"..."9").contains($0) }
        }
    }
}
