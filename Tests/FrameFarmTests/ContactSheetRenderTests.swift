import Foundation
import Testing
@testable import FrameFarm

/// Renders index.html in headless Chromium and checks the page actually shows images. Skipped (with a message)
/// only where Chromium isn't installed and CI is not set: `make test` installs it.
@Suite(.serialized) struct ContactSheetRenderTests {
    static let chromium: String? = ["/usr/bin/chromium", "/usr/bin/chromium-browser", "/usr/bin/google-chrome"]
        .first { FileManager.default.isExecutableFile(atPath: $0) }

    @Test(.enabled(if: ReviewPageTests.available, "Chromium is not installed: apt-get install chromium to run this test"))
    func contactSheetRendersImagesInABrowser() throws {
        let directory = TemporaryDirectory()
        let path = try makeSample(in: directory)
        var options = PreviewOptions()
        options.devices = [DeviceCatalog.builtIn.device(id: "pip-iphone")!, DeviceCatalog.builtIn.device(id: "apple-tv-hd")!]
        options.frame = .seconds(1)
        let out = directory.file("out")
        #expect(PreviewJob.run(inputs: [path], outputRoot: out, options: options, gpu: SharedGPU.service).failed == 0)
        let screenshot = directory.file("shot.png")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: Self.chromium ?? "/usr/bin/chromium")
        process.arguments = ["--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
                             "--screenshot=\(screenshot)", "--window-size=1200,900", "file://\(out)/index.html"]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        let image = try readImage(screenshot)
        // A page that shows its preview images has many dark (letterbox, background) and saturated pixels; a
        // blank page or broken images is almost all one light colour.
        var dark = 0, colourful = 0
        for y in stride(from: 0, to: image.height, by: 2) {
            for x in stride(from: 0, to: image.width, by: 2) {
                let pixel = image.pixel(x: x, y: y)
                let high = max(pixel.red, pixel.green, pixel.blue), low = min(pixel.red, pixel.green, pixel.blue)
                if high < 40 { dark += 1 }
                if Int(high) - Int(low) > 80 { colourful += 1 }
            }
        }
        let sampled = (image.width / 2) * (image.height / 2)
        #expect(Double(dark) / Double(sampled) > 0.02, "too few dark pixels: the images did not render")
        #expect(Double(colourful) / Double(sampled) > 0.05, "too few colourful pixels: the images did not render")
    }
}
