import FrameFarmCore
import Testing

/// Sizes that stress rounding: tiny, odd, and extreme ratios.
private let awkwardSizes = [size(1, 1), size(7, 3), size(3, 7), size(1, 4000), size(4000, 1), size(2, 1),
                            size(1, 2), size(1919, 1081), size(5, 5)]

private func randomSizes(count: Int, seed: UInt64) -> [PixelSize] {
    var generator = SeededGenerator(seed: seed)
    var sizes = awkwardSizes
    for index in 0..<count {
        let limit = index % 3 == 0 ? 40 : 5000
        sizes.append(size(Int.random(in: 1...limit, using: &generator), Int.random(in: 1...limit, using: &generator)))
    }
    return sizes
}

/// Checks every fit rule for one content/region pair; returns nothing, records failures.
private func checkFit(_ content: PixelSize, in region: PixelRect) {
    let rect = Placement.fitRect(of: content, in: region)
    let context = Comment(rawValue: "\(content) in \(region) -> \(rect)")
    #expect(region.contains(rect), context)
    #expect(rect.width >= 1 && rect.height >= 1, context)
    let leftGap = rect.x - region.x, rightGap = region.maxX - rect.maxX
    let topGap = rect.y - region.y, bottomGap = region.maxY - rect.maxY
    #expect(abs(leftGap - rightGap) <= 1 && abs(topGap - bottomGap) <= 1, context)
    let contentAspect = Double(content.width) / Double(content.height)
    if content.width * region.height >= content.height * region.width {
        #expect(rect.width == region.width, context)
        let ideal = Double(region.width) / contentAspect
        #expect(abs(Double(rect.height) - ideal) <= 0.5 + 1e-9 || (rect.height == 1 && ideal < 1), context)
    } else {
        #expect(rect.height == region.height, context)
        let ideal = Double(region.height) * contentAspect
        #expect(abs(Double(rect.width) - ideal) <= 0.5 + 1e-9 || (rect.width == 1 && ideal < 1), context)
    }
}

@Test func fitRulesHoldForRandomSizes() {
    let contents = randomSizes(count: 300, seed: 1)
    let screens = randomSizes(count: 40, seed: 2)
    for content in contents {
        for screen in screens {
            checkFit(content, in: PixelRect(size: screen))
            checkFit(content, in: PixelRect(x: 3, y: 5, width: screen.width, height: screen.height))
        }
    }
}

@Test func fillAndStretchCoverTheScreenForRandomSizes() {
    let contents = randomSizes(count: 200, seed: 3)
    let screens = randomSizes(count: 30, seed: 4)
    for content in contents {
        for screen in screens {
            let context = Comment(rawValue: "\(content) on \(screen)")
            let fill = Placement(content: content, screen: screen, safeAreaInsets: .zero, mode: .fill)
            #expect(fill.destination == PixelRect(size: screen), context)
            let crop = fill.sourceCrop
            #expect(crop.x >= 0 && crop.y >= 0, context)
            #expect(crop.maxX <= Double(content.width) + 1e-9 && crop.maxY <= Double(content.height) + 1e-9, context)
            #expect(abs(crop.x - (Double(content.width) - crop.maxX)) < 1e-6, context)
            #expect(abs(crop.y - (Double(content.height) - crop.maxY)) < 1e-6, context)
            #expect(crop.width == Double(content.width) || crop.height == Double(content.height), context)
            let aspectError = crop.width / crop.height / screen.aspectRatio - 1
            #expect(abs(aspectError) < 1e-9, context)
            #expect(fill.croppedFraction.area >= 0 && fill.croppedFraction.area < 1, context)
            let stretch = Placement(content: content, screen: screen, safeAreaInsets: .zero, mode: .stretch)
            #expect(stretch.destination == PixelRect(size: screen), context)
            #expect(stretch.sourceCrop == SourceRect(PixelRect(size: content)), context)
        }
    }
}

@Test func fitInSafeAreaStaysInsideIt() {
    var generator = SeededGenerator(seed: 5)
    for content in randomSizes(count: 200, seed: 6) {
        let screen = size(Int.random(in: 10...4000, using: &generator), Int.random(in: 10...4000, using: &generator))
        let insets = PixelInsets(top: Int.random(in: 0...4, using: &generator),
                                 left: Int.random(in: 0...4, using: &generator),
                                 bottom: Int.random(in: 0...4, using: &generator),
                                 right: Int.random(in: 0...4, using: &generator))
        let placed = Placement(content: content, screen: screen, safeAreaInsets: insets, mode: .fit,
                               region: .safeArea)
        checkFit(content, in: placed.safeArea)
        #expect(placed.safeArea.contains(placed.destination))
        #expect(placed.fractionOutsideSafeArea == 0)
        let onScreen = Placement(content: content, screen: screen, safeAreaInsets: insets, mode: .fit)
        #expect((0...1).contains(onScreen.fractionOutsideSafeArea))
    }
}

// Expected rects below are worked out by hand from the rules, not copied from a run.
private let iPhone16ProLandscape = size(2622, 1206)
/// 62 pt left/right and 21 pt bottom at @3x.
private let iPhone16ProLandscapeInsets = PixelInsets(top: 0, left: 186, bottom: 63, right: 186)

@Test func sixteenByNineOnIPhone16ProLandscape() {
    let content = size(1920, 1080)
    let fit = Placement(content: content, screen: iPhone16ProLandscape,
                        safeAreaInsets: iPhone16ProLandscapeInsets, mode: .fit)
    // Height-bound: 1920 * 1206 / 1080 = 2144, centred in 2622.
    #expect(fit.destination == PixelRect(x: 239, y: 0, width: 2144, height: 1206))
    #expect(fit.croppedFraction == .none)
    #expect(fit.safeArea == PixelRect(x: 186, y: 0, width: 2250, height: 1143))
    // Only the 63 px under the bottom inset is outside: 63 / 1206.
    #expect(abs(fit.fractionOutsideSafeArea - 63.0 / 1206.0) < 1e-12)

    let safeFit = Placement(content: content, screen: iPhone16ProLandscape,
                            safeAreaInsets: iPhone16ProLandscapeInsets, mode: .fit, region: .safeArea)
    // Height-bound in 2250x1143: 1920 * 1143 / 1080 = 2032, x = 186 + (2250 - 2032) / 2.
    #expect(safeFit.destination == PixelRect(x: 295, y: 0, width: 2032, height: 1143))
    #expect(safeFit.fractionOutsideSafeArea == 0)

    let fill = Placement(content: content, screen: iPhone16ProLandscape,
                         safeAreaInsets: iPhone16ProLandscapeInsets, mode: .fill)
    // Crop height 1920 * 1206 / 2622 = 883.112 of 1080 rows, centred.
    #expect(fill.destination == PixelRect(x: 0, y: 0, width: 2622, height: 1206))
    #expect(abs(fill.sourceCrop.height - 883.1121) < 1e-3 && abs(fill.sourceCrop.y - 98.4439) < 1e-3)
    #expect(fill.sourceCrop.x == 0 && fill.sourceCrop.width == 1920)
    #expect(abs(fill.croppedFraction.vertical - 0.18230) < 1e-4 && fill.croppedFraction.horizontal == 0)
    // The visible picture is the whole screen; the safe rect covers 2250 x 1143 of it.
    #expect(abs(fill.fractionOutsideSafeArea - (1 - 2250.0 * 1143.0 / (2622.0 * 1206.0))) < 1e-12)
}

@Test func emptyInputGivesEmptyDestination() {
    let placed = Placement(content: size(0, 1080), screen: size(100, 100), safeAreaInsets: .zero, mode: .fit)
    #expect(placed.destination.isEmpty)
    #expect(placed.fractionOutsideSafeArea == 0)
    let fill = Placement(content: size(0, 0), screen: size(100, 100), safeAreaInsets: .zero, mode: .fill)
    #expect(fill.croppedFraction == .none)
}

@Test func pointInsetsRoundOutward() {
    let insets = SafeAreaInsets(top: 44, left: 20.5, bottom: 0.4, right: 0)
    #expect(insets.pixelInsets(scale: 3) == PixelInsets(top: 132, left: 62, bottom: 2, right: 0))
    #expect(insets.pixelInsets(scale: 2) == PixelInsets(top: 88, left: 41, bottom: 1, right: 0))
    let rect = PixelInsets(top: 10, left: 10, bottom: 10, right: 10).insetRect(in: size(15, 15))
    #expect(rect.isEmpty && rect.width == 0 && rect.height == 0)
}
