import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif
import FrameFarmMedia
import Testing
@testable import FrameFarm
import FrameFarmSamples

/// Thumbnails are checked by reading each tile's frame code back from the written sheets (160 px wide JPEGs),
/// so a seek that lands on the wrong frame, a wrong tile offset or an unreadable tile all fail.
@Suite(.serialized) struct ThumbnailTests {
    struct Cue {
        var start: Double
        var end: Double
        var file: String
        var rect: PixelRect
    }

    /// A strict reader of our WebVTT: header, then cues `HH:MM:SS.mmm --> HH:MM:SS.mmm` + `file#xywh=x,y,w,h`.
    static func parseVTT(_ text: String) throws -> [Cue] {
        let blocks = text.components(separatedBy: "\n\n").filter { !$0.isEmpty }
        #expect(blocks.first?.hasPrefix("WEBVTT") == true)
        func seconds(_ stamp: Substring) throws -> Double {
            let parts = stamp.split(separator: ":")
            let hms = try #require(parts.count == 3 ? parts : nil)
            #expect(hms[2].count == 6, "times carry milliseconds: \(stamp)")
            return Double(hms[0])! * 3600 + Double(hms[1])! * 60 + Double(hms[2])!
        }
        return try blocks.dropFirst().map { block in
            let lines = block.split(separator: "\n")
            let timing = try #require(lines.first { $0.contains("-->") })
            let times = timing.components(separatedBy: " --> ")
            let payload = try #require(lines.last)
            let pieces = payload.components(separatedBy: "#xywh=")
            let numbers = pieces[1].split(separator: ",").compactMap { Int($0) }
            return Cue(start: try seconds(Substring(times[0])), end: try seconds(Substring(times[1])), file: pieces[0],
                       rect: PixelRect(x: numbers[0], y: numbers[1], width: numbers[2], height: numbers[3]))
        }
    }

    /// Thumbnails of one input, checked to succeed without validation messages: its WebVTT cues, its
    /// thumbnails folder and its warnings.
    static func track(_ path: String, out: String, configure: (inout ThumbnailOptions) -> Void = { _ in })
        throws -> (cues: [Cue], folder: String, warnings: [String]) {
        var options = ThumbnailOptions()
        configure(&options)
        let summary = ThumbnailJob.run(inputs: [path], outputRoot: out, options: options, gpu: SharedGPU.service)
        #expect(summary.failed == 0, "\(summary.failures)")
        SharedGPU.assertNoValidationMessages()
        let folder = out + "/" + (summary.inputs[0].folder ?? "") + "/thumbnails/"
        let cues = try parseVTT(String(contentsOfFile: folder + "thumbnails.vtt", encoding: .utf8))
        return (cues, folder, summary.inputs[0].warnings.map(\.description))
    }

    private func thumbnails(_ path: String, out: String, configure: (inout ThumbnailOptions) -> Void) throws -> [Cue] {
        try Self.track(path, out: out, configure: configure).cues
    }

    /// The cues of the track in `folder` (ending in `/`), every tile checked to show the frame on screen at its
    /// cue's start in a `fps` video: frame floor(t x fps), a hair under for times stored in milliseconds.
    @discardableResult
    static func expectTilesOnTheirFrames(in folder: String, fps: Double) throws -> [Cue] {
        let cues = try parseVTT(String(contentsOfFile: folder + "thumbnails.vtt", encoding: .utf8))
        #expect(try frameNumbers(cues, folder: folder) == cues.map { Int(($0.start * fps + 1e-6).rounded(.down)) }, "\(folder)")
        return cues
    }

    /// Frame numbers read back from every cue's tile.
    static func frameNumbers(_ cues: [Cue], folder: String) throws -> [Int?] {
        var sheets: [String: RGBAImage] = [:]
        return try cues.map { cue in
            if sheets[cue.file] == nil { sheets[cue.file] = try readImage(folder + cue.file) }
            let sheet = sheets[cue.file]!
            #expect(PixelRect(x: 0, y: 0, width: sheet.width, height: sheet.height).contains(cue.rect), "cue outside its sheet")
            return sheet.frameCode(in: cue.rect)
        }
    }

    /// 640-px tiles in a 10x10 grid would make 6400-px sheets: the grid is lowered to fit 4096 (or a stricter
    /// --max-sheet-pixels), the sheets, cues and playlists say the grid used, a warning says so once, and every
    /// tile still shows its frame.
    @Test(arguments: [(4096, 6, 10), (2048, 3, 5)])
    func sheetsStayWithinTheLimit(limit: Int, columns: Int, rows: Int) throws {
        let directory = TemporaryDirectory()
        let path = try makeSample(in: directory) {
            $0.size = PixelSize(width: 640, height: 360)
            $0.durationSeconds = 8
            $0.keyframeIntervalSeconds = 1
        }
        let out = directory.file("out")
        let (cues, folder, warnings) = try Self.track(path, out: out) {
            $0.widths = [640]
            $0.spacing = .interval(0.1)
            $0.maxSheetSide = limit
        }
        #expect(warnings == ["sheet grid lowered from 10x10 to \(columns)x\(rows) so that no sheet is longer than "
                             + "\(limit) px (--max-sheet-pixels)"])
        for file in Set(cues.map(\.file)) {
            let sheet = try readImage(folder + file)
            #expect(sheet.width <= limit && sheet.height <= limit, "\(file) is \(sheet.width)x\(sheet.height)")
        }
        #expect(cues.allSatisfy { $0.rect.maxX <= columns * 640 && $0.rect.maxY <= rows * 360 })
        // 80 thumbnails: the first sheet holds a full grid of them, the next begins a new sheet.
        #expect(cues.count == 80)
        #expect(Set(cues.prefix(columns * rows).map(\.file)).count == 1 && cues[columns * rows].file != cues[0].file)
        let playlist = try String(contentsOfFile: folder + "thumbnails.m3u8", encoding: .utf8)
        #expect(playlist.contains("LAYOUT=\(columns)x\(rows)"))
        let manifest = try #require(ManifestStore.read(out + "/sample/manifest.json"))
        #expect(manifest.thumbnails?.columns == columns && manifest.thumbnails?.rows == rows)
        #expect(manifest.thumbnails?.settings["grid"] == (limit == 4096 ? "10x10" : "10x10 within \(limit)"))
        let codes = try Self.frameNumbers(cues, folder: folder)
        // The frame on screen at each cue start: the last one at or before it.
        #expect(codes == cues.map { Int(($0.start * 25 + 1e-6).rounded(.down)) })
    }

    /// A video far taller than wide would make 160-px tiles taller than the sheet limit (a 2x1080 strip: 160x86400,
    /// more than JPEG holds): the tiles are narrowed to the limit's height, keeping the aspect ratio, the grid
    /// lowered to one row, both warned of, and every tile still shows its frame.
    @Test func tilesTallerThanTheLimitAreNarrowed() throws {
        let directory = TemporaryDirectory()
        let path = try makeSample(in: directory) {
            $0.size = PixelSize(width: 180, height: 1280)
            $0.durationSeconds = 2
            $0.keyframeIntervalSeconds = 1
        }
        let (cues, folder, warnings) = try Self.track(path, out: directory.file("out")) {
            $0.spacing = .interval(0.25)
            $0.maxSheetSide = 1024
        }
        // 160 x 1280 / 180 = 1138 px tall; at 1024 px tall, 1024 x 180 / 1280 = 144 px wide.
        #expect(warnings == [
            "160-px thumbnails narrowed to 144x1024 so that no sheet is longer than 1024 px (--max-sheet-pixels): "
                + "the picture is far taller than wide",
            "sheet grid lowered from 10x10 to 7x1 so that no sheet is longer than 1024 px (--max-sheet-pixels)"])
        #expect(cues.count == 8 && cues.allSatisfy { $0.rect.width == 144 && $0.rect.height == 1024 })
        for file in Set(cues.map(\.file)) {
            let sheet = try readImage(folder + file)
            #expect(sheet.width <= 1024 && sheet.height == 1024, "\(file) is \(sheet.width)x\(sheet.height)")
        }
        #expect(try Self.frameNumbers(cues, folder: folder) == cues.map { Int(($0.start * 25 + 1e-6).rounded(.down)) })
    }

    /// A sheet is drawn into whole, so it may hold no more pixels than the GPU binds at once (lavapipe's 128 MiB:
    /// 1280-px tiles in a 10x10 grid within 16384 px would be 368 MB). The grid loses rows, then columns, to fit;
    /// the warning gives that reason; every tile still shows its frame. The limit is lowered here, as a device
    /// that binds less would have it, so that the sample stays small.
    @Test(arguments: [(160 * 90 * 30 + 5, 10, 3), (160 * 90 * 4, 4, 1)])
    func sheetsFitWhatTheDeviceDrawsIntoAtOnce(limit: Int, columns: Int, rows: Int) throws {
        let directory = TemporaryDirectory()
        let path = try makeSample(in: directory) {
            $0.size = PixelSize(width: 320, height: 180)
            $0.durationSeconds = 4
            $0.keyframeIntervalSeconds = 1
        }
        let gpu = try GPUService(configuration: testConfiguration.gpu)
        gpu.lowerSheetPixelLimit(to: limit)
        var options = ThumbnailOptions()
        options.spacing = .interval(0.1)
        let out = directory.file("out")
        let summary = ThumbnailJob.run(inputs: [path], outputRoot: out, options: options, gpu: gpu)
        #expect(summary.failed == 0, "\(summary.failures)")
        #expect(gpu.validationMessages.isEmpty, "\(gpu.validationMessages.prefix(3))")
        #expect(summary.inputs[0].warnings.map(\.description) == [
            "sheet grid lowered from 10x10 to \(columns)x\(rows) so that each sheet fits what the GPU draws into at once"])
        let folder = out + "/sample/thumbnails/"
        let cues = try Self.parseVTT(String(contentsOfFile: folder + "thumbnails.vtt", encoding: .utf8))
        #expect(cues.count == 40 && Set(cues.map(\.file)).count == (40 + columns * rows - 1) / (columns * rows))
        for file in Set(cues.map(\.file)) {
            let sheet = try readImage(folder + file)
            #expect(sheet.width * sheet.height <= limit && sheet.width == columns * 160, "\(file) is \(sheet.width)x\(sheet.height)")
        }
        let playlist = try String(contentsOfFile: folder + "thumbnails.m3u8", encoding: .utf8)
        #expect(playlist.contains("LAYOUT=\(columns)x\(rows)"))
        #expect(try Self.frameNumbers(cues, folder: folder) == cues.map { Int(($0.start * 25 + 1e-6).rounded(.down)) })
    }

    /// A track is written into a staging folder that replaces thumbnails/ whole once all of it is written: a
    /// re-run with other settings leaves none of the earlier run's files (a second sheet, the other widths'
    /// folders), and a run that fails while drawing leaves the earlier track as it was and no staging folder.
    @Test func aTrackReplacesTheLastOneWholeOrNotAtAll() throws {
        let directory = TemporaryDirectory()
        let path = try makeSample(in: directory) {
            $0.size = PixelSize(width: 320, height: 180)
            $0.durationSeconds = 6
            $0.keyframeIntervalSeconds = 1
        }
        let out = directory.file("out"), folder = out + "/sample/thumbnails"
        let gpu = try GPUService(configuration: testConfiguration.gpu)
        func run(widths: [Int], interval: Double) -> BatchSummary {
            var options = ThumbnailOptions()
            options.widths = widths
            options.spacing = .interval(interval)
            return ThumbnailJob.run(inputs: [path], outputRoot: out, options: options, gpu: gpu)
        }
        func files() throws -> [String: Data] {
            let manager = FileManager.default
            return try Dictionary(uniqueKeysWithValues: manager.subpathsOfDirectory(atPath: folder).compactMap { name in
                var isFolder: ObjCBool = false
                _ = manager.fileExists(atPath: folder + "/" + name, isDirectory: &isFolder)
                return isFolder.boolValue ? nil : (name, try Data(contentsOf: URL(fileURLWithPath: folder + "/" + name)))
            })
        }
        func hidden() throws -> [String] {
            try FileManager.default.contentsOfDirectory(atPath: out + "/sample").filter { $0.hasPrefix(".") }
        }

        #expect(run(widths: [160, 320], interval: 0.05).failed == 0)
        #expect(try files().keys.contains("320/sheet-0002.jpg"))
        #expect(run(widths: [160], interval: 1).failed == 0)
        let single = try files()
        #expect(single.keys.sorted() == ["iframes-stream-inf.txt", "iframes.m3u8", "iframes.mp4", "sheet-0001.jpg",
                                         "thumbnails-stream-inf.txt", "thumbnails.m3u8", "thumbnails.mpd",
                                         "thumbnails.vtt"])

        // The device is lost at the first submission, after the staging folder is made.
        gpu.injectFault(call: "vkQueueSubmit", result: -4, skipping: 1)
        let failed = run(widths: [160], interval: 0.5)
        #expect(failed.failed == 1 && failed.failures.first?.reason.contains("device was lost") == true,
                "\(failed.failures)")
        #expect(try files() == single)
        #expect(try hidden().isEmpty)
        #expect(run(widths: [160], interval: 0.5).failed == 0)
        #expect(try hidden().isEmpty && (try files()).keys.contains("sheet-0001.jpg") && (try files()) != single)
        #expect(gpu.validationMessages.isEmpty, "\(gpu.validationMessages.prefix(3))")
    }

    /// 6 s of 640x360 with a keyframe every second: 12 thumbnails at 0.5-s spacing, every width below its own.
    private static func severalWidthsSample(in directory: TemporaryDirectory) throws -> String {
        try makeSample(in: directory) {
            $0.size = PixelSize(width: 640, height: 360)
            $0.durationSeconds = 6
            $0.keyframeIntervalSeconds = 1
        }
    }

    /// `--widths`: a track per width in `thumbnails/WIDTH/`, from the same decoded frames; every tile of every
    /// width shows the frame on screen at its cue's start, the widest track's grid is lowered on its own, and one
    /// stream-inf file lists every width's playlists for a multivariant playlist.
    @Test func severalWidthsComeFromTheSameFrames() throws {
        let directory = TemporaryDirectory()
        let path = try Self.severalWidthsSample(in: directory)
        var options = ThumbnailOptions()
        options.widths = [160, 320, 640]
        options.spacing = .interval(0.5)
        let out = directory.file("out")
        let summary = ThumbnailJob.run(inputs: [path], outputRoot: out, options: options, gpu: SharedGPU.service)
        #expect(summary.failed == 0, "\(summary.failures)")
        SharedGPU.assertNoValidationMessages()
        #expect(summary.inputs[0].warnings.map(\.description) == [
            "640-px track: sheet grid lowered from 10x10 to 6x10 so that no sheet is longer than 4096 px (--max-sheet-pixels)"])
        let folder = out + "/sample/thumbnails/"
        for width in options.widths {
            let cues = try Self.parseVTT(String(contentsOfFile: folder + "\(width)/thumbnails.vtt", encoding: .utf8))
            #expect(cues.count == 12 && cues.allSatisfy { $0.rect.width == width && $0.rect.height == width * 9 / 16 })
            let codes = try Self.frameNumbers(cues, folder: folder + "\(width)/")
            #expect(codes == cues.map { Int(($0.start * 25 + 1e-6).rounded(.down)) }, "\(width) px")
            // Its I-frame track: every width's tiles, cut from its own sheet, each showing its entry's frame.
            let entries = try Self.iframeEntries(folder: folder + "\(width)/")
            #expect(entries.count == 12 && entries.allSatisfy { $0.image.width == width && $0.image.height == width * 9 / 16 },
                    "\(width) px: \(entries.map { ($0.image.width, $0.image.height) })")
            #expect(entries.map { $0.image.frameCode() } == entries.map { Optional($0.frame) }, "\(width) px")
        }
        let manifest = try #require(ManifestStore.read(out + "/sample/manifest.json")?.thumbnails)
        #expect(manifest.tileWidth == 160 && manifest.sheets == ["thumbnails/160/sheet-0001.jpg"])
        #expect(manifest.moreWidths?.map(\.tileWidth) == [320, 640] && manifest.moreWidths?.map(\.columns) == [10, 6])
        #expect(manifest.settings["width"] == "160,320,640")
        #expect(manifest.files.allSatisfy { FileManager.default.fileExists(atPath: out + "/sample/" + $0) })
        let lines = try String(contentsOfFile: folder + "thumbnails-stream-inf.txt", encoding: .utf8)
            .split(separator: "\n").filter { $0.hasPrefix("#EXT-X-IMAGE-STREAM-INF") }
        #expect(lines.count == 3)
        for (line, width) in zip(lines, options.widths) {
            #expect(line.contains("RESOLUTION=\(width)x\(width * 9 / 16)") && line.contains("URI=\"\(width)/thumbnails.m3u8\""), "\(line)")
        }
        // The DASH index: a Representation per width, as that width's own MPD describes it, whose template
        // names that width's sheets from the thumbnails folder.
        let namespace = "urn:mpeg:dash:schema:mpd:2011"
        func representations(_ file: String) throws -> [XMLElement] {
            let mpd = try #require(try XMLDocument(contentsOf: URL(fileURLWithPath: folder + file)).rootElement())
            return mpd.elements(forLocalName: "Period", uri: namespace).flatMap {
                $0.elements(forLocalName: "AdaptationSet", uri: namespace) }.flatMap {
                $0.elements(forLocalName: "Representation", uri: namespace) }
        }
        func value(_ element: XMLElement?, _ name: String) -> String? {
            element?.attributes?.first { $0.name == name }?.stringValue
        }
        let combined = try representations("thumbnails.mpd")
        #expect(combined.count == 3 && manifest.files.contains("thumbnails/thumbnails.mpd"))
        for (representation, width) in zip(combined, options.widths) {
            let own = try #require(try representations("\(width)/thumbnails.mpd").first)
            for name in ["width", "height", "bandwidth"] { #expect(value(representation, name) == value(own, name), "\(width) px \(name)") }
            let grid = { (element: XMLElement) in value(element.elements(forLocalName: "EssentialProperty", uri: namespace).first, "value") }
            #expect(grid(representation) == grid(own) && grid(representation) != nil)
            let media = try #require(value(representation.elements(forLocalName: "SegmentTemplate", uri: namespace).first, "media"))
            #expect(FileManager.default.fileExists(atPath: folder + media.replacingOccurrences(of: "$Number%04d$", with: "0001")),
                    "\(media)")
        }
    }

    /// Three widths draw their tiles in the submissions one width takes: each batch of frames is uploaded once
    /// and drawn into every width's sheet together.
    @Test func severalWidthsTakeTheSubmissionsOfOne() throws {
        let directory = TemporaryDirectory()
        let path = try Self.severalWidthsSample(in: directory)
        func submissions(widths: [Int]) throws -> Int {
            var options = ThumbnailOptions()
            options.widths = widths
            options.spacing = .interval(0.5)
            let gpu = try GPUService(configuration: testConfiguration.gpu)
            let summary = ThumbnailJob.run(inputs: [path], outputRoot: directory.file("out-\(widths.count)"),
                                           options: options, gpu: gpu)
            try #require(summary.failed == 0, "\(summary.failures)")
            #expect(gpu.validationMessages.isEmpty, "\(gpu.validationMessages.prefix(3))")
            return gpu.submissions
        }
        let one = try submissions(widths: [160])
        #expect(one >= 2, "12 thumbnails, 8 frames a batch")
        #expect(try submissions(widths: [160, 320, 640]) == one)
    }

    @Test(arguments: [(25, 1), (24, 1), (30000, 1001)])
    func exactSeekShowsTheFrameOnScreenAtEachCueStart(rate: (Int, Int)) throws {
        let directory = TemporaryDirectory()
        let path = try makeSample(in: directory) {
            $0.durationSeconds = 6
            $0.frameRate = rate
            $0.bFrames = 3
            $0.keyframeIntervalSeconds = 2.5
        }
        let out = directory.file("out")
        let cues = try thumbnails(path, out: out) {
            $0.spacing = .interval(0.7)
            $0.columns = 3
            $0.rows = 2
        }
        #expect(cues.count == 9)
        let fps = Double(rate.0) / Double(rate.1)
        let expected = cues.map { Int(($0.start * fps + 1e-6).rounded(.down)) }
        #expect(try Self.frameNumbers(cues, folder: out + "/sample/thumbnails/") == expected.map { Optional($0) })
        // Cues are contiguous from 0 to the duration, written to the millisecond.
        #expect(cues.first?.start == 0)
        for (previous, next) in zip(cues, cues.dropFirst()) { #expect(previous.end == next.start) }
        #expect(abs(cues.last!.end - 6) < 0.05)
        #expect(cues.allSatisfy { $0.rect.width == 160 && $0.rect.height == 90 })
    }

    /// WebP sheets: every manifest names them and types them, and their tiles still read back as the right frames.
    @Test func webpSheetsCarryTheTrackAndTheManifestsSayWebP() throws {
        let directory = TemporaryDirectory()
        let path = try makeSample(in: directory) { $0.durationSeconds = 4 }
        let out = directory.file("out")
        let cues = try thumbnails(path, out: out) {
            $0.spacing = .interval(1)
            $0.format = .webp
            $0.columns = 2
            $0.rows = 2
        }
        let folder = out + "/sample/thumbnails/"
        #expect(cues.map(\.file) == ["sheet-0001.webp", "sheet-0001.webp", "sheet-0001.webp", "sheet-0001.webp"])
        #expect(try Self.frameNumbers(cues, folder: folder) == cues.map { Int(($0.start * 25 + 1e-6).rounded(.down)) })
        let dash = try String(contentsOfFile: folder + "thumbnails.mpd", encoding: .utf8)
        #expect(dash.contains("mimeType=\"image/webp\""))
        let hls = try String(contentsOfFile: folder + "thumbnails.m3u8", encoding: .utf8)
        #expect(hls.contains("sheet-0001.webp") && !hls.contains(".jpg"))
        // The Apple I-frame track stays MJPEG whatever the sheets are.
        let iframes = try String(contentsOfFile: folder + "iframes-stream-inf.txt", encoding: .utf8)
        #expect(iframes.contains("CODECS=\"mjpg\""))
    }

    /// The Apple route as a player walks it: iframes.m3u8's byte ranges land on a moof whose mdat holds a JPEG of
    /// the frame on screen at that entry's time, and FFmpeg's own HLS demuxer reads the playlist to the end.
    @Test func iframePlaylistRangesHoldTheFramesAtTheirTimes() throws {
        let directory = TemporaryDirectory()
        let path = try makeSample(in: directory) { $0.durationSeconds = 4 }
        let (_, folder, _) = try Self.track(path, out: directory.file("out")) { $0.spacing = .interval(0.6) }
        let entries = try Self.iframeEntries(folder: folder)
        #expect(entries.count == 7 && entries.map { $0.image.frameCode() } == entries.map { Optional($0.frame) },
                "\(entries.map { ($0.image.frameCode(), $0.frame) })")
        let reader = try FrameReader(path: folder + "iframes.m3u8")
        var decoded = 0
        while try reader.nextFrame() != nil { decoded += 1 }
        #expect(decoded == entries.count)
    }

    /// Each entry of `folder`'s iframes.m3u8 (a 25-fps sample's track): the frame on screen at its time, and the
    /// image in the mdat of the moof its byte range lands on.
    static func iframeEntries(folder: String) throws -> [(frame: Int, image: RGBAImage)] {
        let playlist = try String(contentsOfFile: folder + "iframes.m3u8", encoding: .utf8)
        let file = try Data(contentsOf: URL(fileURLWithPath: folder + "iframes.mp4"))
        func range(_ text: Substring) -> Range<Int>? {
            let parts = text.split(separator: "@").compactMap { Int($0) }
            return parts.count == 2 ? parts[1]..<(parts[1] + parts[0]) : nil
        }
        var time = 0.0, frame = 0, entries: [(frame: Int, image: RGBAImage)] = []
        for line in playlist.split(separator: "\n") {
            if line.hasPrefix("#EXTINF:") {
                frame = Int((time * 25 + 1e-6).rounded(.down))
                time += Double(line.dropFirst(8).split(separator: ",")[0]) ?? .nan
            } else if line.hasPrefix("#EXT-X-BYTERANGE:"), let bytes = range(line.dropFirst(17)) {
                let fragment = file[bytes]
                #expect(fragment.dropFirst(4).prefix(4) == Data("moof".utf8))
                let moofSize = fragment.prefix(4).reduce(0) { $0 << 8 | Int($1) }
                let mdat = fragment.dropFirst(moofSize)
                #expect(mdat.dropFirst(4).prefix(4) == Data("mdat".utf8) && mdat.count == fragment.count - moofSize)
                entries.append((frame, try ImageDecoder.decode(Data(mdat.dropFirst(8)))))
            }
        }
        return entries
    }

    @Test func keyframeSeekShowsTheKeyframeAtOrBefore() throws {
        let directory = TemporaryDirectory()
        let path = try makeSample(in: directory) {
            $0.durationSeconds = 6
            $0.keyframeIntervalSeconds = 2
        }
        let out = directory.file("out")
        let cues = try thumbnails(path, out: out) {
            $0.spacing = .interval(1)
            $0.seek = .keyframe
        }
        let expected = cues.map { Int(($0.start / 2).rounded(.down)) * 50 }
        #expect(try Self.frameNumbers(cues, folder: out + "/sample/thumbnails/") == expected.map { Optional($0) })
    }

    /// Tracks find the bars from their own frames: a keyframe track of twenty targets from nine of them; one of
    /// four targets (keyframe or exact) from those four and frames the detector decodes at the five sample times
    /// they leave, so the decision still rests on more than the four (one of which is black). Either way the black
    /// opening and the fade don't hide the bars, the tiles are the picture's own shape, and each shows its frame.
    /// One keyframe for the whole clip: sixteen keyframe targets show one frame, one sample, and the detector
    /// decodes the other sample times (the bars were kept, decided from that one black frame).
    @Test(arguments: [(0.4, SeekMode.keyframe, 0.4), (2.0, .keyframe, 0.4), (2.0, .exact, 0.4), (0.5, .keyframe, 8.0)])
    func tracksOfLetterboxedVideoDropTheBars(interval: Double, seek: SeekMode, keyframeInterval: Double) throws {
        let directory = TemporaryDirectory()
        let path = try makeSample(in: directory) {
            $0.durationSeconds = 8
            $0.keyframeIntervalSeconds = keyframeInterval
            $0.letterbox = true
            $0.blackLeadSeconds = 1
            $0.fadeInSeconds = 1
        }
        var sample = SampleOptions()
        sample.size = PixelSize(width: 320, height: 180)
        sample.letterbox = true
        let out = directory.file("out")
        let cues = try thumbnails(path, out: out) {
            $0.spacing = .interval(interval)
            $0.seek = seek
        }
        let manifest = try #require(ManifestStore.read(out + "/sample/manifest.json"))
        #expect(manifest.probe.contentRect.pixelRect == sample.contentRect)
        #expect(manifest.probe.paddingSamples ?? 0 >= Padding.fewestSamplesForUnevenBars,
                "\(manifest.probe.paddingSamples ?? 0) usable samples")
        let height = Int((160 * Double(sample.contentRect.height) / 320 / 2).rounded()) * 2
        #expect(cues.allSatisfy { $0.rect.width == 160 && $0.rect.height == height }, "\(cues.map(\.rect))")
        // 25 frames a second; the opening's frames are black, so their codes can't be read.
        let framesPerKeyframe = Int(keyframeInterval * 25)
        let expected = cues.map { cue -> Int? in
            let frame = Int((cue.start * 25 + 1e-9).rounded(.down))
            let shown = seek == .keyframe ? frame / framesPerKeyframe * framesPerKeyframe : frame
            return shown >= 50 ? shown : nil
        }
        let read = try Self.frameNumbers(cues, folder: out + "/sample/thumbnails/")
        for (got, wanted) in zip(read, expected) where wanted != nil { #expect(got == wanted) }
    }

    /// A video that starts 2 s into its file, after its audio: the track's cues, its length and the poster's
    /// `--at` and time count from the file's start, as players' seek bars and `ffmpeg -ss` do (they were 2 s
    /// ahead); before the video, its first frame.
    @Test(arguments: [("mp4", "aac"), ("mkv", "pcm_s16le")])
    func aVideoStartingAfterItsAudioIsTimedFromTheFileStart(container: String, audio: String) throws {
        let directory = TemporaryDirectory()
        let late = try makeSampleWithAudioLead(in: directory, name: "late.\(container)", videoSeconds: 4, keyframeInterval: 1,
                                               leadSeconds: 2, audio: audio)
        let out = directory.file("out")
        let (cues, folder, _) = try Self.track(late, out: out) { $0.spacing = .interval(0.5) }
        #expect(cues.count == 12 && abs((cues.last?.end ?? 0) - 6) < 0.05, "the track spans the file's 6 s: \(cues.count)")
        let expected = cues.map { max(0, Int((($0.start - 2) * 25 + 1e-6).rounded(.down))) }
        #expect(try Self.frameNumbers(cues, folder: folder) == expected.map { Optional($0) })
        let report = try #require(ManifestStore.read(out + "/late/manifest.json")?.probe)
        #expect(abs((report.videoStartSeconds ?? 0) - 2) < 0.001 && abs(report.durationSeconds - 6) < 0.05)
        // The poster at 3.5 s on the file's timeline: frame 37, the video's 1.48 s.
        let run = try CommandLineTests.run(["poster", late, "--at", "3.5", "--widths", "320", "--out", out])
        #expect(run.status == 0, "\(run.stderr)")
        let poster = try #require(ManifestStore.read(out + "/late/manifest.json")?.poster)
        #expect(abs(poster.timeSeconds - 3.48) < 0.001, "\(poster.timeSeconds)")
        let image = try readImage(out + "/late/" + poster.files[0].file)
        #expect(image.frameCode(in: PixelRect(x: 0, y: 0, width: image.width, height: image.height)) == 37)
    }

    /// Two video tracks, both enabled: the first is the one players show, and the track's; FFmpeg's own pick is
    /// the one with more bits (here the second, larger one).
    @Test func ofTwoVideoTracksTheFirstIsRead() throws {
        let directory = TemporaryDirectory()
        let first = try makeSample(in: directory, name: "first.mp4") {
            $0.size = PixelSize(width: 160, height: 90)
            $0.firstFrameNumber = 1000
        }
        let second = try makeSample(in: directory, name: "second.mp4") { $0.size = PixelSize(width: 640, height: 360) }
        let both = directory.file("both.mp4")
        try KeyframeSeekTests.ffmpeg(["-i", first, "-i", second, "-map", "0:v", "-map", "1:v", "-c", "copy", both])
        let (cues, folder, _) = try Self.track(both, out: directory.file("out")) { $0.spacing = .interval(0.5) }
        let expected = cues.map { 1000 + Int(($0.start * 25 + 1e-6).rounded(.down)) }
        #expect(try Self.frameNumbers(cues, folder: folder) == expected.map { Optional($0) })
    }

    @Test func anamorphicAndOffsetTimestampsStillLandOnTheRightFrame() throws {
        let directory = TemporaryDirectory()
        let path = try makeSample(in: directory, name: "offset.ts") {
            $0.durationSeconds = 3
            $0.startSeconds = 10
            $0.sampleAspectRatio = SampleAspectRatio(3, 2)
        }
        let out = directory.file("out")
        let cues = try thumbnails(path, out: out) { $0.spacing = .interval(0.5) }
        // 320x180 coded with 3:2 pixels displays as 480x180, so tiles are 160 x 60.
        #expect(cues.allSatisfy { $0.rect.size == PixelSize(width: 160, height: 60) })
        let expected = cues.map { Int(($0.start * 25 + 1e-6).rounded(.down)) }
        #expect(try Self.frameNumbers(cues, folder: out + "/offset/thumbnails/") == expected.map { Optional($0) })
    }

    @Test func aVideoShorterThanOneIntervalGetsOneThumbnailAndValidManifests() throws {
        let directory = TemporaryDirectory()
        let path = try makeSample(in: directory) { $0.durationSeconds = 1.5 }
        let out = directory.file("out")
        let cues = try thumbnails(path, out: out) { _ in }
        #expect(cues.count == 1)
        #expect(try Self.frameNumbers(cues, folder: out + "/sample/thumbnails/") == [0])
        let folder = out + "/sample/thumbnails/"
        for file in ["sheet-0001.jpg", "thumbnails.m3u8", "thumbnails-stream-inf.txt", "thumbnails.mpd", "iframes.mp4",
                     "iframes.m3u8", "iframes-stream-inf.txt"] {
            #expect(FileManager.default.fileExists(atPath: folder + file), "missing \(file)")
        }
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: folder).filter { $0.hasSuffix(".tmp") }
        #expect(leftovers.isEmpty)
    }

    @Test(arguments: [90, 180, 270])
    func rotatedVideosGiveUprightTilesOfTheRightFrame(rotation: Int) throws {
        let directory = TemporaryDirectory()
        let path = try makeSample(in: directory) {
            $0.durationSeconds = 2
            $0.rotation = rotation
        }
        let out = directory.file("out")
        let cues = try thumbnails(path, out: out) { $0.spacing = .interval(0.5) }
        let turned = rotation != 180
        // 320x180 turned a quarter is 180x320: 160 x 284 tiles.
        #expect(cues.allSatisfy { $0.rect.size == (turned ? PixelSize(width: 160, height: 284) : PixelSize(width: 160, height: 90)) })
        let sheet = try readImage(out + "/sample/thumbnails/" + cues[0].file)
        for cue in cues {
            let rect = cue.rect
            // Undo the display turn to read the code in the picture's own orientation.
            let codedWidth = turned ? rect.height : rect.width, codedHeight = turned ? rect.width : rect.height
            let number = FrameCode.read(width: codedWidth, height: codedHeight) { x, y in
                switch rotation {
                case 90: sheet.luma(x: rect.x + rect.width - 1 - y, y: rect.y + x)
                case 180: sheet.luma(x: rect.x + rect.width - 1 - x, y: rect.y + rect.height - 1 - y)
                default: sheet.luma(x: rect.x + y, y: rect.y + rect.height - 1 - x)
                }
            }
            #expect(number == Int((cue.start * 25 + 1e-6).rounded(.down)), "rotation \(rotation) at \(cue.start) s")
        }
    }

    @Test func corruptPacketsInTheMiddleAreSkippedWithAWarning() throws {
        let directory = TemporaryDirectory()
        let path = try makeSample(in: directory, name: "damaged.ts") {
            $0.durationSeconds = 6
            $0.keyframeIntervalSeconds = 1
        }
        var data = try Data(contentsOf: URL(fileURLWithPath: path))
        // Scribble over a run of MPEG-TS packets in the middle (sync bytes kept, so the demuxer stays in step).
        let middle = data.count / 2 / 188 * 188
        for packet in 0..<40 {
            for byte in 4..<188 where byte % 3 == 0 { data[middle + packet * 188 + byte] ^= 0x5A }
        }
        try data.write(to: URL(fileURLWithPath: path))
        var options = ThumbnailOptions()
        options.spacing = .interval(1)
        let out = directory.file("out")
        let summary = ThumbnailJob.run(inputs: [path], outputRoot: out, options: options, gpu: SharedGPU.service)
        #expect(summary.failed == 0, "\(summary.failures)")
        let typed = try #require(summary.inputs[0].warnings.first, "no warning about the corrupt packets")
        guard case .damagedData(let damage, nil) = typed else { Issue.record("not a damage warning: \(typed)"); return }
        #expect(damage.count >= 1 && (damage.firstSeconds ?? -1) >= 0 && damage.firstSeconds! <= damage.lastSeconds!)
        let warning = typed.description
        #expect(warning.hasPrefix("damaged data at ") || warning.hasPrefix("damaged data between "), "\(warning)")
        let cues = try Self.parseVTT(String(contentsOfFile: out + "/damaged/thumbnails/thumbnails.vtt", encoding: .utf8))
        #expect(cues.count == 6)
        // Thumbnails away from the damage still show their exact frame.
        let numbers = try Self.frameNumbers(cues, folder: out + "/damaged/thumbnails/")
        #expect(numbers.first == 0 && numbers.last == 125)
    }

    @Test func aRerunSkipsACompleteTrackAndRedoesAMissingSheet() throws {
        let directory = TemporaryDirectory()
        let path = try makeSample(in: directory)
        let out = directory.file("out")
        var options = ThumbnailOptions()
        options.spacing = .interval(0.5)
        func run() -> BatchSummary.Outcome {
            ThumbnailJob.run(inputs: [path], outputRoot: out, options: options, gpu: SharedGPU.service).inputs[0]
        }
        #expect(run().status == .done)
        #expect(run().status == .upToDate)
        try FileManager.default.removeItem(atPath: out + "/sample/thumbnails/sheet-0001.jpg")
        #expect(run().status == .done)
        #expect(FileManager.default.fileExists(atPath: out + "/sample/thumbnails/sheet-0001.jpg"))
    }

    @Test func variableFrameRateThumbnailsShowTheFrameOnScreen() throws {
        let directory = TemporaryDirectory()
        let path = try makeSample(in: directory, name: "vfr.mkv") {
            $0.durationSeconds = 4
            $0.variableFrameRate = true
            $0.bFrames = 2
        }
        let out = directory.file("out")
        let cues = try thumbnails(path, out: out) { $0.spacing = .interval(0.45) }
        // Frame durations cycle 1x, 0.5x, 1.5x of 40 ms.
        var times = [0.0]
        while times.count < 120 { times.append(times.last! + 0.04 * [1.0, 0.5, 1.5][(times.count - 1) % 3]) }
        let expected = cues.map { cue in times.lastIndex { $0 <= cue.start + 1e-6 } }
        #expect(try Self.frameNumbers(cues, folder: out + "/vfr/thumbnails/") == expected)
    }

    @Test func aStillImageGivesOneThumbnailAndValidManifests() throws {
        let directory = TemporaryDirectory()
        let image = RGBAImage(width: 320, height: 240, fill: (30, 160, 90, 255))
        let path = directory.write("still.png", try ImageEncoder().encode(image, format: .png))
        let out = directory.file("out")
        let cues = try thumbnails(path, out: out) { _ in }
        #expect(cues.count == 1)
        #expect(cues[0].start == 0 && cues[0].end > 0)
        let tile = try readImage(out + "/still/thumbnails/" + cues[0].file)
        let pixel = tile.pixel(x: cues[0].rect.x + 80, y: cues[0].rect.y + 60)
        #expect(abs(Int(pixel.green) - 160) <= 6 && abs(Int(pixel.red) - 30) <= 6)
    }
}
