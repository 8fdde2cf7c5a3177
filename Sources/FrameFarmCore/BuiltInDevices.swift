/// The devices FrameFarm knows without a `--devices-file`.
///
/// Sources, cited per row as [n]:
/// [1] Apple Human Interface Guidelines, "Layout", device screen sizes table (points and scale factor).
/// [2] Apple tech specs pages for each product (native resolution in pixels).
/// [3] UIKit `safeAreaInsets` as reported on device or in the Simulator with the status bar shown, the values
///     apps see (iPhone XS-era: portrait 44/34, landscape 44/21; Dynamic Island iPhone 16 Pro: 62/34, 62/21;
///     iPads with a home indicator: 24 top, 20 bottom).
/// [4] tvOS HIG: keep content 60 pt from the top and bottom and 80 pt from the sides of the 1920x1080 pt screen.
/// [5] `UIScreen._displayCornerRadius` as collected by developers (not public API; community-reported figures).
/// [6] NSScreen.safeAreaInsets on notched MacBooks: 32 pt at the top, the camera housing band.
/// Approximations are marked "approx." with the reasoning next to them.

extension DeviceCatalog {
    /// The built-in devices, phones first, then tablets, TVs, Macs, watch, Vision Pro and Picture in Picture.
    public static let builtIn = DeviceCatalog(uncheckedDevices: builtInDevices)
}

private let homeIndicatorIPad = SafeAreaInsets(top: 24, bottom: 20)
private let tvSafeArea = SafeAreaInsets(top: 60, left: 80, bottom: 60, right: 80)

private let builtInDevices: [Device] = [
    // 375x667 pt [1][2]; 20 pt status bar in portrait, hidden in landscape [3]; square corners.
    Device(id: "iphone-se-3", name: "iPhone SE (3rd generation)", kind: .phone,
           nativePixels: PixelSize(width: 750, height: 1334), scale: 2,
           safeAreaPortrait: SafeAreaInsets(top: 20), safeAreaLandscape: .zero, cornerRadius: nil,
           orientations: [.portrait, .landscape]),
    // 375x812 pt [1][2]; insets [3]; corner radius 39 pt [5].
    Device(id: "iphone-xs", name: "iPhone XS", kind: .phone,
           nativePixels: PixelSize(width: 1125, height: 2436), scale: 3,
           safeAreaPortrait: SafeAreaInsets(top: 44, bottom: 34),
           safeAreaLandscape: SafeAreaInsets(left: 44, bottom: 21, right: 44), cornerRadius: 39,
           orientations: [.portrait, .landscape]),
    // 402x874 pt [1][2]; insets [3]; corner radius 62 pt [5] (the 14/15 Pro generation was 55 pt).
    Device(id: "iphone-16-pro", name: "iPhone 16 Pro", kind: .phone,
           nativePixels: PixelSize(width: 1206, height: 2622), scale: 3,
           safeAreaPortrait: SafeAreaInsets(top: 62, bottom: 34),
           safeAreaLandscape: SafeAreaInsets(left: 62, bottom: 21, right: 62), cornerRadius: 62,
           orientations: [.portrait, .landscape]),
    // 440x956 pt [1][2]; insets [3]; corner radius 62 pt [5].
    Device(id: "iphone-16-pro-max", name: "iPhone 16 Pro Max", kind: .phone,
           nativePixels: PixelSize(width: 1320, height: 2868), scale: 3,
           safeAreaPortrait: SafeAreaInsets(top: 62, bottom: 34),
           safeAreaLandscape: SafeAreaInsets(left: 62, bottom: 21, right: 62), cornerRadius: 62,
           orientations: [.portrait, .landscape]),
    // 744x1133 pt [1][2]; insets [3]; corner radius 21.5 pt [5].
    Device(id: "ipad-mini-6", name: "iPad mini (6th generation)", kind: .tablet,
           nativePixels: PixelSize(width: 1488, height: 2266), scale: 2,
           safeAreaPortrait: homeIndicatorIPad, safeAreaLandscape: homeIndicatorIPad, cornerRadius: 21.5,
           orientations: [.portrait, .landscape]),
    // 820x1180 pt [1][2]; insets [3]; corner radius 18 pt [5].
    Device(id: "ipad-air-11-m2", name: "iPad Air 11-inch (M2)", kind: .tablet,
           nativePixels: PixelSize(width: 1640, height: 2360), scale: 2,
           safeAreaPortrait: homeIndicatorIPad, safeAreaLandscape: homeIndicatorIPad, cornerRadius: 18,
           orientations: [.portrait, .landscape]),
    // 1032x1376 pt [1][2]; insets [3]; corner radius approx. 18 pt, carried over from earlier iPad Pro
    // models [5] (no figure reported for M4 yet).
    Device(id: "ipad-pro-13-m4", name: "iPad Pro 13-inch (M4)", kind: .tablet,
           nativePixels: PixelSize(width: 2064, height: 2752), scale: 2,
           safeAreaPortrait: homeIndicatorIPad, safeAreaLandscape: homeIndicatorIPad, cornerRadius: 18,
           orientations: [.portrait, .landscape]),
    // 1920x1080 pt at @1x [1]; safe area [4]; a TV's corners are square.
    Device(id: "apple-tv-hd", name: "Apple TV HD (1080p)", kind: .tv,
           nativePixels: PixelSize(width: 1920, height: 1080), scale: 1,
           safeAreaPortrait: nil, safeAreaLandscape: tvSafeArea, cornerRadius: nil, orientations: [.landscape]),
    // The same 1920x1080 pt space at @2x [1]; safe area [4].
    Device(id: "apple-tv-4k", name: "Apple TV 4K", kind: .tv,
           nativePixels: PixelSize(width: 3840, height: 2160), scale: 2,
           safeAreaPortrait: nil, safeAreaLandscape: tvSafeArea, cornerRadius: nil, orientations: [.landscape]),
    // 1280x832 pt [2]; the 32 pt camera-housing band [6] leaves a 2560x1600 (16:10) picture area. Only the top
    // corners are rounded, which a four-corner radius cannot describe, so none is given.
    Device(id: "macbook-air-13", name: "MacBook Air 13-inch (M2)", kind: .mac,
           nativePixels: PixelSize(width: 2560, height: 1664), scale: 2,
           safeAreaPortrait: nil, safeAreaLandscape: SafeAreaInsets(top: 32), cornerRadius: nil,
           orientations: [.landscape]),
    // 2560x1440 pt [2]; an external display has no safe-area insets and square corners.
    Device(id: "studio-display", name: "Studio Display", kind: .mac,
           nativePixels: PixelSize(width: 5120, height: 2880), scale: 2,
           safeAreaPortrait: nil, safeAreaLandscape: .zero, cornerRadius: nil, orientations: [.landscape]),
    // 208x248 pt [1][2], the whole screen, which full-screen video uses. Corner radius approx.: Apple publishes
    // none; 42 pt is estimated from the display shape in product imagery. Insets: none reported for full-screen
    // video, so zero; the corners are what clip the picture.
    Device(id: "apple-watch-s10-46", name: "Apple Watch Series 10 (46 mm)", kind: .watch,
           nativePixels: PixelSize(width: 416, height: 496), scale: 2,
           safeAreaPortrait: .zero, safeAreaLandscape: nil, cornerRadius: 42, orientations: [.portrait]),
    // approx.: visionOS windows have no fixed pixel density (rendering follows distance and gaze). We model the
    // default 1280x720 pt window as a 1920x1080 canvas (1.5 px/pt). Corner radius approx. 46 pt, a commonly
    // quoted figure for visionOS windows that we could not check against an Apple source.
    Device(id: "vision-pro-window", name: "Apple Vision Pro (default player window)", kind: .vision,
           nativePixels: PixelSize(width: 1920, height: 1080), scale: 1.5,
           safeAreaPortrait: nil, safeAreaLandscape: .zero, cornerRadius: 46, orientations: [.landscape]),
    // approx.: PiP sizes are chosen by the system and resized by the user. 384x216 pt is a 16:9 window close to
    // the largest iPhone size in portrait (the 402 pt wide 16 Pro screen less margins); radius approx. 10 pt.
    Device(id: "pip-iphone", name: "Picture in Picture (iPhone)", kind: .pip,
           nativePixels: PixelSize(width: 1152, height: 648), scale: 3,
           safeAreaPortrait: nil, safeAreaLandscape: .zero, cornerRadius: 10, orientations: [.landscape]),
    // approx.: a 480x270 pt 16:9 window, iPad's medium PiP size; radius approx. 10 pt.
    Device(id: "pip-ipad", name: "Picture in Picture (iPad)", kind: .pip,
           nativePixels: PixelSize(width: 960, height: 540), scale: 2,
           safeAreaPortrait: nil, safeAreaLandscape: .zero, cornerRadius: 10, orientations: [.landscape]),
]
