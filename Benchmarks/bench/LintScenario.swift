import Foundation

/// `lint`: `framefarm lint` on each bench clip and on the library, against `framefarm probe` (lint should cost
/// little more than the probe and padding search it reads) and against the peer: `ffprobe` for the stream facts
/// plus `ffmpeg -vf cropdetect,idet` over the keyframes (`-skip_frame nokey`, sampling as lint does). Lint exits 1
/// when a finding is an error; that is a result, not a failed run.
struct LintBenchResult: Codable {
    struct Clip: Codable {
        var label: String
        var ways: [LibraryResult.Way]
    }

    var clips: [Clip]
    var library: [LibraryResult.Way]
    var videos: Int
}

extension BenchRunner {
    func measureLint() throws -> LintBenchResult {
        let framefarm = Self.framefarmExecutable()
        func shell(_ script: String) -> [String] { ["/bin/sh", "-c", script] }
        // Exit 1 is lint's verdict on the video, not a failure.
        let lint = "\"\(framefarm)\" lint --json \"$1\" > /dev/null; [ $? -le 1 ]"
        let probe = "\"\(framefarm)\" probe --json \"$1\" > /dev/null"
        func ways(for input: String) -> [LibraryResult.Way] {
            [("framefarm lint", lint), ("framefarm probe", probe), ("ffprobe + ffmpeg cropdetect,idet", Self.lintPeer)]
                .filter { self.ffmpeg != nil || !$0.0.hasPrefix("ffprobe") }
                .map { label, script in
                    LibraryResult.Way(label: label, recipe: script.replacingOccurrences(of: "\"\(framefarm)\"", with: "framefarm"),
                                      commands: [shell(script) + ["sh", input]])
                }
        }
        var clips = self.clips.map { LintBenchResult.Clip(label: $0.label, ways: ways(for: $0.path)) }
        for round in 0..<max(1, settings.repeats) {
            for clip in clips.indices {
                for way in clips[clip].ways.indices { timeRun(&clips[clip].ways[way], scenario: "lint \(round + 1)") }
            }
        }
        let (paths, list) = try libraryList()
        var library = [
            LibraryResult.Way(label: "framefarm lint, one process", recipe: "framefarm lint --inputs-from LIST",
                              commands: [shell("\"\(framefarm)\" lint --json --inputs-from \"\(list)\" > /dev/null; [ $? -le 1 ]")]),
        ]
        if self.ffmpeg != nil {
            library.append(LibraryResult.Way(
                label: "peer per video", recipe: "xargs -P \(MachineInfo.cores): " + Self.lintPeer,
                commands: [shell("xargs -d '\\n' -P \(MachineInfo.cores) -n 1 sh -c '\(Self.lintPeer)' sh < \"\(list)\"")]))
        }
        for _ in 0..<max(1, settings.repeats) {
            for index in library.indices { timeRun(&library[index], scenario: "lint, library") }
        }
        return LintBenchResult(clips: clips, library: library, videos: paths.count)
    }

    /// The peer's facts for one video ($1): the stream and format, then crop and interlace detection on keyframes.
    static let lintPeer = "ffprobe -v error -show_format -show_streams \"$1\" > /dev/null && "
        + "ffmpeg -v error -nostdin -skip_frame nokey -i \"$1\" -an -vf cropdetect,idet -f null -"
}
