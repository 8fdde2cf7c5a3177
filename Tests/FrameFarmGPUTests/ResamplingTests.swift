import FrameFarmCore
import Foundation
import Testing
@testable import FrameFarmGPU

extension GPUTests {
    /// GPU output against the independent CPU reference: mean absolute error <= 1 LSB and PSNR >= 45 dB, with the
    /// prefilter pass run by the device (the shader) and by the host (`HostPrefilter`, used on CPU devices).
    @Suite struct ResamplingTests {
        /// A picture with detail at several scales (what video has), in every plane.
        static func frame(_ format: TestFormat, width: Int, height: Int,
                          color: ColorDescription = ColorDescription(matrix: .bt709, range: .limited)) -> SyntheticFrame {
            SyntheticFrame(format: format.format(width: width, height: height, color: color),
                           luma: { x, y in 0.5 + 0.3 * sin(x / 7 + y / 11) + 0.15 * cos(x / 23 - y / 5) },
                           cb: { x, y in 0.25 * sin(x / 13) * cos(y / 17) },
                           cr: { x, y in 0.25 * cos(x / 19 + y / 9) })
        }

        static func check(_ frame: SyntheticFrame, crop: SourceRect, size: PixelSize,
                          filter: ResamplingFilter = .lanczos3, sourceLocation: SourceLocation = #_sourceLocation) throws {
            let reference = ReferenceRenderer.render(frame, crop: crop, size: size, filter: filter)
            // The device's prefilter, the host's from the upload copy, and the host's from lent (bottom-up) planes;
            // and the device's prefilter drawing into device memory, copied to the host at the end.
            for (onHost, source, prefilter, onDevice) in [
                (false, frame.sourceFrame, "device", false), (true, frame.sourceFrame, "host", false),
                (true, frame.lentSourceFrame, "host, in place", false),
                (false, frame.sourceFrame, "device, canvases in device memory", true),
            ] {
                let pixels = try TestGPU.withRenderer(prefilterOnHost: onHost, canvasesOnDevice: onDevice) { renderer in
                    try renderer.render(RenderBatch(
                        sources: [source], canvases: [CanvasSpec(size: size)],
                        jobs: [RenderJob(sourceIndex: 0, sourceCrop: crop, destination: PixelRect(size: size),
                                         canvasIndex: 0)],
                        filter: filter)).pixels(canvas: 0)
                }
                let comparison = ImageComparison(pixels, reference)
                let job = "\(frame.format.width)x\(frame.format.height) \(crop) -> \(size) \(filter)"
                #expect(comparison.meanAbsoluteError <= 1 && comparison.psnr >= 45,
                        "\(job), prefilter on the \(prefilter): \(comparison)", sourceLocation: sourceLocation)
            }
        }

        static func whole(_ frame: SyntheticFrame) -> SourceRect {
            SourceRect(x: 0, y: 0, width: Double(frame.format.width), height: Double(frame.format.height))
        }

        /// A job whose intermediate alone passes the budget (a full-size poster of an 8K frame, 8 bytes a pixel, on
        /// a device that binds 128 MiB at once) is drawn in bands of rows, each filtering only the rows it reads.
        /// With the budget at a fifth of the job's intermediate: five bands or more, the result matches the CPU
        /// reference (1:1, and an upscale of a crop), and turned or mirrored it is the whole job's within a level.
        @Test func aJobBeyondTheIntermediateBudgetIsDrawnInBands() throws {
            let frame = Self.frame(.yuv420p, width: 240, height: 136)
            let cases = [(Self.whole(frame), PixelSize(width: 240, height: 136)),
                         (SourceRect(x: 10.5, y: 3.25, width: 31, height: 17), PixelSize(width: 97, height: 61))]
            let transforms = [DisplayTransform.identity, DisplayTransform(rotation: 90), DisplayTransform(rotation: 180),
                              DisplayTransform(rotation: 270, mirrored: true), DisplayTransform(mirrored: true)]
            try TestGPU.withRenderer(prefilterOnHost: true) { renderer in
                let normal = renderer.intermediateBudget
                defer { renderer.intermediateBudget = normal }
                for (crop, size) in cases {
                    // Luma rows and two chroma planes of half the rows, each row a stride of whole quads.
                    let budget = (size.width + 3) / 4 * 4 * (size.height + 2 * ((size.height + 1) / 2)) / 5
                    for transform in transforms {
                        let canvas = transform.swapsAxes ? size.transposed : size
                        let batch = RenderBatch(sources: [frame.sourceFrame], canvases: [CanvasSpec(size: canvas)],
                                                jobs: [RenderJob(sourceIndex: 0, sourceCrop: crop, destination: PixelRect(size: canvas),
                                                                 canvasIndex: 0, transform: transform)])
                        let plan = try BatchPlan(batch: batch, intermediateBudget: budget, canvasAlignment: 4,
                                                 filterTables: FilterTableCache())
                        #expect(plan.jobs.count >= 5 && plan.intermediateFloats <= budget, "\(plan.jobs.count) bands")
                        renderer.intermediateBudget = normal
                        let whole = try renderer.render(batch).pixels(canvas: 0)
                        renderer.intermediateBudget = budget
                        let banded = try renderer.render(batch).pixels(canvas: 0)
                        let comparison = ImageComparison(banded, whole)
                        #expect(comparison.maxAbsoluteError <= 1, "\(crop) -> \(size), \(transform): \(comparison)")
                        if transform == .identity {
                            let reference = ImageComparison(banded, ReferenceRenderer.render(frame, crop: crop, size: size))
                            #expect(reference.meanAbsoluteError <= 1 && reference.psnr >= 45, "\(crop) -> \(size): \(reference)")
                        }
                    }
                }
            }
        }

        /// A canvas larger than the device binds at once (a DCI 8K poster: 141 MB, over lavapipe's 128 MiB) is
        /// drawn in windows of rows, each bound on its own. With the limit at 37 rows of a 202-px canvas (windows of
        /// 36 rows, so each next window starts on the binding alignment), a letterboxed job and a turned one across
        /// windows, and overlays across windows, come out as on the whole canvas; the letterboxed job matches the
        /// CPU reference, and the overlays' known colours are where they belong. Prefiltered by the device or the
        /// host, drawn into the readback buffer or into device memory (what a discrete GPU does).
        @Test(arguments: [false, true], [false, true])
        func aCanvasBeyondTheBindingLimitIsDrawnInWindows(prefilterOnHost: Bool, canvasesOnDevice: Bool) throws {
            let frame = Self.frame(.yuv420p, width: 240, height: 136)
            let size = PixelSize(width: 202, height: 150)
            let fitted = PixelRect(x: 0, y: 20, width: 141, height: 80)
            let turned = PixelRect(x: 152, y: 8, width: 40, height: 71)
            let background = RGBA8(red: 20, green: 40, blue: 60), green = RGBA8(red: 0, green: 255, blue: 0)
            let tint = RGBA8(red: 255, green: 0, blue: 0, alpha: 96)
            let canvas = CanvasSpec(size: size, background: background, overlays: [
                .tint(PixelRect(x: 0, y: 102, width: 140, height: 38), color: tint),
                .safeAreaOutline(PixelRect(x: 146, y: 2, width: 52, height: 146), color: green, thickness: 3),
                .roundedCornerMask(radius: 14),
            ])
            let batch = RenderBatch(sources: [frame.sourceFrame], canvases: [canvas], jobs: [
                RenderJob(sourceIndex: 0, sourceCrop: Self.whole(frame), destination: fitted, canvasIndex: 0),
                RenderJob(sourceIndex: 0, sourceCrop: SourceRect(x: 100, y: 20, width: 96, height: 54),
                          destination: turned, canvasIndex: 0, transform: DisplayTransform(rotation: 90)),
            ])
            try TestGPU.withRenderer(prefilterOnHost: prefilterOnHost, canvasesOnDevice: canvasesOnDevice) { renderer in
                let normal = renderer.canvasWindowPixels
                defer { renderer.canvasWindowPixels = normal }
                let whole = try renderer.render(batch).pixels(canvas: 0)
                renderer.canvasWindowPixels = size.width * 37
                let plan = try BatchPlan(batch: batch, intermediateBudget: renderer.intermediateBudget,
                                         canvasAlignment: 16, windowPixels: renderer.canvasWindowPixels,
                                         filterTables: FilterTableCache())
                #expect(plan.windows.map(\.firstRow) == [0, 36, 72, 108, 144])
                #expect(plan.jobs.map(\.canvasIndex) == [0, 1, 2, 0, 1, 2], "each job in the windows its rows reach")
                let rendered = try renderer.render(batch)
                let windowed = rendered.pixels(canvas: 0)
                #expect(ImageComparison(windowed, whole).maxAbsoluteError == 0)

                var region: [UInt8] = []
                for y in fitted.y..<fitted.maxY {
                    region += windowed[(y * size.width + fitted.x) * 4..<(y * size.width + fitted.maxX) * 4]
                }
                let reference = ImageComparison(region, ReferenceRenderer.render(frame, crop: Self.whole(frame),
                                                                                 size: fitted.size))
                #expect(reference.meanAbsoluteError <= 1 && reference.psnr >= 45, "\(reference)")
                // Background under the tint (rows 102-139, across the window starting at 108), the outline's
                // strips in every window, and the corners masked in the first and last windows.
                let tinted = RGBA8(red: UInt8((20 + (255 - 20) * 96.0 / 255).rounded()),
                                   green: UInt8((40 * (1 - 96.0 / 255)).rounded()),
                                   blue: UInt8((60 * (1 - 96.0 / 255)).rounded()))
                for y in [102, 107, 108, 139] { #expect(rendered.pixel(canvas: 0, x: 70, y: y) == tinted, "row \(y)") }
                #expect(rendered.pixel(canvas: 0, x: 70, y: 140) == background)
                for y in [3, 35, 36, 100, 147] { #expect(rendered.pixel(canvas: 0, x: 147, y: y) == green, "row \(y)") }
                for (x, y) in [(0, 0), (201, 0), (0, 149), (201, 149), (1, 146)] {
                    #expect(rendered.pixel(canvas: 0, x: x, y: y) == background, "(\(x), \(y))")
                }
            }
        }

        @Test(arguments: TestFormat.allCases)
        func downscaleAndUpscaleEveryFormat(_ format: TestFormat) throws {
            let frame = Self.frame(format, width: 240, height: 136)
            try Self.check(frame, crop: Self.whole(frame), size: PixelSize(width: 57, height: 31))   // 4.2x, no pre-shrink
            try Self.check(frame, crop: Self.whole(frame), size: PixelSize(width: 19, height: 11))   // 12x, box pre-shrink
            try Self.check(frame, crop: SourceRect(x: 10.5, y: 3.25, width: 31, height: 17),
                           size: PixelSize(width: 97, height: 61))                                   // upscale
        }

        /// R'G'B' planes (the `rgb` matrix: G, B, R as FFmpeg's gbrp) are scaled as they are, in either range.
        @Test(arguments: ColorRange.allCases)
        func rgbPlanesScaleWithoutAMatrix(_ range: ColorRange) throws {
            let frame = Self.frame(.yuv444p, width: 240, height: 136, color: ColorDescription(matrix: .rgb, range: range))
            try Self.check(frame, crop: Self.whole(frame), size: PixelSize(width: 57, height: 31))
            try Self.check(frame, crop: SourceRect(x: 10.5, y: 3.25, width: 31, height: 17), size: PixelSize(width: 97, height: 61))
        }

        @Test(arguments: ResamplingFilter.allCases)
        func everyFilter(_ filter: ResamplingFilter) throws {
            let frame = Self.frame(.yuv420p, width: 200, height: 120)
            try Self.check(frame, crop: Self.whole(frame), size: PixelSize(width: 23, height: 13), filter: filter)
            try Self.check(frame, crop: SourceRect(x: 20, y: 10, width: 40, height: 30), size: PixelSize(width: 90, height: 70),
                           filter: filter)
        }

        @Test func oddSizes() throws {
            let frame = Self.frame(.yuv420p, width: 333, height: 187)
            try Self.check(frame, crop: Self.whole(frame), size: PixelSize(width: 1, height: 1))
            let quarter = Self.frame(.yuv420p, width: 88, height: 41)
            try Self.check(quarter, crop: Self.whole(quarter), size: PixelSize(width: 7, height: 3))
            let small = Self.frame(.nv12, width: 321, height: 181)
            try Self.check(small, crop: Self.whole(small), size: PixelSize(width: 1279, height: 719))
            let tiny = Self.frame(.yuv420p, width: 1, height: 1)
            try Self.check(tiny, crop: Self.whole(tiny), size: PixelSize(width: 5, height: 3))
        }

        @Test func extremeRatios() throws {
            let wide = Self.frame(.yuv420p, width: 3840, height: 24)
            try Self.check(wide, crop: Self.whole(wide), size: PixelSize(width: 160, height: 24))
            let narrow = Self.frame(.yuv420p, width: 160, height: 16)
            try Self.check(narrow, crop: Self.whole(narrow), size: PixelSize(width: 3840, height: 16))
            let tall = Self.frame(.p010, width: 16, height: 960)
            try Self.check(tall, crop: Self.whole(tall), size: PixelSize(width: 16, height: 40))
        }

        /// Crops flush with each edge, and fractional crops whose taps must stay inside the crop.
        @Test func cropsTouchingEveryEdge() throws {
            let frame = Self.frame(.yuv420p, width: 160, height: 96)
            let crops = [SourceRect(x: 0, y: 0, width: 60, height: 40), SourceRect(x: 100, y: 0, width: 60, height: 40),
                         SourceRect(x: 0, y: 56, width: 60, height: 40), SourceRect(x: 100, y: 56, width: 60, height: 40),
                         SourceRect(x: 0.5, y: 12.25, width: 159.5, height: 71.5)]
            for crop in crops {
                try Self.check(frame, crop: crop, size: PixelSize(width: 45, height: 31))
                try Self.check(frame, crop: crop, size: PixelSize(width: 9, height: 5))
            }
        }

        @Test(arguments: [ChromaSiting.left, .center, .topLeft])
        func chromaSiting(_ siting: ChromaSiting) throws {
            let color = ColorDescription(matrix: .bt601, range: .limited, chromaSiting: siting)
            for format in [TestFormat.yuv420p, .yuv422p] {
                let frame = Self.frame(format, width: 96, height: 64, color: color)
                try Self.check(frame, crop: Self.whole(frame), size: PixelSize(width: 41, height: 29))
                try Self.check(frame, crop: Self.whole(frame), size: PixelSize(width: 150, height: 100))
            }
        }

        /// The largest box (64 x 64 samples): its 8-bit sums outgrow the packed 16-bit lanes the prefilter adds
        /// words in, so they are unpacked word by word; planar, interleaved and 16-bit samples.
        @Test(arguments: [TestFormat.yuv420p, .nv12, .p010])
        func largestBoxes(_ format: TestFormat) throws {
            let frame = Self.frame(format, width: 3000, height: 1100)
            try Self.check(frame, crop: Self.whole(frame), size: PixelSize(width: 18, height: 7))
        }

        /// Content sharp enough that a pre-shrink would show, through the box path at large ratios.
        @Test func boxPrefilterKeepsQuality() throws {
            let frame = SyntheticFrame(format: TestFormat.yuv420p.format(width: 1280, height: 720,
                                                                         color: .assumed(forHeight: 720)),
                                       luma: { x, y in 0.5 + 0.35 * sin(x / 3.1) * sin(y / 4.3) + 0.1 * sin(x / 40) },
                                       cb: { x, _ in 0.3 * sin(x / 6) }, cr: { _, y in 0.3 * sin(y / 5) })
            try Self.check(frame, crop: Self.whole(frame), size: PixelSize(width: 160, height: 90))
            try Self.check(frame, crop: Self.whole(frame), size: PixelSize(width: 64, height: 36))
        }
    }
}
