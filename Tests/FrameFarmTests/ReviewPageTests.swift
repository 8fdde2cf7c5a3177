import Foundation
import Testing
@testable import FrameFarm
@testable import FrameFarmCore

/// The review page (OUT/index.html) in a real headless Chromium, driven through its DevTools protocol by
/// Tests/Browser/review_page_driver.py, over a batch the CLI makes in the test; opened from disk and served by
/// nginx. What the page shows is checked against the thumbnail track the job wrote (its WebVTT file, parsed here)
/// and against the frame number read from the pixels of the tile on screen.
@Suite(.serialized) struct ReviewPageTests {
    /// Skipped only where Chromium cannot be installed; CI must run these tests (`make test` installs it).
    static let available = ContactSheetRenderTests.chromium != nil || ProcessInfo.processInfo.environment["CI"] != nil
    static let fps = 10.0
    static let driver = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Browser/review_page_driver.py").path

    @Test(.enabled(if: available, "Chromium is not installed: apt-get install chromium (make test does) to run this test"))
    func theReviewPageWorksOpenedFromDisk() throws {
        let directory = TemporaryDirectory()
        let broken = try Self.makeBatch(in: directory.path)
        let out = directory.file("out")
        let report = try Self.drive(url: "file://\(out)/index.html", shots: directory.file("shots"))
        try Self.check(report, out: out, pageBase: "file://\(out)/", sourceBase: "file://\(directory.path)/", broken: broken)
    }

    /// Served, with the scrubbed and played video read by its URL (a presigned-style query on it): the page plays
    /// it from the URL without the query, which appears nowhere in the page.
    @Test(.enabled(if: available && WebServer.available, "Chromium or nginx is not installed (make test installs both)"))
    func theReviewPageWorksServedOverHTTP() throws {
        let server = try WebServer()
        let broken = try Self.makeBatch(in: server.root, clip: server.url("clip.mp4") + "?X-Amz-Signature=secret")
        let shots = TemporaryDirectory()
        let report = try Self.drive(url: server.url("out/index.html"), shots: shots.path)
        try Self.check(report, out: server.root + "/out", pageBase: server.url("out/"), sourceBase: server.url(""), broken: broken)
        #expect(server.accessLog.contains { $0.hasPrefix("GET /clip.mp4 ") }, "the played source was asked of the server")
        let page = try String(contentsOfFile: server.root + "/out/index.html", encoding: .utf8)
        #expect(page.contains("data-source=\"\(server.url("clip.mp4"))\"") && !page.contains("secret"))
    }

    /// In `root`: clip.mp4 (scrubbed and played), boxed.mp4 (baked-in padding), wide.ts (ultra-wide, in a container
    /// Chromium does not play) and broken.mp4 (not a video), through preview, poster and thumbnails into root/out.
    /// `clip`: how clip.mp4 is named to the commands (its path by default, or a URL it is served at). Returns
    /// broken.mp4's path.
    static func makeBatch(in root: String, clip: String? = nil) throws -> String {
        func cli(_ arguments: [String]) throws {
            let run = try CommandLineTests.run(arguments)
            #expect(run.status == 0 || arguments.contains(root + "/broken.mp4"), "\(arguments): \(run.stderr)")
        }
        let sample = ["--fps", "10", "--keyframe-interval", "2", "--preset", "ultrafast"]
        try cli(["sample", "--out", root + "/clip.mp4", "--duration", "6", "--size", "320x180"] + sample)
        try cli(["sample", "--out", root + "/boxed.mp4", "--duration", "4", "--size", "320x240", "--letterbox"] + sample)
        try cli(["sample", "--out", root + "/wide.ts", "--duration", "3", "--size", "480x180"] + sample)
        let broken = root + "/broken.mp4"
        #expect(FileManager.default.createFile(atPath: broken, contents: Data("not a video".utf8)))
        let good = [clip ?? root + "/clip.mp4", root + "/boxed.mp4"]
        try cli(["preview"] + good + ["--out", root + "/out", "--devices", "pip-iphone,apple-tv-hd"])
        try cli(["poster"] + good + ["--out", root + "/out"])
        // Last, so its failure heads the page.
        try cli(["thumbnails"] + good + [root + "/wide.ts", broken, "--out", root + "/out", "--interval", "1"])
        return broken
    }

    /// Runs the driver (stopped by its process id if it overruns) and decodes its report.
    static func drive(url: String, shots: String) throws -> [String: Any] {
        try FileManager.default.createDirectory(atPath: shots, withIntermediateDirectories: true)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        process.arguments = [driver, url, "--video", "clip", "--unplayable", "wide", "--shots", shots, "--overlays", "boxed"]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        let watchdog = DispatchWorkItem { if process.isRunning { kill(process.processIdentifier, SIGTERM) } }
        DispatchQueue.global().asyncAfter(deadline: .now() + 180, execute: watchdog)
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        watchdog.cancel()
        let report = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any], "no report")
        #expect(report["driverError"] == nil, "\(report["driverError"] ?? "")")
        return report
    }

    static func check(_ report: [String: Any], out: String, pageBase: String, sourceBase: String, broken: String) throws {
        let cues = try ThumbnailTests.parseVTT(String(contentsOfFile: out + "/clip/thumbnails/thumbnails.vtt", encoding: .utf8))
        let duration = try #require(cues.last?.end)
        func cueIndex(at fraction: Double) -> Int? {
            let time = fraction * duration
            return cues.firstIndex { $0.start <= time && time < $0.end }
        }
        func expectShows(_ state: [String: Any], cue index: Int, _ what: String) {
            let cue = cues[index]
            #expect(state["image"] as? String == "url(\"\(pageBase)clip/thumbnails/\(cue.file)\")", "\(what)")
            #expect(state["position"] as? String == "\(-cue.rect.x)px \(-cue.rect.y)px", "\(what)")
        }

        // Hover at 10%, 90% and 37%: the tile of the cue covering that time, its frame on screen, the time printed.
        let scrub = try #require(report["scrub"] as? [String: Any])
        let hovers = try #require(scrub["hovers"] as? [[String: Any]])
        #expect(hovers.count == 3)
        var lastIndex = 0
        for hover in hovers {
            let fraction = try #require(hover["fraction"] as? Double)
            let index = try #require(cueIndex(at: fraction))
            expectShows(hover, cue: index, "hover at \(fraction)")
            let tile = try readImage(try #require(hover["screenshot"] as? String))
            #expect(tile.frameCode() == Int(cues[index].start * fps + 1e-6), "the tile on screen at \(fraction)")
            let printed = (hover["time"] as? String)?.components(separatedBy: " / ").first.flatMap(seconds)
            #expect(abs((printed ?? -1) - fraction * duration) <= 0.0015, "printed \(hover["time"] ?? "")")
            lastIndex = index
        }
        // Right, left, left from the 37% cue: one cue each.
        let steps = try #require(scrub["steps"] as? [[String: Any]])
        for (step, expected) in zip(steps, [lastIndex + 1, lastIndex, lastIndex - 1]) {
            expectShows(step, cue: expected, "after \(step["key"] ?? "")")
        }

        // Click at 37%: the source plays from there, within a frame.
        let play = try #require(report["play"] as? [String: Any])
        let clicked = try #require(play["fraction"] as? Double) * duration
        let seeked = try #require(play["seekedAt"] as? Double, "the video never seeked: \(play)")
        #expect(abs(seeked - clicked) <= 1 / fps, "seeked to \(seeked) for a click at \(clicked)")
        #expect(play["playing"] as? Bool == true && play["source"] as? String == sourceBase + "clip.mp4", "\(play)")
        let unplayable = try #require(report["unplayable"] as? [String: Any])
        #expect((unplayable["status"] as? String)?.hasPrefix("Cannot play ../wide.ts: ") == true, "\(unplayable)")
        #expect(unplayable["hidden"] as? Bool == true, "no broken player is left on the page")

        // The letterboxed video's overlay toggles: each shows its overlays, hidden before, and each overlay lies on
        // its render where the manifest's rectangles put it (the picture's rect is checked by hand in
        // ReviewPageGeometryTests).
        let manifest = try #require(ManifestStore.read(out + "/boxed/manifest.json"))
        let preview = try #require(manifest.preview)
        let overlays = try #require(report["overlays"] as? [String: [String: Any]])
        for kind in ["safe-area", "crop", "picture"] {
            let toggled = try #require(overlays[kind], "no \(kind) toggle")
            let before = toggled["before"] as? [Bool] ?? [], after = toggled["after"] as? [Bool] ?? []
            #expect(!before.isEmpty && !before.contains(true) && after.count == before.count && !after.contains(false),
                    "\(kind): \(toggled)")
            for shown in toggled["rects"] as? [[String: Any]] ?? [] {
                let render = try #require(preview.renders.first { "boxed/" + ($0.reviewFile ?? $0.file) == shown["render"] as? String })
                let expected: SourceRect
                switch kind {
                case "safe-area": expected = SourceRect(render.safeArea.pixelRect)
                case "picture": expected = ContactSheetWriter.pictureRect(render, preview: preview, probe: manifest.probe)
                default: continue  // the crop's whole picture: drawn from the same numbers as the picture's
                }
                let width = Double(render.screenWidth), height = Double(render.screenHeight)
                for (measured, wanted) in [("left", expected.x / width), ("top", expected.y / height),
                                           ("width", expected.width / width), ("height", expected.height / height)] {
                    #expect(abs((shown[measured] as? Double ?? -1) - wanted) < 0.005, "\(kind) \(measured) on \(render.file)")
                }
            }
        }

        // Filters and keys.
        let failed = broken.lowercased()
        let filters = try #require(report["filters"] as? [String: Any])
        let byFlag = try #require(filters["byFlag"] as? [String: [String]])
        #expect(byFlag["all"] == [failed, "boxed", "clip", "wide"])
        #expect(byFlag["failed"] == [failed] && byFlag["padding"] == ["boxed"] && byFlag["ultra-wide"] == ["wide"], "\(byFlag)")
        #expect(filters["byName"] as? [String] == ["boxed"] && filters["afterClearing"] as? [String] == byFlag["all"])
        #expect(report["keys"] as? [String] == [failed, "boxed", failed], "j, j, k")

        // Nothing asked outside OUT but the source played; no console error; no blank section.
        let requests = (report["requests"] as? [String] ?? []).filter { !$0.hasPrefix("data:") }
        #expect(requests.contains(pageBase + "clip/thumbnails/sheet-0001.jpg"))
        let allowed = [sourceBase + "clip.mp4", sourceBase + "wide.ts"]
        #expect(requests.filter { !$0.hasPrefix(pageBase) && !allowed.contains($0) } == [])
        #expect(report["consoleErrors"] as? [String] == [])
        let shots = try #require(report["sectionShots"] as? [String: String])
        #expect(Set(shots.keys).isSuperset(of: ["boxed", "clip", "wide"]))
        for (section, path) in shots {
            #expect(try shareOfCommonestColour(readImage(path)) < 0.99, "section \(section) looks blank")
        }
        try checkPageIsLight(out: out)
    }

    /// Under 30 KB of page per video; every image lazy with alt text; nothing fetched from outside OUT.
    static func checkPageIsLight(out: String) throws {
        let page = try String(contentsOfFile: out + "/index.html", encoding: .utf8)
        let videos = page.components(separatedBy: "<section id=").count - 1
        #expect(videos == 3 && page.utf8.count / videos < 30_000, "\(page.utf8.count) bytes for \(videos) videos")
        let images = page.components(separatedBy: "<img ").dropFirst()
        #expect(!images.isEmpty && images.allSatisfy { $0.contains("loading=\"lazy\"") && $0.contains("alt=\"") })
        #expect(page.components(separatedBy: "<script").count == 2, "one script for the page")
        for outside in ["http:", "https:", "//"] {
            #expect(!page.contains("src=\"\(outside)") && !page.contains("href=\"\(outside)") && !page.contains("url(\(outside)"))
        }
        #expect(!page.contains("<link rel=\"stylesheet") && !page.contains("@import") && !page.contains("@font-face"))
    }

    /// `m:ss.mmm` in seconds.
    static func seconds(_ text: String) -> Double? {
        let parts = text.split(separator: ":")
        guard parts.count == 2, let minutes = Double(parts[0]), let seconds = Double(parts[1]) else { return nil }
        return minutes * 60 + seconds
    }

    static func shareOfCommonestColour(_ image: RGBAImage) -> Double {
        var counts: [UInt32: Int] = [:]
        for offset in stride(from: 0, to: image.pixels.count, by: 4) {
            let colour = UInt32(image.pixels[offset]) << 16 | UInt32(image.pixels[offset + 1]) << 8 | UInt32(image.pixels[offset + 2])
            counts[colour, default: 0] += 1
        }
        return Double(counts.values.max() ?? 0) / Double(max(1, image.width * image.height))
    }
}

/// What the review page says of hostile names and of inputs that failed or went away, read from its HTML. Found by
/// a tester: a right-to-left override in a failed file's name showed its reason reversed, an input failing in three
/// commands counted as three failed videos, ids held spaces, and a page written by `poster` listed a deleted input
/// as healthy, which only `report`'s page flagged.
@Suite struct ReviewPageTextTests {
    @Test func namesAreIsolatedFailuresCountedOnceAndGoneInputsFlagged() throws {
        let directory = TemporaryDirectory()
        let good = try makeSample(in: directory, name: "with space.mp4") { $0.durationSeconds = 1 }
        let gone = try makeSample(in: directory, name: "gone.mp4") { $0.durationSeconds = 1 }
        let reversed = directory.write("\u{202E}bad.mp4", Data())
        let out = directory.file("out")
        for command in [["poster"], ["thumbnails", "--interval", "0.5"]] {
            let run = try CommandLineTests.run(command + [good, gone, reversed, "--out", out])
            #expect(run.status == 1)
            // The override is written escaped on the terminal, so the rest of the line reads as written.
            #expect(run.stderr.contains("\\u{202E}bad.mp4: ") && !run.stderr.contains("\u{202E}"), "\(run.stderr)")
        }
        var page = try String(contentsOfFile: out + "/index.html", encoding: .utf8)
        #expect(page.contains("<bdi class=\"failed\">\(reversed)</bdi>: poster: "), "the name isolated from the reason")
        #expect(page.contains(">1 failed</button>"), "one input failed, in two commands")
        let ids = page.matches(of: /id="([^"]*)"/).map { String($0.1) }
        #expect(ids.contains("with%20space") && !ids.contains { $0.contains(" ") }, "\(ids)")

        try FileManager.default.removeItem(atPath: gone)
        #expect(try CommandLineTests.run(["poster", good, "--out", out, "--force"]).status == 0)
        page = try String(contentsOfFile: out + "/index.html", encoding: .utf8)
        let flagged = page.matches(of: /<li class="item"[^>]*data-flags="changed"[^>]*><a href="index.html#([^"]*)"><bdi>([^<]*)<\/bdi><\/a>: ([^<]*)<\/li>/)
            .map { "\($0.1) \($0.2): \($0.3)" }
        #expect(flagged == ["gone \(gone): the input changed or is gone since its outputs were made"], "\(flagged)")
        #expect(ids.contains("gone"))
    }

    /// `report` without a list knows the inputs only from the runs: a shard that never ran left it "complete", exit
    /// 0. It now names the shards of the latest count that no record names, and is not complete until they ran.
    /// Its page lists stale inputs after the failures without counting them as failed (it said "1 failed").
    @Test func aShardNeverRunIsReportedAndStaleInputsAreNotFailures() throws {
        let directory = TemporaryDirectory()
        let inputs = try ["a", "b", "c", "d"].map { name in try makeSample(in: directory, name: "\(name).mp4") { $0.durationSeconds = 1 } }
        let out = directory.file("out")
        #expect(try CommandLineTests.run(["poster"] + inputs + ["--out", out, "--shard", "0/2"]).status == 0)
        let halfDone = try CommandLineTests.run(["report", out, "--json"])
        // The shard never run is a line of its own filter, "not done", as an input without outputs is.
        let halfPage = try String(contentsOfFile: out + "/index.html", encoding: .utf8)
        #expect(halfPage.contains("data-flags=\"not-done\" data-name=\"shard 1/2\"") && halfPage.contains(">1 not done</button>"))
        #expect(halfDone.status == 1 && halfDone.stderr.contains("shards never run: 1/2"), "\(halfDone.stderr)")
        let summary = try JSONSerialization.jsonObject(with: Data(halfDone.stdout.utf8)) as? [String: Any]
        #expect(((summary?["commands"] as? [String: Any])?["poster"] as? [String: Any])?["shardsNotRun"] as? [String] == ["1/2"])
        #expect(try CommandLineTests.run(["poster"] + inputs + ["--out", out, "--shard", "1/2"]).status == 0)
        #expect(try CommandLineTests.run(["report", out]).status == 0, "every shard ran")
        // Only a shard given no inputs ran (more shards than inputs): the others are still to run (it said "no
        // outputs and no runs", exit 0).
        let emptyShardOnly = directory.file("empty-shard-only")
        let empty = try CommandLineTests.run(["poster", inputs[0], "--out", emptyShardOnly, "--shard", "2/3"])
        #expect(empty.status == 0 && empty.stderr.contains("has no inputs"), "\(empty.stderr)")
        let notYet = try CommandLineTests.run(["report", emptyShardOnly])
        #expect(notYet.status == 1 && notYet.stderr.contains("shards never run: 0/3, 1/3"), "\(notYet.stderr)")

        try FileManager.default.removeItem(atPath: inputs[0])
        let stale = try CommandLineTests.run(["report", out])
        #expect(stale.status == 1 && stale.stderr.contains("1 stale"), "\(stale.stderr)")
        let page = try String(contentsOfFile: out + "/index.html", encoding: .utf8)
        #expect(page.contains(">0 failed</button>") && !page.contains("data-flags=\"failed\""))
        // The line is under the "changed or gone" filter and the name filter (which took only failures), linked
        // to the video it marks; the video is under that filter too (it was not, its input deleted).
        let line = try #require(page.firstMatch(of: /<li class="item" tabindex="-1" data-flags="([^"]*)" data-name="([^"]*)"><a href="index.html#a">([^\n]*)<\/li>/))
        #expect(line.output.1 == "changed" && line.output.2.contains("a.mp4")
                && line.output.3 == "<bdi>\(inputs[0])</bdi></a>: poster: the input changed or is gone since its outputs were made",
                "\(line.output.0)")
        let card = try #require(page.firstMatch(of: /<section id="a"[^>]*data-flags="([^"]*)"[\s\S]*?<\/section>/))
        #expect(card.output.1.split(separator: " ").contains("changed") && card.output.0.contains("The input changed or is gone"),
                "\(card.output.1)")
        #expect(page.contains(">1 changed or gone</button>"))
    }

    /// The summary bar's "with warnings" counts the videos whose outputs a run warned of, and "with lint findings"
    /// those lint flags: one filter for both matched every clip of a library without colour tags, hiding the one
    /// whose sheets were cut down (from a tester).
    @Test func runWarningsAndLintFindingsAreFilteredApart() throws {
        let directory = TemporaryDirectory()
        let untagged = try makeSample(in: directory, name: "untagged.mp4") { $0.colorTagged = false }
        let lowered = try makeSample(in: directory, name: "lowered.mp4") { $0.durationSeconds = 4 }
        let out = directory.file("out")
        var options = ThumbnailOptions()
        options.spacing = .interval(0.5)
        #expect(ThumbnailJob.run(inputs: [untagged], outputRoot: out, options: options, gpu: SharedGPU.service).failed == 0)
        options.maxSheetSide = 400  // fewer than the 10 columns of 160-px tiles: the grid is lowered, with a warning
        #expect(ThumbnailJob.run(inputs: [lowered], outputRoot: out, options: options, gpu: SharedGPU.service).failed == 0)
        let page = try String(contentsOfFile: out + "/index.html", encoding: .utf8)
        func flags(_ name: String) -> String? {
            page.firstMatch(of: try! Regex("id=\"\(name)\"[^>]*data-flags=\"([^\"]*)\"")).map { String($0.output[1].substring ?? "") }
        }
        #expect(flags("untagged")?.contains("lint") == true && flags("untagged")?.contains("warnings") == false, "\(flags("untagged") ?? "")")
        #expect(flags("lowered")?.contains("warnings") == true, "\(flags("lowered") ?? "")")
        #expect(page.contains(">1 with warnings</button>"))
    }

    /// A run whose every input failed rewrites the page: the last run's page stood, saying nothing failed and
    /// showing the old poster (from a tester).
    @Test func aRunWhoseEveryInputFailedStillRewritesThePage() throws {
        let directory = TemporaryDirectory()
        let video = try makeSample(in: directory, name: "trailer.mp4") { $0.size = PixelSize(width: 1280, height: 720) }
        let out = directory.file("out")
        #expect(try CommandLineTests.run(["poster", video, "--out", out, "--widths", "640,160"]).status == 0)
        let before = try String(contentsOfFile: out + "/index.html", encoding: .utf8)
        #expect(before.contains(">0 failed</button>"))
        // The page shows the smallest poster at least 480 px wide, and links the full one.
        #expect(before.contains("<a href=\"trailer/poster.jpg\"><img src=\"trailer/poster-640.jpg\""))
        try Data("junk".utf8).write(to: URL(fileURLWithPath: video))
        #expect(try CommandLineTests.run(["poster", video, "--out", out, "--widths", "160"]).status == 1)
        let page = try String(contentsOfFile: out + "/index.html", encoding: .utf8)
        #expect(page.contains(">1 failed</button>") && page.contains("not a video file"), "the failure is on the page")
        // The video's own section says its outputs are an earlier run's, of an input since changed, and the failed
        // and changed filters show it.
        let section = try #require(page.firstMatch(of: /<section id="trailer"[^>]*data-flags="([^"]*)"[\s\S]*?<\/section>/))
        #expect(section.output.1.split(separator: " ").contains("failed") && section.output.1.split(separator: " ").contains("changed"),
                "\(section.output.1)")
        #expect(section.output.0.contains("The last run failed (poster: not a video file")
                && section.output.0.contains("The input changed or is gone since these outputs were made"))
        #expect(page.contains(">1 changed or gone</button>"))
    }
}
