import Foundation
import Testing
@testable import FrameFarm
@testable import FrameFarmMedia
import FrameFarmSamples

@Suite(.serialized) struct PosterTests {
    /// An RGB source (a PNG still) is R'G'B' all the way: the manifest's probe says `rgb`, full range, and the
    /// poster at full size has the source's exact colours, with no Y'CbCr round trip to move them.
    @Test func rgbSourcesKeepTheirExactColours() throws {
        let directory = TemporaryDirectory()
        // Saturated and odd colours, where an 8-bit Y'CbCr step rounds some channel off by one or two.
        let colours: [(UInt8, UInt8, UInt8)] = [(255, 0, 0), (1, 254, 3), (250, 5, 128), (17, 200, 255), (128, 129, 127),
                                                (0, 0, 1), (254, 255, 0), (90, 11, 201)]
        let patch = 16
        var image = RGBAImage(width: patch * colours.count, height: patch, fill: (0, 0, 0, 255))
        for (index, colour) in colours.enumerated() {
            for y in 0..<patch {
                for x in (index * patch)..<((index + 1) * patch) {
                    let offset = (y * image.width + x) * 4
                    (image.pixels[offset], image.pixels[offset + 1], image.pixels[offset + 2]) = colour
                }
            }
        }
        let path = directory.write("patches.png", try ImageEncoder().encode(image, format: .png))
        var options = PosterOptions()
        options.widths = []
        options.format = .png
        let out = directory.file("out")
        let summary = PosterJob.run(inputs: [path], outputRoot: out, options: options, gpu: SharedGPU.service)
        #expect(summary.failed == 0, "\(summary.failures)")
        let manifest = try #require(ManifestStore.read(out + "/patches/manifest.json"))
        #expect(manifest.probe.colorMatrix == .rgb && manifest.probe.colorRange == .full)
        let poster = try readImage(out + "/patches/poster.png")
        try #require(poster.size == image.size)
        for (index, colour) in colours.enumerated() {
            let offset = ((patch / 2) * poster.width + index * patch + patch / 2) * 4
            let got = (poster.pixels[offset], poster.pixels[offset + 1], poster.pixels[offset + 2])
            #expect(got == colour, "patch \(index): \(got) for \(colour)")
        }
    }

    /// A re-run with other widths and another format leaves only the posters its manifest lists: the earlier
    /// run's other widths and formats go, and files that are not FrameFarm's posters stay.
    /// `--quality` reaches the encoder and the manifest's record (the record said 90 while no option set it).
    @Test func theQualityAskedForIsWrittenAndRecorded() throws {
        let directory = TemporaryDirectory()
        let path = try makeSample(in: directory) { $0.durationSeconds = 1 }
        func poster(_ extra: [String]) throws -> (bytes: Int, quality: String?) {
            let out = directory.file("out\(extra.count)")
            let run = try CommandLineTests.run(["poster", path, "--out", out, "--widths", "160", "--quiet"] + extra)
            #expect(run.status == 0, "\(run.stderr)")
            let bytes = try Data(contentsOf: URL(fileURLWithPath: out + "/sample/poster.jpg")).count
            return (bytes, ManifestStore.read(out + "/sample/manifest.json")?.poster?.settings["quality"])
        }
        let (standard, low) = (try poster([]), try poster(["--quality", "20"]))
        #expect(standard.quality == "90" && low.quality == "20")
        #expect(low.bytes * 2 < standard.bytes, "\(low.bytes) bytes at 20, \(standard.bytes) at 90")
        #expect(try CommandLineTests.run(["poster", path, "--out", directory.file("bad"), "--quality", "0"]).status == 2)
    }

    @Test func aReRunLeavesOnlyThePostersItWrote() throws {
        let directory = TemporaryDirectory()
        let path = try makeSample(in: directory) { $0.durationSeconds = 2 }
        let out = directory.file("out"), folder = out + "/sample"
        func run(widths: [Int], format: ImageFormat) -> [String] {
            var options = PosterOptions()
            options.widths = widths
            options.format = format
            let summary = PosterJob.run(inputs: [path], outputRoot: out, options: options, gpu: SharedGPU.service)
            #expect(summary.failed == 0, "\(summary.failures)")
            return (try? FileManager.default.contentsOfDirectory(atPath: folder).filter { $0.hasPrefix("poster") }.sorted()) ?? []
        }
        #expect(run(widths: [160, 240], format: .jpeg) == ["poster-160.jpg", "poster-240.jpg", "poster.jpg"])
        try Data([1]).write(to: URL(fileURLWithPath: folder + "/poster-notes.txt"))
        try Data([1]).write(to: URL(fileURLWithPath: folder + "/poster-old.jpg"))
        #expect(run(widths: [120], format: .png) == ["poster-120.png", "poster-notes.txt", "poster-old.jpg", "poster.png"])
        let manifest = try #require(ManifestStore.read(folder + "/manifest.json"))
        #expect(manifest.poster?.files.map(\.file) == ["poster.png", "poster-120.png"])
    }

    @Test func autoPosterSkipsTheBlackOpeningFadeAndBlurAndWritesEveryWidth() throws {
        let directory = TemporaryDirectory()
        let path = try makeSample(in: directory) {
            $0.durationSeconds = 16
            $0.frameRate = (10, 1)
            $0.keyframeIntervalSeconds = 1
            $0.blackLeadSeconds = 5
            $0.fadeInSeconds = 2
            $0.blurredRange = 8...12
            $0.letterbox = true
        }
        var options = PosterOptions()
        options.widths = [160, 1920]
        options.format = .png
        let out = directory.file("out")
        let summary = PosterJob.run(inputs: [path], outputRoot: out, options: options, gpu: SharedGPU.service)
        #expect(summary.failed == 0, "\(summary.failures)")
        SharedGPU.assertNoValidationMessages()
        let manifest = try #require(ManifestStore.read(out + "/sample/manifest.json"))
        let poster = try #require(manifest.poster)
        #expect(poster.timeSeconds >= 7 && !(8...12).contains(poster.timeSeconds), "picked \(poster.timeSeconds) s")
        // Full display resolution without the baked-in bars, and 160 wide; 1920 is wider than the video.
        #expect(poster.files.map(\.file) == ["poster.png", "poster-160.png"])
        // The bars are found from the poster's own keyframe candidates, past the black opening and the fade.
        var drawn = SampleOptions()
        drawn.size = PixelSize(width: 320, height: 180)
        drawn.letterbox = true
        #expect(manifest.probe.contentRect.pixelRect == drawn.contentRect)
        let full = try readImage(out + "/sample/poster.png")
        #expect(full.size == manifest.probe.contentRect.pixelRect.size)
        #expect(full.frameCode() == Int((poster.timeSeconds * 10).rounded()))
        let small = try readImage(out + "/sample/poster-160.png")
        #expect(small.width == 160 && small.frameCode() == full.frameCode())
    }

    /// A poster at a time asked for (`--at`), a preview of it, and a thumbnail track lose the whole of the bars the
    /// sample drew, as the auto poster does: the padding search decoded without deblocking (the track, its frames
    /// shrunk 4x), where the blocks across the bars' edge (46 rows, no whole number of blocks) read as picture, and
    /// 2 rows of bar stayed at the top of every render.
    @Test(arguments: ["poster", "preview", "thumbnails"]) func aFrameAskedForLosesTheWholeBars(command: String) throws {
        let directory = TemporaryDirectory()
        var drawn = SampleOptions()
        drawn.size = PixelSize(width: 640, height: 360)
        drawn.letterbox = true
        drawn.durationSeconds = 4
        drawn.keyframeIntervalSeconds = 1
        // The encoder's own preset: ultrafast writes no deblocking, so skipping it would change nothing.
        let path = try makeSample(in: directory) { $0 = drawn }
        let out = directory.file("out")
        let options = ["poster": ["--at", "1.5"], "preview": ["--at", "1.5", "--devices", "ipad-pro-13-m4"], "thumbnails": ["--interval", "1"]]
        let run = try CommandLineTests.run([command, path, "--out", out] + options[command]!)
        #expect(run.status == 0, "\(run.stderr)")
        let found = try #require(ManifestStore.read(out + "/sample/manifest.json")).probe.contentRect.pixelRect
        // The top bar whole; at the bottom, the encoder's ringing may keep a row or two.
        #expect(found.y == drawn.contentRect.y && (0...2).contains(found.height - drawn.contentRect.height), "\(found)")
    }

    /// Concealed damage reads as detail, so a damaged frame would often win: the auto poster takes a clean frame
    /// whenever there is one (the sharp part of each video here is damaged, the clean part blurred), both from
    /// keyframe candidates and from exact ones on a long GOP, and warns when every candidate was damaged.
    @Test(arguments: [(keyframeInterval: 1.0, damagedFrom: 7.0), (keyframeInterval: 4, damagedFrom: 4)])
    func theAutoPosterAvoidsDamagedFrames(keyframeInterval: Double, damagedFrom: Double) throws {
        let directory = TemporaryDirectory()
        let path = try makeSample(in: directory) {
            $0.durationSeconds = 12
            $0.frameRate = (10, 1)
            $0.keyframeIntervalSeconds = keyframeInterval
            $0.blurredRange = 0...(damagedFrom - 0.5)
        }
        var options = PosterOptions()
        options.widths = []
        options.format = .png
        func poster(_ input: String) throws -> (time: Double, code: Int?, warnings: [String]) {
            let out = directory.file("out")
            let summary = PosterJob.run(inputs: [input], outputRoot: out, options: options, gpu: SharedGPU.service,
                                        force: true)
            try #require(summary.failed == 0, "\(summary.failures)")
            let name = URL(fileURLWithPath: input).deletingPathExtension().lastPathComponent
            let time = try #require(ManifestStore.read(out + "/\(name)/manifest.json")?.poster).timeSeconds
            return (time, try readImage(out + "/\(name)/poster.png").frameCode(), summary.inputs[0].warnings.map(\.description))
        }
        let whole = try poster(path)
        try #require(whole.time >= damagedFrom, "the part to damage wins when it is whole (\(whole.time) s)")

        let partly = try poster(try damagingKeyframes(of: path, named: "partly.mp4", in: directory) { $0 >= damagedFrom })
        #expect(partly.time < damagedFrom, "picked \(partly.time) s, past the damage")
        #expect(partly.code == Int((partly.time * 10).rounded()))
        #expect(!partly.warnings.contains { $0.contains("damaged") }, "\(partly.warnings)")

        let wholly = try poster(try damagingKeyframes(of: path, named: "wholly.mp4", in: directory) { _ in true })
        #expect(wholly.warnings.contains { $0.hasPrefix("damaged data") && $0.hasSuffix("(every candidate frame was damaged)") },
                "\(wholly.warnings)")
    }

    /// A copy of the video with the back half of each keyframe packet whose time `picks` zeroed: the decoder
    /// conceals it, and the rest of its GOP inherits it.
    private func damagingKeyframes(of path: String, named name: String, in directory: TemporaryDirectory,
                                   picks: (Double) -> Bool) throws -> String {
        var data = try Data(contentsOf: URL(fileURLWithPath: path))
        let file = try MediaFile(path: path)
        while let packet = try file.readVideoPacket() {
            let position = Int(packet.pointer.pointee.pos)
            guard packet.isKeyFrame, position >= 0, let pts = packet.presentationTimestamp, picks(file.seconds(pts))
            else { continue }
            let half = (position + packet.size / 2)..<(position + packet.size)
            data.replaceSubrange(half, with: Data(count: half.count))
        }
        return directory.write(name, data)
    }

    /// One keyframe in 8 s: the exact candidates, decoded in parallel chunks, still skip the black opening and
    /// the fade, and the poster written is the chosen frame itself.
    @Test func aSingleKeyframeVideoStillGetsAPosterFromItsBestPart() throws {
        let directory = TemporaryDirectory()
        let path = try makeSample(in: directory) {
            $0.durationSeconds = 8
            $0.frameRate = (10, 1)
            $0.blackLeadSeconds = 3
            $0.fadeInSeconds = 1
        }
        let poster = try Self.autoPosterShowingItsFrame(of: path, widths: [160], in: directory)
        #expect(poster.timeSeconds >= 4, "picked \(poster.timeSeconds) s, inside the black lead or the fade")
    }

    /// One keyframe in 20 s, so the exact candidates lie in one window of the clip's first seconds: blurred there
    /// (by ffmpeg's gblur, strongly), or fading in over them, the poster still comes from the clear part after. It
    /// came from the blur, and from the middle of the fade, where the window ended.
    @Test(arguments: [(blurred: true, clearFrom: 10.0), (blurred: false, clearFrom: 8)])
    func aOneKeyframeClipsPosterLooksPastASoftOrFadingOpening(blurred: Bool, clearFrom: Double) throws {
        let directory = TemporaryDirectory()
        let made = try makeSample(in: directory, name: blurred ? "clear.mp4" : "sample.mp4") {
            $0.durationSeconds = 20
            $0.frameRate = (10, 1)
            $0.keyframeIntervalSeconds = 20
            if !blurred { $0.fadeInSeconds = 8 }
        }
        if blurred {
            try KeyframeSeekTests.ffmpeg(["-i", made, "-vf", "gblur=sigma=20:enable='lt(t,10)'", "-c:v", "libx264", "-g", "1000",
                                          "-sc_threshold", "0", "-pix_fmt", "yuv420p", directory.file("sample.mp4")])
        }
        let poster = try Self.autoPosterShowingItsFrame(of: directory.file("sample.mp4"), widths: [], in: directory)
        #expect(poster.timeSeconds >= clearFrom, "picked \(poster.timeSeconds) s")
    }

    /// Keyframes at 0, 5 and 15 s of a 20-s clip (as x264's scene cuts put them in the poster-test sample): black
    /// to 5 s, a fade to 7 s, blurred from 10 s. The window after 5 s ends in the fade; its best, at its end, is
    /// still lifting, so the spread candidates find the clear part (it picked 6.3 s, mid-fade: the check looked at
    /// the candidates of every window together, the 15-s window's after it).
    @Test func aFadeLiftingPastTheEndOfAMiddleWindowIsLookedPast() throws {
        let directory = TemporaryDirectory()
        let made = try makeSample(in: directory, name: "made.mp4") {
            $0.durationSeconds = 20
            $0.frameRate = (10, 1)
            $0.size = PixelSize(width: 640, height: 360)
            $0.blackLeadSeconds = 5
            $0.fadeInSeconds = 2
            $0.blurredRange = 10...20
        }
        try KeyframeSeekTests.ffmpeg(["-i", made, "-c:v", "libx264", "-force_key_frames", "0,5,15", "-g", "1000",
                                      "-sc_threshold", "0", "-pix_fmt", "yuv420p", directory.file("sample.mp4")])
        let poster = try Self.autoPosterShowingItsFrame(of: directory.file("sample.mp4"), widths: [], in: directory)
        #expect(poster.timeSeconds >= 7 && poster.timeSeconds < 10, "picked \(poster.timeSeconds) s")
    }

    /// Black, then colour bars (a slate), then a picture (FFmpeg's mandelbrot, soft and dark in places): the
    /// poster is the picture. The bars' contrast and edges outscored it.
    @Test func colourBarsDoNotBecomeThePoster() throws {
        let directory = TemporaryDirectory()
        let path = directory.file("slate.mp4")
        try KeyframeSeekTests.ffmpeg([
            "-f", "lavfi", "-i", "color=black:s=640x360:r=25:d=3", "-f", "lavfi", "-i", "smptehdbars=s=640x360:r=25:d=3",
            "-f", "lavfi", "-i", "mandelbrot=s=640x360:r=25,trim=duration=4", "-filter_complex",
            "[0][1][2]concat=n=3:v=1:a=0,format=yuv420p[v]", "-map", "[v]", "-c:v", "libx264", "-g", "25", path])
        var options = PosterOptions()
        options.widths = []
        let out = directory.file("out")
        #expect(PosterJob.run(inputs: [path], outputRoot: out, options: options, gpu: SharedGPU.service).failed == 0)
        let poster = try #require(ManifestStore.read(out + "/slate/manifest.json")?.poster)
        #expect(poster.timeSeconds >= 6, "picked \(poster.timeSeconds) s, in the bars from 3 to 6 s")
    }

    /// Five seconds of picture, then five of static (random grey, edges everywhere): the poster shows the picture.
    /// Static's detail, which is noise, outscored it.
    @Test func staticDoesNotBecomeThePoster() throws {
        let directory = TemporaryDirectory()
        let picture = try makeSample(in: directory, name: "picture.mp4") {
            $0.durationSeconds = 5
            $0.frameRate = (10, 1)
        }
        try KeyframeSeekTests.ffmpeg(["-i", picture, "-f", "lavfi", "-i", "nullsrc=s=320x180:r=10:d=5,geq=random(1)*255:128:128",
                                      "-filter_complex", "[0:v]format=yuv420p[a];[1:v]format=yuv420p[b];[a][b]concat=n=2:v=1",
                                      "-c:v", "libx264", "-g", "10", directory.file("sample.mp4")])
        let poster = try Self.autoPosterShowingItsFrame(of: directory.file("sample.mp4"), widths: [], in: directory)
        #expect(poster.timeSeconds < 5, "picked \(poster.timeSeconds) s, in the static")
    }

    /// Black for 9.6 s of 10: every candidate between 5% and 95% is black, so frames from the last 5% are looked
    /// at, and the poster shows one of them. A video black throughout gets a poster that says so in a warning,
    /// kept in its manifest and on the review page (it was on stderr once, then gone); a black still is told
    /// without the advice to pick a time, which it does not have.
    @Test func aPictureOnlyInTheLastSecondsStillGivesThePoster() throws {
        let directory = TemporaryDirectory()
        let path = try makeSample(in: directory) {
            $0.durationSeconds = 10
            $0.frameRate = (10, 1)
            $0.blackLeadSeconds = 9.6
        }
        let poster = try Self.autoPosterShowingItsFrame(of: path, widths: [], in: directory)
        #expect(poster.timeSeconds >= 9.6 && (poster.score?["value"] ?? 0) > 0, "picked \(poster.timeSeconds) s")
        let black = try makeSample(in: directory, name: "black.mp4") {
            $0.durationSeconds = 2
            $0.blackLeadSeconds = 2
        }
        let still = directory.write("still.jpg", try ImageEncoder().encode(RGBAImage(width: 64, height: 48), format: .jpeg))
        // A red still is flat, not black (its green plane, once taken for its luma, is).
        let red = directory.write("red.png", try ImageEncoder().encode(RGBAImage(width: 64, height: 48, fill: (255, 0, 0, 255)),
                                                                      format: .png))
        let out = directory.file("out-black")
        let summary = PosterJob.run(inputs: [black, still, red], outputRoot: out, options: PosterOptions(), gpu: SharedGPU.service)
        #expect(summary.failed == 0)
        let blackWarning = "every frame looked at for the poster is black: the poster shows little; pick a time with --at "
            + "(--poster-at for thumbnails --poster)"
        #expect(summary.inputs.map { $0.warnings.map(\.description) } == [[blackWarning], ["its only frame is black: the poster shows little"],
                                                                          ["its only frame is flat: the poster shows little"]])
        #expect(ManifestStore.read(out + "/black/manifest.json")?.poster?.warnings == [blackWarning])
        let rerun = PosterJob.run(inputs: [black], outputRoot: out, options: PosterOptions(), gpu: SharedGPU.service)
        #expect(rerun.inputs.map(\.status) == [.upToDate])
        #expect(try String(contentsOfFile: out + "/index.html", encoding: .utf8).contains(blackWarning), "the page still says it")
    }

    /// Keyframes at 0, 8 and 16 s of 20: the exact candidates lie in windows after them, decoding a fifth of the
    /// clip (4 s: [1, 1.33], [8, 9.33], [16, 17.33] by hand) instead of all of it, and the poster is one of them.
    @Test func aShortClipsPosterComesFromWindowsAfterItsKeyframes() throws {
        let directory = TemporaryDirectory()
        let path = try makeSample(in: directory) {
            $0.durationSeconds = 20
            $0.frameRate = (10, 1)
            $0.keyframeIntervalSeconds = 8
        }
        let poster = try Self.autoPosterShowingItsFrame(of: path, widths: [], in: directory)
        let windows = [1.0...(4.0 / 3), 8.0...(28.0 / 3), 16.0...(52.0 / 3)]
        #expect(windows.contains { $0.contains(poster.timeSeconds) }, "picked \(poster.timeSeconds) s")
    }

    /// The auto poster of a 10-fps sample at `path`, as PNG: the run succeeds and `poster.png` shows the frame
    /// at the time the manifest records.
    private static func autoPosterShowingItsFrame(of path: String, widths: [Int],
                                                  in directory: TemporaryDirectory) throws -> PosterSection {
        var options = PosterOptions()
        options.widths = widths
        options.format = .png
        let out = directory.file("out")
        let summary = PosterJob.run(inputs: [path], outputRoot: out, options: options, gpu: SharedGPU.service)
        #expect(summary.failed == 0, "\(summary.failures)")
        let poster = try #require(ManifestStore.read(out + "/sample/manifest.json")?.poster)
        #expect(try readImage(out + "/sample/poster.png").frameCode() == Int((poster.timeSeconds * 10).rounded()))
        return poster
    }

    /// An interlaced video's fields were captured half a frame apart; shown whole, its moving box and zone plate
    /// comb (rows alternating between the two moments). Its poster must comb no more than the same scene's
    /// progressive poster, whose only row-to-row alternation is the zone plate's real fine detail: measured,
    /// the whole interlaced frame combs about twice as much as that, its first field alone about a quarter.
    @Test func anInterlacedVideosPosterDoesNotComb() throws {
        let directory = TemporaryDirectory()
        func poster(interlaced: Bool) throws -> RGBAImage {
            let name = interlaced ? "interlaced" : "progressive"
            let path = try makeSample(in: directory, name: name + ".mp4") {
                $0.size = PixelSize(width: 640, height: 360)
                $0.durationSeconds = 2
                $0.interlaced = interlaced
            }
            var options = PosterOptions()
            options.frame = .seconds(1)
            options.widths = []
            options.format = .png
            let out = directory.file("out-" + name)
            let summary = PosterJob.run(inputs: [path], outputRoot: out, options: options, gpu: SharedGPU.service)
            #expect(summary.failed == 0, "\(summary.failures)")
            return try readImage(out + "/\(name)/poster.png")
        }
        /// Mean strength of rows that differ from both neighbours the same way (the comb's signature).
        func combing(_ image: RGBAImage) -> Double {
            var total = 0
            for y in 1..<(image.height - 1) {
                for x in 0..<image.width {
                    let here = Int(image.pixel(x: x, y: y).green)
                    let above = here - Int(image.pixel(x: x, y: y - 1).green)
                    let below = here - Int(image.pixel(x: x, y: y + 1).green)
                    if above * below > 0 { total += min(abs(above), abs(below)) }
                }
            }
            return Double(total) / Double(image.width * (image.height - 2))
        }
        let interlaced = try poster(interlaced: true), progressive = try poster(interlaced: false)
        #expect(interlaced.frameCode() == 25 && progressive.frameCode() == 25)
        #expect(combing(interlaced) < combing(progressive),
                "interlaced \(combing(interlaced)) vs progressive \(combing(progressive))")
    }

    /// An H.264 stream whose cropping window starts 32 columns in (`h264_metadata=crop_left=32`, as editors crop):
    /// FFmpeg applied it only where the planes stay 32-byte aligned, so the poster squeezed all 640 coded columns
    /// into 608 between black bars. The red box fills coded columns 0-159 and rows 0-89.
    @Test func aLeftCropInTheStreamIsHonoured() throws {
        let directory = TemporaryDirectory()
        let base = directory.file("base.mp4"), cropped = directory.file("cropped.mp4")
        try KeyframeSeekTests.ffmpeg(["-f", "lavfi", "-i", "color=c=0x808080:s=640x360:d=1:r=25,format=rgb24,"
                                      + "drawbox=x=0:y=0:w=160:h=90:c=0xC02020:t=fill", "-vf", "format=yuv420p",
                                      "-c:v", "libx264", "-crf", "12", base])
        try KeyframeSeekTests.ffmpeg(["-i", base, "-c", "copy", "-bsf:v", "h264_metadata=crop_left=32", cropped])
        let run = try CommandLineTests.run(["poster", cropped, "--out", directory.file("out"), "--at", "0.5", "--format", "png"])
        #expect(run.status == 0, "\(run.stderr)")
        let poster = try ImageDecoder.decode(Data(contentsOf: URL(fileURLWithPath: directory.file("out/cropped/poster.png"))))
        #expect(poster.width == 608 && poster.height == 360)
        func isRed(_ x: Int, _ y: Int) -> Bool {
            let pixel = poster.pixel(x: x, y: y)
            return pixel.red > 150 && pixel.green < 80
        }
        // 32 columns cropped: red to column 127, grey from 132; rows 0-89 red, grey below; no bars.
        #expect(isRed(2, 2) && isRed(124, 45) && isRed(60, 86), "red box where coded columns 32-159 show")
        #expect(!isRed(132, 45) && !isRed(60, 94), "grey beyond it")
        for (x, y) in [(300, 1), (300, 358)] {
            let pixel = poster.pixel(x: x, y: y)
            #expect(abs(Int(pixel.green) - 128) < 8, "grey, not a bar, at \(x),\(y): \(pixel)")
        }
    }

    /// A patch tagged SMPTE 240M and coded with its matrix: read as BT.601 its green was 20 levels too bright.
    /// The reference is the stored codes (decoded by the ffmpeg CLI) turned to R'G'B' by 240M's equations.
    @Test func smpte240mIsReadWithItsOwnMatrix() throws {
        let directory = TemporaryDirectory()
        let path = directory.file("m240.mp4"), raw = directory.file("m240.yuv")
        try KeyframeSeekTests.ffmpeg(["-f", "lavfi", "-i", "color=c=0x20C040:s=320x180:d=1:r=25", "-vf",
                                      "scale=out_color_matrix=smpte240m:out_range=tv,format=yuv420p", "-c:v", "libx264",
                                      "-crf", "10", "-colorspace", "smpte240m", "-color_primaries", "smpte240m",
                                      "-color_trc", "smpte240m", path])
        try KeyframeSeekTests.ffmpeg(["-i", path, "-frames:v", "1", "-f", "rawvideo", "-pix_fmt", "yuv420p", raw])
        let codes = try Data(contentsOf: URL(fileURLWithPath: raw))
        let (width, height) = (320, 180)
        let chroma = width * height + 45 * (width / 2) + 80
        let y = (Double(codes[90 * width + 160]) - 16) / 219, pb = (Double(codes[chroma]) - 128) / 224
        let pr = (Double(codes[chroma + width * height / 4]) - 128) / 224
        let (kr, kb) = (0.212, 0.087)
        let red = y + 2 * (1 - kr) * pr, blue = y + 2 * (1 - kb) * pb
        let expected = [red, (y - kr * red - kb * blue) / (1 - kr - kb), blue].map { Int(($0 * 255).rounded()) }
        #expect(try Prober.probe(paths: [path])[0].get().colorMatrix == .smpte240m)
        let run = try CommandLineTests.run(["poster", path, "--out", directory.file("out"), "--at", "0.5", "--format", "png"])
        #expect(run.status == 0, "\(run.stderr)")
        let poster = try ImageDecoder.decode(Data(contentsOf: URL(fileURLWithPath: directory.file("out/m240/poster.png"))))
        let pixel = poster.pixel(x: 160, y: 90)
        let error = zip([Int(pixel.red), Int(pixel.green), Int(pixel.blue)], expected).map { abs($0 - $1) }.max()!
        #expect(error <= 2, "\(pixel), expected \(expected)")
    }
}
