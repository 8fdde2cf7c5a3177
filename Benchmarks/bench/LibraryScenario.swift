import Foundation
import FrameFarm

/// `library`: a generated library of mixed clips, a thumbnail track and a poster for every video, three ways on the
/// same machine: (a) one `framefarm thumbnails --poster` process over the whole list, (b) the same list as 4 shards run one
/// after another (what sharding costs), (c) the ffmpeg CLI per video through `xargs -P` with a job per core (the
/// peer). (a) and (b) alternate for `--repeat` rounds, so drift on a shared machine falls on both alike, and the
/// sharding overhead is the median of the rounds' paired ratios; the peer runs once (it takes minutes). CPU time is
/// that of every process a way started.
struct LibraryResult: Codable {
    struct Way: Codable {
        var label: String
        var recipe: String
        /// What one run starts, one after another.
        var commands: [[String]]
        /// Wall and CPU seconds of each run.
        var runs: [Double] = []
        var cpuRuns: [Double] = []
        var error: String?

        var seconds: Double? { runs.isEmpty ? nil : Timing(seconds: runs).median }
        var cpuSeconds: Double? { cpuRuns.isEmpty ? nil : Timing(seconds: cpuRuns).median }
    }

    var videos: Int
    var videoMinutes: Double
    var ways: [Way]
    /// Both commands on a 1-s clip alone, FrameFarm's and ffmpeg's: the fixed cost of a video.
    var fixedCost: [Way]
    /// Per round, 4 shards' time over one process's, minus 1.
    var shardingOverheads: [Double]
    /// Per shard of 4, the bytes it was given over the mean: 1.0 is perfect balance.
    var shardBalance: [Double]
}

extension BenchRunner {
    /// The library's clips under one name each, and the list file naming them.
    func libraryList() throws -> (paths: [String], list: String) {
        let specs = BenchInputs.librarySet(quick: settings.quick)
        // One name per video, linked to the cached encode: clips of the same shape share one encode, and each
        // name is its own video (its own folder, decoded again).
        let folder = settings.work + "/library-videos"
        try? FileManager.default.removeItem(atPath: folder)
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let paths = try specs.enumerated().map { index, spec in
            let link = folder + String(format: "/video-%02d.mp4", index)
            try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: BenchInputs.path(of: spec, cache: settings.cache))
            return link
        }
        let list = settings.work + "/library.txt"
        try (paths.joined(separator: "\n") + "\n").write(toFile: list, atomically: true, encoding: .utf8)
        return (paths, list)
    }

    func measureLibrary() throws -> LibraryResult {
        // prepareInputs made the clips.
        let specs = BenchInputs.librarySet(quick: settings.quick)
        let (paths, list) = try libraryList()
        let framefarm = Self.framefarmExecutable()
        func frameFarm(_ label: String, list: String, shards: Int?) -> LibraryResult.Way {
            let shardArguments: [[String]] = shards.map { count in (0..<count).map { ["--shard", "\($0)/\(count)"] } } ?? [[]]
            let command = ["thumbnails", "--poster", "--poster-widths", "160"]
            let runs = shardArguments.map { shard in
                [framefarm] + command + ["--inputs-from", list, "--out", outFolder(label), "--quiet"] + shard
            }
            let sharding = shards.map { ", --shard K/\($0) for K = 0...\($0 - 1), one after another" } ?? ""
            return LibraryResult.Way(label: label, recipe: "framefarm " + command.joined(separator: " ") + sharding,
                                     commands: runs)
        }
        func ffmpeg(_ label: String, list: String) -> LibraryResult.Way {
            let script = "xargs -d '\\n' -P \(MachineInfo.cores) -n 1 sh -c '\(Self.ffmpegPerVideo)' \"\(outFolder(label))\" < \"\(list)\""
            return LibraryResult.Way(label: label, recipe: "xargs -P \(MachineInfo.cores): " + Self.ffmpegPerVideo,
                                     commands: [["/bin/sh", "-c", script]])
        }
        var ways = [frameFarm("one process", list: list, shards: nil), frameFarm("4 shards", list: list, shards: 4)]
        var overheads: [Double] = []
        for _ in 0..<max(1, settings.repeats) where ways.allSatisfy({ $0.error == nil }) {
            for index in ways.indices { timeRun(&ways[index]) }
            if let one = ways[0].runs.last, let sharded = ways[1].runs.last { overheads.append(sharded / one - 1) }
        }
        if self.ffmpeg != nil {
            ways.append(ffmpeg("ffmpeg per video", list: list))
            timeRun(&ways[ways.count - 1])
        }
        let single = settings.work + "/library-one-second.txt"
        try (BenchInputs.path(of: BenchInputs.oneSecondClip, cache: settings.cache) + "\n")
            .write(toFile: single, atomically: true, encoding: .utf8)
        var fixedCost = [frameFarm("1-s clip, FrameFarm", list: single, shards: nil)]
        if self.ffmpeg != nil { fixedCost.append(ffmpeg("1-s clip, ffmpeg", list: single)) }
        for _ in 0..<max(1, settings.repeats) {
            for index in fixedCost.indices { timeRun(&fixedCost[index]) }
        }
        let totals = Shard.totals(of: paths, count: 4, workOf: ManifestStore.sizeBytes(of:))
        let mean = Double(totals.reduce(0, +)) / Double(max(1, totals.count))
        return LibraryResult(videos: paths.count, videoMinutes: specs.reduce(0) { $0 + $1.durationSeconds } / 60,
                             ways: ways, fixedCost: fixedCost, shardingOverheads: overheads,
                             shardBalance: totals.map { Double($0) / max(1, mean) })
    }

    /// Each way's output folder, emptied before each of its runs (every run does all the work).
    private func outFolder(_ label: String) -> String {
        settings.work + "/library-" + label.replacingOccurrences(of: " ", with: "-")
    }

    /// One video's thumbnails (sheets of 10x10 160-px tiles every 10 s, as FrameFarm's default track) and poster
    /// (the `thumbnail` filter's pick, full size and 160 px), for `sh -c` with $0 = OUT and $1 = the video.
    static let ffmpegPerVideo = "n=$(basename \"$1\"); d=\"$0/${n%.*}\"; mkdir -p \"$d\" && "
        + "ffmpeg -v error -nostdin -y -i \"$1\" -vf fps=1/10,scale=160:-2,tile=10x10 -q:v 3 \"$d/sheet-%04d.jpg\" && "
        + "ffmpeg -v error -nostdin -y -i \"$1\" -filter_complex \"thumbnail,split=2[a][b];[b]scale=160:-2[c]\" "
        + "-map \"[a]\" -frames:v 1 -q:v 3 \"$d/poster.jpg\" -map \"[c]\" -frames:v 1 -q:v 3 \"$d/poster-160.jpg\""

    /// `framefarm` next to this executable (`swift build -c release` builds both).
    static func framefarmExecutable() -> String {
        let bench = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
        return (bench as NSString).deletingLastPathComponent + "/framefarm"
    }

    /// Runs the way's commands one after another on an emptied output folder, and adds the wall time and the CPU
    /// time of every process they started (the children's resource usage, which includes their own waited-for
    /// children) to its runs; a failing command sets its error.
    func timeRun(_ way: inout LibraryResult.Way, scenario: String = "library") {
        guard way.error == nil else { return }
        try? FileManager.default.removeItem(atPath: outFolder(way.label))
        Log.progress("  \(scenario), \(way.label)...")
        let cpuBefore = Self.childrenCPUSeconds()
        let started = DispatchTime.now()
        for command in way.commands {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: command[0])
            process.arguments = Array(command.dropFirst())
            process.standardOutput = FileHandle.nullDevice
            let errors = Pipe()
            process.standardError = errors
            do {
                try process.run()
                let message = errors.fileHandleForReading.readDataToEndOfFile()
                process.waitUntilExit()
                guard process.terminationStatus == 0 else {
                    way.error = "\(command.prefix(2).joined(separator: " ")) exited \(process.terminationStatus): "
                        + String(decoding: message.prefix(300), as: UTF8.self)
                    return
                }
            } catch {
                way.error = "\(command[0]): \(error)"
                return
            }
        }
        way.runs.append(Double(DispatchTime.now().uptimeNanoseconds - started.uptimeNanoseconds) / 1e9)
        way.cpuRuns.append(Self.childrenCPUSeconds() - cpuBefore)
        Log.progress("  \(scenario), \(way.label): \(Format.seconds(way.runs.last!)), \(Format.seconds(way.cpuRuns.last!)) of CPU")
    }

    private static func childrenCPUSeconds() -> Double {
        var usage = rusage()
        getrusage(RUSAGE_CHILDREN.rawValue, &usage)
        return Double(usage.ru_utime.tv_sec) + Double(usage.ru_utime.tv_usec) / 1e6
            + Double(usage.ru_stime.tv_sec) + Double(usage.ru_stime.tv_usec) / 1e6
    }
}

extension BenchInputs {
    /// The library: 36 clips of 5-30 s alternating 720p and 1080p, three 2-min 720p clips, one 4K clip and one
    /// vertical 1080x1920 clip (41 videos, about 17 minutes); `quick`: 8 small clips of 2-9 s.
    static func librarySet(quick: Bool) -> [ClipSpec] {
        if quick {
            return (0..<8).map { index in
                ClipSpec(label: "library \(index)", width: 640, height: 360, durationSeconds: Double(2 + index),
                         keyframeIntervalSeconds: 2, bFrames: 2)
            }
        }
        let short = (0..<36).map { index in
            let hd = index % 2 == 0
            return ClipSpec(label: "library \(index)", width: hd ? 1280 : 1920, height: hd ? 720 : 1080,
                            durationSeconds: Double(5 + (index % 6) * 5), keyframeIntervalSeconds: 2, bFrames: 3)
        }
        let long = (0..<3).map { index in
            ClipSpec(label: "library long \(index)", width: 1280, height: 720, durationSeconds: 120 + Double(index),
                     keyframeIntervalSeconds: 2, bFrames: 3)
        }
        return short + long + [
            ClipSpec(label: "library 4K", width: 3840, height: 2160, durationSeconds: 20, keyframeIntervalSeconds: 2,
                     bFrames: 3),
            ClipSpec(label: "library vertical", width: 1080, height: 1920, durationSeconds: 15,
                     keyframeIntervalSeconds: 2, bFrames: 3),
        ]
    }

    /// The fixed-cost clip: 1 s of 720p.
    static let oneSecondClip = ClipSpec(label: "library 1 s", width: 1280, height: 720, durationSeconds: 1,
                                        keyframeIntervalSeconds: 1, bFrames: 2)

    /// The fixed-cost clip again with B-frames as camera and streaming encodes have them (three between every two
    /// P-frames): x264 puts 2 in the first clip's 25 frames.
    static let oneSecondClipWithBFrames = ClipSpec(label: "1 s, B-frames throughout", width: 1280, height: 720,
                                                   durationSeconds: 1, keyframeIntervalSeconds: 1, bFrames: 3,
                                                   adaptiveBFrames: false)

    /// The clips `shortclips` measures.
    static let shortClips = [oneSecondClip, oneSecondClipWithBFrames]
}
