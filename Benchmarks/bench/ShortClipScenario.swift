import Foundation
import FrameFarm

/// `shortclips`: what one more short video costs a running process, per command and clip. Each command runs once
/// over a list naming a 1-s 720p clip once and once over a list naming it `extraClips + 1` times (links, so each
/// is its own video); the difference over `extraClips` is the per-video fixed cost in a warm process (start-up,
/// GPU readiness and pipeline builds are paid once by both). Two clips: the library's (x264 places 2 B-frames in
/// its 25 frames) and one with B-frames throughout, as camera and streaming encodes have them. Target: under
/// 50 ms for each command.
struct ShortClipResult: Codable {
    var clip: String
    var command: String
    var one: LibraryResult.Way
    var many: LibraryResult.Way
    var extraClips: Int

    /// Median seconds per extra clip.
    var perExtraClip: Double? {
        guard let one = one.seconds, let many = many.seconds else { return nil }
        return (many - one) / Double(extraClips)
    }
}

extension BenchRunner {
    func measureShortClips() throws -> [ShortClipResult] {
        let extraClips = 20
        let framefarm = Self.framefarmExecutable()
        // One device for previews: every built-in device is 20 full-screen canvases a video, which is the renders'
        // cost, not a fixed one.
        let commands = [["thumbnails"], ["poster"], ["preview", "--devices", "iphone-16-pro"]]
        var results: [ShortClipResult] = []
        var outputs: [String] = []
        for (clipIndex, spec) in BenchInputs.shortClips.enumerated() {
            let clip = BenchInputs.path(of: spec, cache: settings.cache)
            let folder = try freshFolder("short-clips-\(clipIndex)")
            let links = try (0...extraClips).map { index in
                let link = folder + String(format: "/clip-%02d.mp4", index)
                try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: clip)
                return link
            }
            let lists = try [1, extraClips + 1].map { count in
                let list = folder + "/list-\(count).txt"
                try (links.prefix(count).joined(separator: "\n") + "\n").write(toFile: list, atomically: true, encoding: .utf8)
                return list
            }
            for command in commands {
                let ways = lists.enumerated().map { index, list in
                    let label = "\(command[0]), \(index == 0 ? 1 : extraClips + 1) clip\(index == 0 ? "" : "s")"
                    return LibraryResult.Way(label: label, recipe: "framefarm " + command.joined(separator: " ") + " --inputs-from LIST",
                                             commands: [[framefarm] + command + ["--inputs-from", list, "--out", folder + "/out", "--quiet"]])
                }
                results.append(ShortClipResult(clip: spec.label, command: command.joined(separator: " "), one: ways[0],
                                               many: ways[1], extraClips: extraClips))
                outputs.append(folder + "/out")
            }
        }
        // Rounds alternate the two lists, so a shared machine's drift falls on both alike.
        for _ in 0..<max(1, settings.repeats) {
            for index in results.indices {
                try? FileManager.default.removeItem(atPath: outputs[index])
                timeRun(&results[index].one, scenario: "short clips")
                try? FileManager.default.removeItem(atPath: outputs[index])
                timeRun(&results[index].many, scenario: "short clips")
            }
        }
        return results
    }
}
