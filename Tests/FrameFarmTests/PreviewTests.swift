import Foundation
import Testing
@testable import FrameFarm

@Suite(.serialized) struct PreviewTests {
    private func run(_ path: String, out: String, removePadding: Bool, overlays: Set<PreviewOverlay> = []) throws -> VideoManifest {
        var options = PreviewOptions()
        options.devices = [DeviceCatalog.builtIn.device(id: "iphone-16-pro")!, DeviceCatalog.builtIn.device(id: "pip-iphone")!]
        options.frame = .seconds(1)
        options.overlays = overlays
        options.removePadding = removePadding ? .auto : .off
        let summary = PreviewJob.run(inputs: [path], outputRoot: out, options: options, gpu: SharedGPU.service)
        #expect(summary.failed == 0, "\(summary.failures)")
        SharedGPU.assertNoValidationMessages()
        return try #require(ManifestStore.read(out + "/" + summary.inputs[0].folder! + "/manifest.json"))
    }

    /// The renders are drawn into a staging folder that replaces preview/ whole: a preview for fewer devices
    /// leaves none of the others' renders, and one that fails while drawing leaves the earlier preview as it was
    /// and no staging folder.
    @Test func aPreviewReplacesTheLastOneWholeOrNotAtAll() throws {
        let directory = TemporaryDirectory()
        let path = try makeSample(in: directory) { $0.size = PixelSize(width: 320, height: 180) }
        let out = directory.file("out"), folder = out + "/sample/preview"
        let gpu = try GPUService(configuration: testConfiguration.gpu)
        func run(_ ids: [String]) -> BatchSummary {
            var options = PreviewOptions()
            options.devices = ids.map { DeviceCatalog.builtIn.device(id: $0)! }
            options.frame = .seconds(1)
            return PreviewJob.run(inputs: [path], outputRoot: out, options: options, gpu: gpu)
        }
        func files() throws -> [String: Data] {
            try Dictionary(uniqueKeysWithValues: FileManager.default.contentsOfDirectory(atPath: folder).filter { $0 != "review" }.map {
                ($0, try Data(contentsOf: URL(fileURLWithPath: folder + "/" + $0)))
            })
        }
        func hidden() throws -> [String] {
            try FileManager.default.contentsOfDirectory(atPath: out + "/sample").filter { $0.hasPrefix(".") }
        }
        #expect(run(["iphone-16-pro", "pip-iphone"]).failed == 0)
        #expect(try files().keys.contains { $0.hasPrefix("iphone-16-pro-") })
        #expect(run(["pip-iphone"]).failed == 0)
        let one = try files()
        #expect(!one.isEmpty && one.keys.allSatisfy { $0.hasPrefix("pip-iphone-") }, "\(one.keys.sorted())")

        gpu.injectFault(call: "vkQueueSubmit", result: -4)  // the device lost at the first render
        let failed = run(["iphone-16-pro"])
        #expect(failed.failed == 1 && failed.failures.first?.reason.contains("device was lost") == true,
                "\(failed.failures)")
        #expect(try files() == one)
        #expect(try hidden().isEmpty)
        #expect(gpu.validationMessages.isEmpty, "\(gpu.validationMessages.prefix(3))")
    }

    /// Every render has a review copy for the page, at most 480 px on its long side, of the screen's shape, that
    /// looks like the render shrunk (compared with an area average of the render, computed here): the page showed
    /// the renders themselves, about 1 GB for 50 videos. The page shows the copy and links the render.
    @Test func everyRenderHasAReviewCopyThatLooksLikeItShrunk() throws {
        let directory = TemporaryDirectory()
        let path = try makeSample(in: directory) { $0.size = PixelSize(width: 480, height: 270) }
        let out = directory.file("out")
        let manifest = try run(path, out: out, removePadding: true, overlays: [.safeArea, .corners, .crop])
        let renders = try #require(manifest.preview?.renders)
        for render in renders {
            let review = try #require(render.reviewFile, "\(render.file)")
            let full = try readImage(out + "/sample/" + render.file), small = try readImage(out + "/sample/" + review)
            let longSide = max(render.screenWidth, render.screenHeight)
            #expect(max(small.width, small.height) == min(480, longSide), "\(review)")
            #expect(abs(Double(small.width) / Double(small.height) - Double(full.width) / Double(full.height)) * Double(small.height)
                    < 1.5, "\(review) keeps the screen's shape")
            // Each review pixel against the mean of the render's pixels it covers.
            var difference = 0.0
            for y in 0..<small.height {
                for x in 0..<small.width {
                    let x0 = x * full.width / small.width, x1 = max(x0 + 1, (x + 1) * full.width / small.width)
                    let y0 = y * full.height / small.height, y1 = max(y0 + 1, (y + 1) * full.height / small.height)
                    for channel in 0..<3 {
                        var sum = 0
                        for fy in y0..<y1 { for fx in x0..<x1 { sum += Int(full.pixels[(fy * full.width + fx) * 4 + channel]) } }
                        let mean = Double(sum) / Double((x1 - x0) * (y1 - y0))
                        difference += abs(mean - Double(small.pixels[(y * small.width + x) * 4 + channel]))
                    }
                }
            }
            let meanDifference = difference / Double(small.width * small.height * 3)
            #expect(meanDifference < 8, "\(review) differs from the render shrunk by \(meanDifference) on average")
        }
        // Fit and fill of a 16:9 picture on a 16:9 screen (the iPhone's picture in picture) are one image: one
        // review copy between them, and no other copy on disk.
        let pip = renders.filter { $0.device == "pip-iphone" }
        #expect(pip.count == 2 && pip[0].reviewFile == pip[1].reviewFile, "\(pip.map(\.reviewFile))")
        let copies = try FileManager.default.contentsOfDirectory(atPath: out + "/sample/preview/review")
        #expect(Set(copies.map { "preview/review/" + $0 }) == Set(renders.compactMap(\.reviewFile)), "\(copies.sorted())")
        try ManifestStore.writeContactSheet(layout: OutputLayout(root: out))
        let page = try String(contentsOfFile: out + "/index.html", encoding: .utf8)
        let first = renders[0]
        #expect(page.contains("<a href=\"sample/\(first.file)\"><img src=\"sample/\(first.reviewFile!)\""), "the copy links the render")
    }

    @Test func barsAndCropsLandWhereTheManifestSaysWithPaddingRemovedAndKept() throws {
        let directory = TemporaryDirectory()
        let path = try makeSample(in: directory) {
            $0.size = PixelSize(width: 480, height: 270)
            $0.letterbox = true
            $0.keyframeIntervalSeconds = 0.5
        }
        for removePadding in [true, false] {
            let out = directory.file("out-\(removePadding)")
            let manifest = try run(path, out: out, removePadding: removePadding)
            let preview = try #require(manifest.preview)
            #expect(preview.paddingDetected)
            #expect(preview.paddingRemoved == removePadding)
            #expect(preview.renders.count == 4)
            // The page's facts give the picture's shape and default mode, and, where the renders keep the bars,
            // the whole frame's, which the renders follow.
            let page = try String(contentsOfFile: out + "/index.html", encoding: .utf8)
            #expect(page.contains("(the renders keep the bars: the whole 1.78:1 frame, default mode fit)") == !removePadding)
            for render in preview.renders {
                let image = try readImage(out + "/sample/" + render.file)
                #expect(image.width == render.screenWidth && image.height == render.screenHeight)
                let destination = render.destination.pixelRect
                // Outside the destination: exactly the black background, to the pixel.
                var strayPixels = 0
                for y in 0..<image.height {
                    for x in 0..<image.width where !destination.contains(PixelRect(x: x, y: y, width: 1, height: 1)) {
                        let pixel = image.pixel(x: x, y: y)
                        if pixel.red != 0 || pixel.green != 0 || pixel.blue != 0 { strayPixels += 1 }
                    }
                }
                #expect(strayPixels == 0, "\(render.file): \(strayPixels) lit pixels outside \(destination)")
                // The destination's middle column: lit at both ends when the picture reaches its edges, black
                // for the baked-in bar height (scaled) when padding is kept.
                let column = destination.x + destination.width / 2
                let litRows = (destination.y..<destination.maxY).filter { image.luma(x: column, y: $0) > 40 }
                let firstLit = try #require(litRows.first) - destination.y
                if removePadding {
                    #expect(firstLit <= 2, "\(render.file): picture starts \(firstLit) px below the destination top")
                } else {
                    // The baked bar's rows that survive the crop, scaled to the screen.
                    let barInSource = max(0, Double(manifest.probe.contentRect.y) - render.sourceCrop.y)
                    let barRows = barInSource * Double(destination.height) / render.sourceCrop.height
                    #expect(abs(Double(firstLit) - barRows) <= 3, "\(render.file): bar \(firstLit) px, expected \(barRows)")
                }
                if render.mode == .fit {
                    // The whole picture is visible in fit, so its frame code reads back as frame 25 (1 s at 25 fps).
                    let picture = removePadding ? destination : contentRect(of: manifest, in: destination)
                    #expect(image.frameCode(in: picture) == 25, "\(render.file)")
                }
            }
        }
    }

    /// The picture inside a fit destination when bars were kept: the content rect scaled into it.
    private func contentRect(of manifest: VideoManifest, in destination: PixelRect) -> PixelRect {
        let scale = Double(destination.height) / Double(manifest.probe.displayHeight)
        let content = manifest.probe.contentRect
        return PixelRect(x: destination.x + Int((Double(content.x) * scale).rounded()),
                         y: destination.y + Int((Double(content.y) * scale).rounded()),
                         width: Int((Double(content.width) * scale).rounded()),
                         height: Int((Double(content.height) * scale).rounded()))
    }

    @Test func contactSheetLinksOnlyExistingFiles() throws {
        let directory = TemporaryDirectory()
        let path = try makeSample(in: directory)
        let out = directory.file("out")
        _ = try run(path, out: out, removePadding: true, overlays: [.safeArea, .corners, .crop])
        let html = try String(contentsOfFile: out + "/index.html", encoding: .utf8)
        #expect(html.hasPrefix("<!DOCTYPE html>") && html.contains("</html>"))
        let links = html.components(separatedBy: "src=\"").dropFirst().map { $0.prefix { $0 != "\"" } }
        #expect(links.count == 4)
        for link in links {
            let file = out + "/" + (String(link).removingPercentEncoding ?? String(link))
            #expect(FileManager.default.fileExists(atPath: file), "index.html links missing \(link)")
        }
        #expect(!html.contains("http://") && !html.contains("https://"), "the contact sheet must work offline")
    }

    @Test func badInputsFailAloneAndUnknownDevicesAreListed() throws {
        let directory = TemporaryDirectory()
        let good = try makeSample(in: directory)
        var options = PreviewOptions()
        options.devices = [DeviceCatalog.builtIn.device(id: "pip-iphone")!]
        options.frame = .seconds(999)
        let summary = PreviewJob.run(inputs: [directory.write("broken.mp4", Data("nope".utf8)), good],
                                     outputRoot: directory.file("out"), options: options, gpu: SharedGPU.service)
        #expect(summary.failed == 1 && summary.succeeded == 1)
        #expect(summary.failures.first?.reason.contains("not a video") == true)
        // --at past the end shows the last frame (frame 49 of a 2 s, 25 fps clip).
        let manifest = try #require(ManifestStore.read(directory.file("out/sample/manifest.json")))
        #expect(abs(manifest.preview!.frameTimeSeconds - 1.96) < 0.001)
        let unknown = #expect(throws: DeviceCatalogError.self) { try DeviceCatalog.builtIn.select("iphone-99") }
        #expect(unknown.map { "\($0)" }?.contains("iphone-16-pro") == true, "the error lists the valid ids")
    }

    @Test func unwritableOutputFolderIsOneClearError() throws {
        let directory = TemporaryDirectory()
        let good = try makeSample(in: directory)
        let blocked = directory.write("not-a-folder", Data("x".utf8))
        var options = PreviewOptions()
        options.devices = [DeviceCatalog.builtIn.device(id: "pip-iphone")!]
        let summary = PreviewJob.run(inputs: [good], outputRoot: blocked, options: options, gpu: SharedGPU.service)
        #expect(summary.failed == 1)
        #expect(summary.failures.first?.reason.contains("cannot create output folder") == true, "\(summary.failures)")
    }

    @Test func aRerunSkipsCurrentOutputsAndRedoesChangedOrForcedOnes() throws {
        let directory = TemporaryDirectory()
        let path = try makeSample(in: directory)
        var options = PreviewOptions()
        options.devices = [DeviceCatalog.builtIn.device(id: "pip-iphone")!]
        options.frame = .seconds(0.5)
        let out = directory.file("out")
        func run(force: Bool = false) -> BatchSummary.Outcome {
            PreviewJob.run(inputs: [path], outputRoot: out, options: options, gpu: SharedGPU.service, force: force).inputs[0]
        }
        let made = run()
        #expect(made.status == .done)
        // Up to date, its outputs are listed all the same (a script finds them in --json on a re-run too).
        let skipped = run()
        #expect(skipped.status == .upToDate && !made.outputs.isEmpty && Set(skipped.outputs) == Set(made.outputs),
                "\(skipped.outputs)")
        #expect(run(force: true).status == .done)
        // A missing output makes the input current no more.
        try FileManager.default.removeItem(atPath: out + "/sample/preview/pip-iphone-landscape-fit.png")
        #expect(run().status == .done)
        #expect(FileManager.default.fileExists(atPath: out + "/sample/preview/pip-iphone-landscape-fit.png"))
        // Other settings are a different job.
        options.modes = try ModeSelection(parsing: "auto")
        #expect(run().status == .done)
    }

    @Test func onlyRendersOfTheSameScreenWithThePicturesShapeAreDrawnOnce() {
        var options = PreviewOptions()
        options.overlays = [.safeArea, .corners, .crop]
        let size = PixelSize(width: 1920, height: 1080)
        let plans = PreviewPlan.renders(options: options, policy: .hig, geometry: DisplayGeometry(codedSize: size),
                                        codedContent: PixelRect(size: size))
        let groups = PreviewJob.identicalRenders(plans)
        #expect(groups.flatMap { $0 }.sorted() == Array(plans.indices), "every render is written exactly once")
        // Independent of the plan: fit and fill coincide exactly when the screen is 16:9 (the crop tint marks
        // nothing then); every other render stays apart.
        let sixteenByNine = Set(plans.filter { $0.canvas.size.width * 9 == $0.canvas.size.height * 16 }.map(\.record.device))
        #expect(sixteenByNine.count >= 5)
        for group in groups {
            let devices = Set(group.map { plans[$0].record.device })
            #expect(devices.count == 1, "only one device's renders can coincide")
            let device = devices.first!
            #expect(group.count == (sixteenByNine.contains(device) ? 2 : 1), "\(device): \(group.map { plans[$0].record.file })")
        }
    }

    /// A device's safe-area outline is as thick in portrait as in landscape (it followed the screen's width: 5 px
    /// against 2 on an iPhone).
    @Test func theSafeAreaOutlineIsAsThickInEitherOrientation() throws {
        var options = PreviewOptions()
        options.orientations = [.landscape, .portrait]
        options.overlays = [.safeArea]
        let size = PixelSize(width: 1920, height: 1080)
        let plans = PreviewPlan.renders(options: options, policy: .hig, geometry: DisplayGeometry(codedSize: size),
                                        codedContent: PixelRect(size: size))
        var thicknesses: [String: Set<Int>] = [:]
        for plan in plans {
            for case .safeAreaOutline(_, _, let thickness) in plan.canvas.overlays {
                thicknesses[plan.record.device, default: []].insert(thickness)
            }
        }
        #expect(thicknesses["iphone-16-pro"] != nil && thicknesses.values.allSatisfy { $0.count == 1 }, "\(thicknesses)")
    }

    /// 720x480 at 32:27 is exactly 16:9 (720 x 32 : 480 x 27 = 23040 : 12960), though 853x480 in whole display
    /// pixels: on a 16:9 screen fit fills the screen and fill keeps the whole frame, so the two are drawn once. Fit
    /// left a black column (1919 px of 1920) and fill cropped a tenth of a row.
    @Test func anAnamorphicPictureOfTheScreensExactShapeFillsIt() {
        let coded = PixelSize(width: 720, height: 480)
        let geometry = DisplayGeometry(codedSize: coded, sampleAspectRatio: SampleAspectRatio(32, 27))
        var options = PreviewOptions()
        options.overlays = [.crop]
        let plans = PreviewPlan.renders(options: options, policy: .hig, geometry: geometry, codedContent: PixelRect(size: coded))
        let sixteenByNine = plans.filter { $0.canvas.size.width * 9 == $0.canvas.size.height * 16 }
        #expect(sixteenByNine.count >= 10)
        for plan in sixteenByNine {
            #expect(plan.job.destination == PixelRect(size: plan.canvas.size), "\(plan.record.file)")
            #expect(plan.job.sourceCrop == SourceRect(PixelRect(size: coded)), "\(plan.record.file): \(plan.job.sourceCrop)")
            #expect(plan.canvas.overlays.isEmpty, "no crop to tint: \(plan.record.file)")
        }
        let groups = PreviewJob.identicalRenders(plans)
        for plan in sixteenByNine {
            let group = groups.first { $0.contains { plans[$0].record.file == plan.record.file } } ?? []
            let other = plan.record.mode == .fit ? ViewingMode.fill : .fit
            #expect(group.contains { plans[$0].record.device == plan.record.device && plans[$0].record.mode == other },
                    "\(plan.record.file) is drawn once with its \(other): \(group.map { plans[$0].record.file })")
        }
    }

    /// An anamorphic frame whose display width is fractional (641 x 4/3 = 854.67, shown as 855): every render's
    /// crop stays inside the coded frame, and fit (which shows the whole picture) crops exactly the content. The
    /// GPU refuses a crop a fraction of a pixel past the edge, and the preview failed.
    @Test(arguments: [0, 90])
    func anamorphicFractionalDisplaySizesCropInsideTheFrame(rotation: Int) {
        let coded = PixelSize(width: 641, height: 359)
        let geometry = DisplayGeometry(codedSize: coded, sampleAspectRatio: SampleAspectRatio(4, 3),
                                       transform: DisplayTransform(rotation: rotation))
        for content in [PixelRect(size: coded), PixelRect(x: 0, y: 37, width: 641, height: 285)] {
            let plans = PreviewPlan.renders(options: PreviewOptions(), policy: .hig, geometry: geometry, codedContent: content)
            for plan in plans {
                let crop = plan.job.sourceCrop
                #expect(crop.x >= -1e-9 && crop.y >= -1e-9 && crop.x + crop.width <= Double(coded.width) + 1e-9
                        && crop.y + crop.height <= Double(coded.height) + 1e-9, "\(plan.record.file): \(crop)")
                if plan.record.mode == .fit {
                    #expect(abs(crop.x - Double(content.x)) < 1e-9 && abs(crop.width - Double(content.width)) < 1e-9
                            && abs(crop.y - Double(content.y)) < 1e-9 && abs(crop.height - Double(content.height)) < 1e-9,
                            "\(plan.record.file): \(crop) for \(content)")
                }
            }
        }
    }
}
