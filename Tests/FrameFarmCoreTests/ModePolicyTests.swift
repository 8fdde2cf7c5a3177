import FrameFarmCore
import Testing

/// A classic ratio as an encoded display size.
private struct Ratio: Sendable, CustomStringConvertible {
    var name: String
    var content: PixelSize
    var description: String { name }
}

private let classicRatios: [Ratio] = [
    Ratio(name: "4:3", content: size(1440, 1080)),
    Ratio(name: "16:9", content: size(1920, 1080)),
    Ratio(name: "1.85", content: size(1998, 1080)),
    Ratio(name: "2.0", content: size(2160, 1080)),
    Ratio(name: "2.2", content: size(2376, 1080)),
    Ratio(name: "2.35", content: size(2538, 1080)),
    Ratio(name: "2.39", content: size(2048, 858)),
    Ratio(name: "2.40", content: size(3840, 1600)),
    Ratio(name: "2.76", content: size(2760, 1000)),
    Ratio(name: "32:9", content: size(3840, 1080)),
    Ratio(name: "9:16", content: size(1080, 1920)),
]

private let phone = size(2622, 1206)
private let television = size(3840, 2160)

@Test func aspectClassesOfClassicSizes() {
    let expected: [AspectClass] = [.standard, .standard, .standard, .wide, .wide, .wide, .wide, .wide,
                                   .ultraWide, .ultraWide, .standard]
    for (ratio, aspectClass) in zip(classicRatios, expected) {
        #expect(AspectClass(displaySize: ratio.content) == aspectClass, "\(ratio)")
    }
    #expect(AspectClass(displaySize: size(1920, 962)) == .wide)  // 2:1 rounded to even rows
    #expect(AspectClass(displaySize: size(1920, 796)) == .wide)  // 2.40:1 rounded to a multiple of 8
    #expect(AspectClass(displaySize: size(3840, 1592)) == .wide)
    #expect(AspectClass(displaySize: size(858, 2048)) == .wide)  // portrait scope
    #expect(AspectClass(ratio: 1.95) == .standard)
    #expect(AspectClass(ratio: 2.43) == .ultraWide)
}

@Test(arguments: [phone, television])
private func higPolicyOnLandscapeScreens(screen: PixelSize) {
    // Standard -> fit, wide -> fill, ultra-wide -> fit, other orientation -> fit.
    let expected: [ViewingMode] = [.fit, .fit, .fit, .fill, .fill, .fill, .fill, .fill, .fit, .fit, .fit]
    for (ratio, mode) in zip(classicRatios, expected) {
        #expect(ModePolicy.hig.mode(content: ratio.content, screen: screen) == mode, "\(ratio) on \(screen)")
    }
}

@Test func maxCropPolicyOnIPhone16ProLandscape() {
    // Fill crops 1 - min(r, s) / max(r, s) of the area, s = 2622 / 1206 = 2.174:
    // 38.7, 18.2, 14.9, 8.0, 1.2, 7.5, 8.9, 9.4, 21.2, 38.9, 74.1 percent.
    let percents = [38.67, 18.23, 14.91, 8.01, 1.18, 7.48, 8.92, 9.41, 21.23, 38.85, 74.13]
    let expected: [ViewingMode] = [.fit, .fill, .fill, .fill, .fill, .fill, .fill, .fill, .fit, .fit, .fit]
    checkMaxCrop(screen: phone, percents: percents, expected: expected)
}

@Test func maxCropPolicyOnSixteenByNineTelevision() {
    // s = 16 / 9: 25.0, 0, 3.9, 11.1, 19.2, 24.4, 25.5, 25.9, 35.6, 50.0, 68.4 percent.
    let percents = [25.0, 0, 3.90, 11.11, 19.19, 24.35, 25.52, 25.93, 35.59, 50.0, 68.36]
    let expected: [ViewingMode] = [.fit, .fill, .fill, .fill, .fill, .fit, .fit, .fit, .fit, .fit, .fit]
    checkMaxCrop(screen: television, percents: percents, expected: expected)
}

private func checkMaxCrop(screen: PixelSize, percents: [Double], expected: [ViewingMode]) {
    for (index, ratio) in classicRatios.enumerated() {
        let cropped = Placement.fillCroppedFraction(content: ratio.content, screen: screen).area * 100
        #expect(abs(cropped - percents[index]) < 0.01, "\(ratio): \(cropped)%")
        #expect(ModePolicy.maxCrop(percent: 20).mode(content: ratio.content, screen: screen) == expected[index],
                "\(ratio) on \(screen)")
    }
    #expect(ModePolicy.maxCrop(percent: 100).mode(content: size(1080, 1920), screen: screen) == .fill)
    #expect(ModePolicy.maxCrop(percent: 0).mode(content: size(1920, 1080), screen: size(1280, 720)) == .fill)
}

@Test func modePolicyParsing() throws {
    #expect(try ModePolicy(parsing: "hig") == .hig)
    #expect(try ModePolicy(parsing: "max-crop:12.5") == .maxCrop(percent: 12.5))
    #expect(try ModePolicy(parsing: "max-crop:20").rawValue == "max-crop:20")
    #expect(try ModePolicy(parsing: "max-crop:12.5").rawValue == "max-crop:12.5")
    for bad in ["", "HIG", "max-crop", "max-crop:", "max-crop:x", "max-crop:101", "max-crop:-1", "max-crop:nan"] {
        #expect(throws: ValueParseError.self, "\(bad)") { try ModePolicy(parsing: bad) }
    }
    do {
        _ = try ModePolicy(parsing: "max-crop:x")
    } catch {
        #expect("\(error)" == "invalid mode policy 'max-crop:x': expected hig or max-crop:P with P a percentage from 0 to 100")
    }
}

@Test func modeSelectionParsing() throws {
    let selection = try ModeSelection(parsing: "fit, fill,auto,fit")
    #expect(selection.choices == [.mode(.fit), .mode(.fill), .auto])
    #expect(selection.description == "fit,fill,auto")
    for bad in ["", "fit,,fill", "fit,zoom"] {
        #expect(throws: ValueParseError.self, "\(bad)") { try ModeSelection(parsing: bad) }
    }
    let auto = ModeChoice.auto
    #expect(auto.resolved(content: size(2048, 858), screen: phone, policy: .hig) == .fill)
    #expect(ModeChoice.mode(.stretch).resolved(content: size(2048, 858), screen: phone, policy: .hig) == .stretch)
    #expect(try FitRegion(parsing: "safe-area") == .safeArea)
    #expect(try Orientation(parsing: "portrait") == .portrait)
    #expect(throws: ValueParseError.self) { try FitRegion(parsing: "safe") }
    #expect(size(1206, 2622).oriented(.landscape) == phone)
}

/// `--orientations`: `both` is both, a list names each once, and an empty entry (`,`, `landscape,`) is refused
/// rather than read as no orientation at all.
@Test func orientationListsAreWholeOrRefused() throws {
    #expect(try Orientation.parseList("both") == [.landscape, .portrait])
    #expect(try Orientation.parseList("portrait,landscape") == [.portrait, .landscape])
    for bad in [",", "", "landscape,", "landscape,landscape", "sideways"] {
        #expect(throws: ValueParseError.self, "\(bad)") { try Orientation.parseList(bad) }
    }
    // The message names every accepted value, `both` included (it named only landscape and portrait).
    for bad in ["sideways", "both,portrait"] {
        let error = #expect(throws: ValueParseError.self) { try Orientation.parseList(bad) }
        #expect(error?.description.contains("both, or landscape and portrait") == true)
    }
}
