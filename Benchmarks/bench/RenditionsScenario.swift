import Foundation
import FrameFarm
import FrameFarmSamples

/// `renditions`: the 160-px thumbnail track (exact seeks, the default) of a 1080p clip read four ways: (a) the
/// clip itself and (b) an HLS ladder made from it (`--rendition auto` picks its 640x360 rendition), each from disk
/// and over http from nginx on 127.0.0.1. Time, bytes read and the tiles' PSNR against float references of the
/// 1080p frames they show. Targets: (b) at least 4x faster than (a) with PSNR within 1 dB; http within 15% of disk.
struct RenditionsResult: Codable {
    var clip: String
    var fileBytes: Int
    /// The ladder's renditions, as `WxH (MB)`, and how it was made.
    var ladder: [String]
    var ladderRecipe: String
    var ways: [Measurement]
    var notes: [String] = []
}

extension BenchRunner {
    func measureRenditions(clip: BenchClip) throws -> RenditionsResult {
        guard let ffmpeg else { throw BenchError("the renditions scenario makes its HLS ladder with ffmpeg, which is not installed") }
        let ladder = try RenditionLadder.make(from: clip, cache: settings.cache, ffmpeg: ffmpeg)
        // The server's root holds links to the clip and the ladder only.
        let root = try freshFolder("renditions-www")
        let clipName = (clip.path as NSString).lastPathComponent
        try FileManager.default.createSymbolicLink(atPath: root + "/" + clipName, withDestinationPath: clip.path)
        try FileManager.default.createSymbolicLink(atPath: root + "/ladder", withDestinationPath: ladder.folder)
        let port = try LocalWebServer.freePort()
        let server = try LocalWebServer(folder: try freshFolder("renditions-nginx"), servers: """
                server { listen 127.0.0.1:\(port); root \(root); }
            """, ports: [port])
        // Every timed run starts from the page cache, as the other scenarios do.
        for name in [clip.path] + ladder.files { ChildScenario.readThrough(name) }

        let url = "http://127.0.0.1:\(port)/"
        let ways: [(tool: String, input: String)] = [
            ("1080p file, from disk", clip.path),
            ("1080p file, over http", url + clipName),
            ("HLS ladder --rendition auto, from disk", ladder.master),
            ("HLS ladder --rendition auto, over http", url + "ladder/master.m3u8"),
        ]
        let quality = ThumbnailQuality(clip: clip, decoder: ImageDecoding(ffmpeg: ffmpeg), samples: psnrSamples, exact: true)
        var measurements: [Measurement] = []
        for way in ways {
            let output = settings.work + "/renditions-out"
            let sentBefore = server.bytesSent
            var measurement = runChild(scenario: "thumbnails", clips: [way.input], output: output, arguments: ["--seek", "exact"])
            measurement.tool = way.tool
            measurement.recipe = "ThumbnailJob.run(inputs: [\(way.input.hasPrefix("http") ? "URL" : "PATH")], ...) "
                + "/* 160 px, interval 10, seek .exact, BatchSettings.rendition .auto */"
            if way.input.hasPrefix("http") {
                measurement.inputBytes = (server.bytesSent - sentBefore) / max(1, settings.repeats)
            }
            let folder = output + "/" + OutputLayout.stem(way.input)
            if measurement.timing != nil, let manifest = ManifestStore.read(folder + "/manifest.json"),
               let section = manifest.thumbnails {
                quality.checkFrameFarm(&measurement, section: section, folder: folder)
                if let rendition = manifest.probe.rendition {
                    measurement.verification = "rendition \(rendition.width)x\(rendition.height); "
                        + (measurement.verification ?? "")
                }
            }
            measurements.append(measurement)
        }
        var result = RenditionsResult(clip: clip.label, fileBytes: Format.totalBytes([(clip.path as NSString).resolvingSymlinksInPath]) ?? 0,
                                      ladder: ladder.summary, ladderRecipe: ladder.recipe, ways: measurements)
        result.notes = Self.renditionTargets(measurements)
        return result
    }

    /// The three targets, from the four ways' medians and PSNRs (in the order `measureRenditions` runs them).
    private static func renditionTargets(_ ways: [Measurement]) -> [String] {
        guard ways.count == 4 else { return [] }
        var notes: [String] = []
        for (file, ladder, how) in [(0, 2, "from disk"), (1, 3, "over http")] {
            guard let full = ways[file].medianSeconds, let small = ways[ladder].medianSeconds, small > 0 else { continue }
            var line = "\(how): the rendition is \(Format.number(full / small, digits: 2))x faster than the 1080p file "
                + "(target: at least 4x)"
            if let a = ways[file].psnr, let b = ways[ladder].psnr {
                line += String(format: ", tile PSNR %.2f dB against %.2f dB (%+.2f dB; target: within 1 dB)", b, a, b - a)
            }
            notes.append(line)
        }
        for (local, remote, what) in [(0, 1, "1080p file"), (2, 3, "rendition")] {
            guard let disk = ways[local].medianSeconds, let http = ways[remote].medianSeconds, disk > 0 else { continue }
            notes.append("\(what): http takes \(Format.number(http / disk, digits: 2))x the time from disk (target: at most 1.15x)")
        }
        return notes
    }
}

/// A three-rendition HLS ladder of a clip, made once with the ffmpeg CLI into the bench cache as a packager
/// would: the source stream copied (its own keyframes cut the segments), and 960x540 and 640x360 encoded with
/// x264 (a keyframe every 2 s), 6-s MPEG-TS segments, a multivariant playlist over the three.
struct RenditionLadder {
    var folder: String
    var master: String { folder + "/master.m3u8" }
    var files: [String]
    var summary: [String]
    var recipe: String

    static let heights = [540, 360]

    static func make(from clip: BenchClip, cache: String, ffmpeg: FFmpegPeer) throws -> RenditionLadder {
        let folder = cache + "/" + ((clip.path as NSString).lastPathComponent as NSString).deletingPathExtension + "-ladder"
        let sizes = [(clip.displayWidth, clip.displayHeight)] + heights.map { height in
            (Int((Double(height * clip.displayWidth) / Double(clip.displayHeight) / 2).rounded()) * 2, height)
        }
        let gop = String(Int((clip.frameRate * 2).rounded()))
        var arguments = FFmpegPeer.common + ["-i", clip.path, "-filter_complex",
                         "[0:v]split=2[a][b];" + heights.enumerated().map { index, _ in
                             "[\(index == 0 ? "a" : "b")]scale=\(sizes[index + 1].0):\(sizes[index + 1].1)[v\(index + 1)]"
                         }.joined(separator: ";")]
        for index in sizes.indices {
            arguments += index == 0 ? ["-map", "0:v", "-c:v", "copy"]
                : ["-map", "[v\(index)]", "-c:v", "libx264", "-preset", "veryfast", "-g", gop, "-keyint_min", gop,
                   "-sc_threshold", "0"]
            arguments += ["-fps_mode", "passthrough", "-f", "hls", "-hls_time", "6", "-hls_playlist_type", "vod",
                          "-hls_segment_filename", folder + "/v\(index)-%03d.ts", folder + "/v\(index).m3u8"]
        }
        let recipe = FFmpegPeer.commandLine(arguments)
        if !FileManager.default.fileExists(atPath: folder + "/master.m3u8") {
            Log.progress("  making the HLS ladder of \(clip.label) (once, into \(folder))")
            try? FileManager.default.removeItem(atPath: folder)
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            _ = try ffmpeg.run(arguments)
        }
        var playlist = "#EXTM3U\n#EXT-X-VERSION:3\n#EXT-X-INDEPENDENT-SEGMENTS\n"
        var summary: [String] = []
        let names = try FileManager.default.contentsOfDirectory(atPath: folder).sorted()
        for (index, size) in sizes.enumerated() {
            let segments = names.filter { $0.hasPrefix("v\(index)-") }.map { folder + "/" + $0 }
            let bytes = Format.totalBytes(segments) ?? 0
            let bandwidth = Int(Double(bytes * 8) / clip.durationSeconds * 1.2)
            playlist += "#EXT-X-STREAM-INF:BANDWIDTH=\(bandwidth),RESOLUTION=\(size.0)x\(size.1)\nv\(index).m3u8\n"
            summary.append("\(size.0)x\(size.1) (\(Format.size(bytes)))")
        }
        // Written last: a run cut short during the encode leaves no master, so the next run makes the ladder again.
        if !FileManager.default.fileExists(atPath: folder + "/master.m3u8") {
            try playlist.write(toFile: folder + "/master.m3u8", atomically: true, encoding: .utf8)
        }
        let files = try FileManager.default.contentsOfDirectory(atPath: folder).map { folder + "/" + $0 }
        return RenditionLadder(folder: folder, files: files, summary: summary, recipe: recipe)
    }
}
