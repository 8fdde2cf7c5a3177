import FrameFarmCore
import Foundation
import Testing
@testable import FrameFarmGPU

extension GPUTests {
    /// Pixels land exactly where the geometry says: background outside destinations, no seams between tiles.
    @Suite struct PlacementTests {
        static let color = ColorDescription(matrix: .bt709, range: .limited)

        static func solid(_ codes: (Int, Int, Int), width: Int = 40, height: Int = 24) -> SyntheticFrame {
            SyntheticFrame(format: TestFormat.yuv420p.format(width: width, height: height, color: color),
                           codes: (codes.0, codes.1, codes.2))
        }

        /// Both where canvases are drawn: straight into host-visible memory, and in device memory then copied.
        @Test(arguments: [false, true])
        func backgroundExactlyOutsideTheDestination(canvasesOnDevice: Bool) throws {
            let background = RGBA8(red: 10, green: 20, blue: 30, alpha: 200)
            let canvas = PixelSize(width: 50, height: 40)
            let destination = PixelRect(x: 7, y: 9, width: 21, height: 11)
            let result = try TestGPU.withRenderer(canvasesOnDevice: canvasesOnDevice) { renderer in
                try renderer.render(RenderBatch(
                    sources: [Self.solid((180, 100, 150)).sourceFrame], canvases: [CanvasSpec(size: canvas, background: background)],
                    jobs: [RenderJob(sourceIndex: 0, sourceCrop: SourceRect(x: 0, y: 0, width: 40, height: 24),
                                     destination: destination, canvasIndex: 0)])).pixels(canvas: 0)
            }
            var wrong = 0
            for y in 0..<canvas.height {
                for x in 0..<canvas.width {
                    let pixel = RGBA8(packed: result.withUnsafeBytes { $0.load(fromByteOffset: (y * canvas.width + x) * 4, as: UInt32.self) })
                    let inside = destination.contains(PixelRect(x: x, y: y, width: 1, height: 1))
                    if inside ? pixel.alpha != 255 || pixel == background : pixel != background { wrong += 1 }
                }
            }
            #expect(wrong == 0)
        }

        /// 3 x 2 tiles of six solid sources in one canvas: every pixel of a tile is its colour, exactly.
        @Test func spriteTilesHaveNoSeams() throws {
            let codes = [(81, 90, 240), (145, 54, 34), (41, 240, 110), (210, 16, 146), (106, 202, 222), (170, 166, 16)]
            let frames = codes.map { Self.solid($0, width: 64, height: 36) }
            let tile = PixelSize(width: 17, height: 9)
            let canvas = PixelSize(width: tile.width * 3, height: tile.height * 2)
            let jobs = frames.indices.map { index in
                RenderJob(sourceIndex: index, sourceCrop: SourceRect(x: 0, y: 0, width: 64, height: 36),
                          destination: PixelRect(x: index % 3 * tile.width, y: index / 3 * tile.height,
                                                 width: tile.width, height: tile.height), canvasIndex: 0)
            }
            let result = try TestGPU.withRenderer { renderer in
                try renderer.render(RenderBatch(sources: frames.map(\.sourceFrame), canvases: [CanvasSpec(size: canvas)],
                                                jobs: jobs)).pixels(canvas: 0)
            }
            for (index, frame) in frames.enumerated() {
                let (r, g, b) = ReferenceRenderer.rgb(y: Double(frame.luma[0]), cb: Double(frame.cb[0]), cr: Double(frame.cr[0]),
                                                      format: frame.format)
                let expected = [r, g, b].map { Int((min(max($0, 0), 1) * 255).rounded()) }
                let originX = index % 3 * tile.width, originY = index / 3 * tile.height
                let first = (originY * canvas.width + originX) * 4
                let tileColour = Array(result[first..<first + 4])
                #expect(zip(tileColour.prefix(3).map(Int.init), expected).allSatisfy { abs($0 - $1) <= 1 },
                        "tile \(index): \(tileColour) vs \(expected)")
                var mismatches = 0
                for y in originY..<originY + tile.height {
                    for x in originX..<originX + tile.width where Array(result[(y * canvas.width + x) * 4..<(y * canvas.width + x) * 4 + 4]) != tileColour {
                        mismatches += 1
                    }
                }
                #expect(mismatches == 0, "tile \(index) has \(mismatches) pixels off its colour")
            }
        }

        /// Only rows no job draws from edge to edge are filled with the background first; the bars of a
        /// letterboxed or pillarboxed render are still background in a slot whose memory holds the last picture.
        @Test(arguments: [false, true])
        func barsAreBackgroundInAReusedSlot(canvasesOnDevice: Bool) throws {
            let canvas = PixelSize(width: 48, height: 30)
            let background = RGBA8(red: 10, green: 20, blue: 30, alpha: 255)
            let white = Self.solid((235, 128, 128)).sourceFrame
            let destinations = [PixelRect(x: 0, y: 8, width: 48, height: 14), PixelRect(x: 10, y: 0, width: 28, height: 30),
                                PixelRect(x: 0, y: 0, width: 48, height: 30)]
            try TestGPU.withRenderer(canvasesOnDevice: canvasesOnDevice) { renderer in
                for destination in destinations {
                    for target in [PixelRect(size: canvas), destination] {
                        let result = try renderer.render(RenderBatch(
                            sources: [white], canvases: [CanvasSpec(size: canvas, background: background)],
                            jobs: [RenderJob(sourceIndex: 0, sourceCrop: SourceRect(x: 0, y: 0, width: 40, height: 24),
                                             destination: target, canvasIndex: 0)]))
                        var wrong = 0
                        for y in 0..<canvas.height {
                            for x in 0..<canvas.width {
                                let inside = target.contains(PixelRect(x: x, y: y, width: 1, height: 1))
                                if result.pixel(canvas: 0, x: x, y: y) != (inside ? .white : background) { wrong += 1 }
                            }
                        }
                        #expect(wrong == 0, "\(wrong) pixels wrong drawing \(target)")
                    }
                }
            }
        }

        /// A renderer drawing canvases in device memory still draws straight into a persistent canvas (a sprite
        /// sheet), and its batches before and after that are copied out whole.
        @Test func deviceCanvasesAndPersistentCanvasesAlternate() throws {
            let canvas = PixelSize(width: 32, height: 20)
            let background = RGBA8(red: 10, green: 20, blue: 30, alpha: 255)
            let white = Self.solid((235, 128, 128)).sourceFrame
            let crop = SourceRect(x: 0, y: 0, width: 40, height: 24)
            let tile = PixelRect(x: 4, y: 2, width: 12, height: 8)
            func wrongPixels(_ pixel: (Int, Int) -> RGBA8) -> Int {
                (0..<canvas.height).reduce(0) { wrong, y in
                    wrong + (0..<canvas.width).filter { x in
                        pixel(x, y) != (tile.contains(PixelRect(x: x, y: y, width: 1, height: 1)) ? .white : background)
                    }.count
                }
            }
            try TestGPU.withRenderer(canvasesOnDevice: true) { renderer in
                let batch = RenderBatch(sources: [white], canvases: [CanvasSpec(size: canvas, background: background)],
                                        jobs: [RenderJob(sourceIndex: 0, sourceCrop: crop, destination: tile, canvasIndex: 0)])
                let before = try renderer.render(batch)
                #expect(wrongPixels { before.pixel(canvas: 0, x: $0, y: $1) } == 0)
                let sheet = try PersistentCanvas(context: renderer.context, size: canvas, background: background)
                try renderer.render(RenderBatch(sources: [white], canvases: [], jobs: batch.jobs), into: sheet)
                #expect(wrongPixels { sheet.pixel(x: $0, y: $1) } == 0)
                let after = try renderer.render(batch)
                #expect(wrongPixels { after.pixel(canvas: 0, x: $0, y: $1) } == 0)
            }
        }

        /// One submission draws into several persistent canvases of different sizes (a track's sheets at several
        /// widths), each job into its own canvas: every pixel is its tile's colour or the canvas's background,
        /// whichever canvas comes first in the list, and however the renderer draws its own canvases.
        @Test(arguments: [false, true])
        func oneSubmissionDrawsIntoSeveralPersistentCanvases(canvasesOnDevice: Bool) throws {
            let codes = [(81, 90, 240), (145, 54, 34)]
            let sources = codes.map { Self.solid($0).sourceFrame }
            let colours = codes.map { code -> RGBA8 in
                let frame = Self.solid(code)
                let (r, g, b) = ReferenceRenderer.rgb(y: Double(frame.luma[0]), cb: Double(frame.cb[0]),
                                                      cr: Double(frame.cr[0]), format: frame.format)
                let bytes = [r, g, b].map { UInt8((min(max($0, 0), 1) * 255).rounded()) }
                return RGBA8(red: bytes[0], green: bytes[1], blue: bytes[2], alpha: 255)
            }
            let sizes = [PixelSize(width: 24, height: 14), PixelSize(width: 48, height: 28), PixelSize(width: 96, height: 56)]
            let backgrounds = [RGBA8(red: 1, green: 2, blue: 3, alpha: 255), RGBA8(red: 4, green: 5, blue: 6, alpha: 255),
                               RGBA8(red: 7, green: 8, blue: 9, alpha: 255)]
            // (canvas, source, tile): the first source in every canvas, the second in the larger two.
            let tiles: [(canvas: Int, source: Int, rect: PixelRect)] = [
                (0, 0, PixelRect(x: 0, y: 0, width: 12, height: 7)),
                (1, 0, PixelRect(x: 0, y: 0, width: 24, height: 14)), (1, 1, PixelRect(x: 24, y: 14, width: 24, height: 14)),
                (2, 1, PixelRect(x: 48, y: 0, width: 48, height: 28)), (2, 0, PixelRect(x: 0, y: 28, width: 48, height: 28)),
            ]
            try TestGPU.withRenderer(canvasesOnDevice: canvasesOnDevice) { renderer in
                let canvases = try zip(sizes, backgrounds).map {
                    try PersistentCanvas(context: renderer.context, size: $0, background: $1)
                }
                let jobs = tiles.map {
                    RenderJob(sourceIndex: $0.source, sourceCrop: SourceRect(x: 0, y: 0, width: 40, height: 24),
                              destination: $0.rect, canvasIndex: $0.canvas)
                }
                try renderer.finish(try renderer.submit(RenderBatch(sources: sources, canvases: [], jobs: jobs),
                                                        into: canvases))
                for (index, canvas) in canvases.enumerated() {
                    var wrong = 0
                    for y in 0..<canvas.size.height {
                        for x in 0..<canvas.size.width {
                            let tile = tiles.first { $0.canvas == index && $0.rect.contains(PixelRect(x: x, y: y, width: 1, height: 1)) }
                            let expected = tile.map { colours[$0.source] } ?? backgrounds[index]
                            let pixel = canvas.pixel(x: x, y: y)
                            let close = zip([pixel.red, pixel.green, pixel.blue, pixel.alpha],
                                            [expected.red, expected.green, expected.blue, expected.alpha])
                                .allSatisfy { abs(Int($0) - Int($1)) <= 1 }
                            if !close { wrong += 1 }
                        }
                    }
                    #expect(wrong == 0, "canvas \(index): \(wrong) pixels wrong")
                }
            }
        }

        @Test func onlyRowsNotDrawnAcrossAreFilled() {
            let size = PixelSize(width: 30, height: 20)
            func rows(_ rects: [PixelRect]) -> [Range<Int>] { BatchPlan.rowsNotDrawnAcross(size, by: rects) }
            #expect(rows([PixelRect(size: size)]) == [])
            #expect(rows([PixelRect(x: 0, y: 4, width: 30, height: 12)]) == [0..<4, 16..<20])
            #expect(rows([PixelRect(x: 1, y: 0, width: 29, height: 20)]) == [0..<20])
            #expect(rows([]) == [0..<20])
            // Sheet tiles: two full rows of three, then one tile; overhanging and abutting rects count.
            let tiles = (0..<7).map { PixelRect(x: $0 % 3 * 10, y: $0 / 3 * 6, width: 10, height: 6) }
            #expect(rows(tiles) == [12..<20])
            #expect(rows([PixelRect(x: -5, y: -3, width: 20, height: 30), PixelRect(x: 15, y: 2, width: 40, height: 30)])
                    == [0..<2])
        }

        @Test func destinationPartlyOutsideTheCanvasIsClipped() throws {
            let canvas = PixelSize(width: 20, height: 10)
            let result = try TestGPU.withRenderer { renderer in
                try renderer.render(RenderBatch(
                    sources: [Self.solid((235, 128, 128)).sourceFrame], canvases: [CanvasSpec(size: canvas)],
                    jobs: [RenderJob(sourceIndex: 0, sourceCrop: SourceRect(x: 0, y: 0, width: 40, height: 24),
                                     destination: PixelRect(x: -5, y: 4, width: 30, height: 20), canvasIndex: 0)]))
            }
            #expect(result.pixel(canvas: 0, x: 0, y: 4) == .white)
            #expect(result.pixel(canvas: 0, x: 19, y: 9) == .white)
            #expect(result.pixel(canvas: 0, x: 19, y: 3) == .black)
        }

        @Test func invalidJobsAreRejected() throws {
            try TestGPU.withRenderer { renderer in
                let frame = Self.solid((100, 128, 128))
                let canvas = CanvasSpec(size: PixelSize(width: 4, height: 4))
                let bad = [
                    RenderJob(sourceIndex: 1, sourceCrop: SourceRect(x: 0, y: 0, width: 4, height: 4),
                              destination: PixelRect(x: 0, y: 0, width: 4, height: 4), canvasIndex: 0),
                    RenderJob(sourceIndex: 0, sourceCrop: SourceRect(x: 0, y: 0, width: 41, height: 4),
                              destination: PixelRect(x: 0, y: 0, width: 4, height: 4), canvasIndex: 0),
                    RenderJob(sourceIndex: 0, sourceCrop: SourceRect(x: 0, y: 0, width: 4, height: 4),
                              destination: PixelRect(x: 0, y: 0, width: 0, height: 4), canvasIndex: 0),
                ]
                for job in bad {
                    #expect(throws: GPUError.self) {
                        _ = try renderer.render(RenderBatch(sources: [frame.sourceFrame], canvases: [canvas], jobs: [job]))
                    }
                }
            }
        }
    }
}
