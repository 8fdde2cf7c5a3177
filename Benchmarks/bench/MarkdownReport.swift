import Foundation

/// The report as Markdown: printed on stdout and written by `--markdown FILE`.
enum MarkdownReport {
    static func render(_ report: BenchReport) -> String {
        var lines = header(report.header)
        if !report.scenarios.isEmpty {
            lines += ["", "## Summary", "",
                      "FrameFarm speedup = best peer's median time / FrameFarm's (above 1: FrameFarm is faster). "
                      + "Keyframe floor = `ffmpeg -threads 1 -skip_frame nokey -i CLIP -f null -` divided by the "
                      + "\(report.header.cores) cores; the column is FrameFarm's time over it.", "",
                      "| scenario | clip | FrameFarm median (min–max) | throughput | x realtime | peak RSS | best peer | "
                      + "peer median | FrameFarm speedup | vs keyframe floor | PSNR FrameFarm / best peer |",
                      "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"]
            lines += report.scenarios.map { summaryRow($0, cores: report.header.cores) }
            lines += ["", "## Every tool", "",
                      "| scenario | clip | tool | median (min–max) | items | PSNR dB (samples) | output size | peak RSS | checked |",
                      "| --- | --- | --- | --- | --- | --- | --- | --- | --- |"]
            for scenario in report.scenarios {
                lines += ([scenario.frameFarm] + scenario.references + scenario.peers).map { detailRow(scenario, $0) }
            }
        }
        if !report.floors.isEmpty {
            lines += ["", "## Decode floors (ffmpeg)", "", "| clip | recipe | median (min–max) | x realtime |",
                      "| --- | --- | --- | --- |"]
            for floor in report.floors {
                for measurement in floor.measurements {
                    let realtime = measurement.medianSeconds.map { Format.number(floor.videoSeconds / $0) + "x" } ?? "–"
                    lines.append("| \(floor.clip) | \(measurement.tool) | \(timingText(measurement)) | \(realtime) |")
                }
            }
        }
        if let growth = report.growth { lines += growthSection(growth) }
        if let library = report.library { lines += librarySection(library) }
        if let lint = report.lint { lines += lintSection(lint) }
        lines += report.renditions.flatMap(renditionsSection)
        if !report.shortClips.isEmpty { lines += shortClipsSection(report.shortClips) }
        lines += pipelineSection(report.pipeline)
        if !report.bounds.isEmpty {
            lines += ["", "## What bounds each scenario", "",
                      "From the stages measured apart above, on the same clip: decoding the frames a scenario needs "
                      + "(spread over every core) and the Vulkan stage for them."] + [""]
                + report.bounds.map { "- " + $0 }
        }
        if !report.notMeasured.isEmpty {
            lines += ["", "## Not measured", ""] + report.notMeasured.map { "- " + $0 }
        }
        let notes = report.notes + report.scenarios.flatMap { result in result.notes.map { "\(result.scenario), \(result.clip): \($0)" } }
        if !notes.isEmpty {
            lines += ["", "## Notes", ""] + notes.map { "- " + $0 }
        }
        lines += recipes(report)
        return lines.joined(separator: "\n") + "\n"
    }

    private static func header(_ header: ReportHeader) -> [String] {
        ["# FrameFarm bench", "",
         "| | |", "| --- | --- |",
         "| date | \(header.date) |",
         "| machine | \(header.cpuModel), \(header.cores) cores, \(header.memory) |",
         "| Vulkan device | \(header.vulkanDevice) (\(header.vulkanDeviceType)) |",
         "| FFmpeg | \(header.ffmpegVersion) |",
         "| FFmpeg libraries | \(header.ffmpegLibraries.joined(separator: ", ")) |",
         "| build | \(header.build) |"]
            + (header.environment.isEmpty ? [] : ["| environment | `\(header.environment.joined(separator: " "))` |"])
            + ["| command | `\(header.command)` |",
         "| repeats | \(header.repeats) timed runs per tool after a warm-up; median (min–max) |"]
            + header.clips.map { "| clip | \($0) |" }
    }

    private static func summaryRow(_ scenario: ScenarioResult, cores: Int) -> String {
        let ours = scenario.frameFarm
        let median = ours.medianSeconds
        var throughput = "–"
        if let items = ours.items, let median { throughput = "\(Format.number(Double(items) / median)) \(scenario.unit)/s" }
        // Real-time speed only means something for work that walks the whole video.
        let realtime = scenario.unit == "thumbnails" ? median.map { Format.number(scenario.videoSeconds / $0) + "x" } ?? "–" : "–"
        let best = scenario.bestPeer
        let peerName = best?.tool ?? (scenario.peers.isEmpty ? "none" : "skipped")
        let speedup = scenario.speedup.map { Format.number($0, digits: 2) + "x" } ?? "–"
        var floor = "–"
        if let median, let keyframeFloor = scenario.keyframeFloorSeconds {
            floor = Format.number(median / (keyframeFloor / Double(cores)), digits: 2) + "x"
        }
        let psnr = "\(ours.psnr.map { Format.number($0) } ?? "–") / \(best?.psnr.map { Format.number($0) } ?? "–")"
        return "| \(scenario.scenario) | \(scenario.clip) | \(ours.skipped == nil ? timingText(ours) : "skipped") | "
            + "\(throughput) | \(realtime) | \(Format.megabytes(ours.peakRSSBytes)) | \(peerName) | "
            + "\(best.map(timingText) ?? "–") | \(speedup) | \(floor) | \(psnr) |"
    }

    private static func detailRow(_ scenario: ScenarioResult, _ measurement: Measurement) -> String {
        let psnr = measurement.psnr.map { "\(Format.number($0)) (\(measurement.psnrSamples ?? 0))" } ?? "–"
        let checked = (measurement.verification ?? "–").replacingOccurrences(of: "|", with: "/")
        return "| \(scenario.scenario) | \(scenario.clip) | \(measurement.tool) | \(timingText(measurement)) | "
            + "\(measurement.items.map(String.init) ?? "–") | \(psnr) | \(Format.size(measurement.outputBytes)) | "
            + "\(Format.megabytes(measurement.peakRSSBytes)) | "
            + "\(checked) |"
    }

    private static func timingText(_ measurement: Measurement) -> String {
        if let skipped = measurement.skipped { return "skipped: \(skipped)" }
        if let failed = measurement.failed { return "failed: \(failed.replacingOccurrences(of: "|", with: "/"))" }
        return measurement.timing?.summary ?? "–"
    }

    private static func growthSection(_ growth: GrowthResult) -> [String] {
        var lines = ["", "## Growth (thumbnails, --seek \(growth.seek))", "",
                     "| run | video minutes | videos | median (min–max) | s per video-minute | peak RSS |",
                     "| --- | --- | --- | --- | --- | --- |"]
        for point in growth.byLength + growth.byConcurrency {
            lines.append("| \(point.label) | \(Format.number(point.videoMinutes, digits: 2)) | \(point.videos) | "
                         + "\(point.timing.summary) | \(Format.number(point.secondsPerVideoMinute, digits: 2)) | "
                         + "\(Format.megabytes(point.peakRSSBytes)) |")
        }
        if let slope = growth.fittedSlopeSecondsPerMinute, let intercept = growth.fittedInterceptSeconds {
            lines += ["", "Fitted over length: time ≈ \(Format.number(intercept, digits: 2)) s + "
                      + "\(Format.number(slope, digits: 2)) s per video-minute."]
        }
        if let first = growth.byLength.first, let last = growth.byLength.last, first.label != last.label {
            let change = (last.secondsPerVideoMinute / first.secondsPerVideoMinute - 1) * 100
            lines.append("Per-minute time, longest vs shortest clip: \(Format.number(change, digits: 0))% "
                         + "(target: within 15%).")
        }
        if let one = growth.byConcurrency.first?.peakRSSBytes, let most = growth.byConcurrency.last?.peakRSSBytes,
           growth.byConcurrency.count > 1 {
            lines.append("Peak RSS, \(growth.byConcurrency.last!.videos) videos vs 1: "
                         + "\(Format.number(Double(most) / Double(one), digits: 2))x (target: below 2x).")
        }
        return lines
    }

    private static func librarySection(_ library: LibraryResult) -> [String] {
        var lines = ["", "## Library (thumbnails + poster, \(library.videos) videos, "
                     + "\(Format.number(library.videoMinutes, digits: 1)) video-minutes)", "",
                     "| way | time, median (min–max) | videos/hour | CPU s | CPU s per video-minute | recipe |",
                     "| --- | --- | --- | --- | --- | --- |"]
        for way in library.ways + library.fixedCost {
            let videos = way.label.hasPrefix("1-s clip") ? 1 : library.videos
            let minutes = way.label.hasPrefix("1-s clip") ? 1.0 / 60 : library.videoMinutes
            guard let seconds = way.seconds, let cpu = way.cpuSeconds else {
                lines.append("| \(way.label) | failed: \(way.error ?? "?") | – | – | – | \(way.recipe) |")
                continue
            }
            lines.append("| \(way.label) | \(Timing(seconds: way.runs).summary) | \(Format.number(Double(videos) * 3600 / seconds, digits: 0)) | "
                         + "\(Format.number(cpu, digits: 1)) | \(Format.number(cpu / minutes, digits: 2)) | \(way.recipe) |")
        }
        let one = library.ways.first { $0.label == "one process" }?.seconds
        lines.append("")
        if !library.shardingOverheads.isEmpty {
            let overheads = Timing(seconds: library.shardingOverheads.map { $0 * 100 })
            let rounds = overheads.seconds.count
            lines.append("4 shards one after another vs one process: \(Format.number(overheads.median, digits: 1))%, the median "
                         + "of \(rounds) paired round\(rounds == 1 ? "" : "s") (\(overheads.seconds.map { Format.number($0, digits: 1) }.joined(separator: ", "))) "
                         + "(target: at most 10%).")
        }
        if let one, let peer = library.ways.first(where: { $0.label == "ffmpeg per video" })?.seconds {
            lines.append("One process vs the ffmpeg CLI per video: \(Format.number(peer / one, digits: 2))x the videos per hour "
                         + "(target: at least 3x).")
        }
        lines.append("Shard balance (bytes per shard over the mean, 4 shards): "
                     + library.shardBalance.map { Format.number($0, digits: 3) }.joined(separator: ", ") + ".")
        return lines
    }

    private static func lintSection(_ lint: LintBenchResult) -> [String] {
        var lines = ["", "## Lint", "",
                     "| clip | way | time, median (min–max) | CPU s | recipe |", "| --- | --- | --- | --- | --- |"]
        let rows = lint.clips.flatMap { clip in clip.ways.map { (clip.label, $0) } }
            + lint.library.map { ("library, \(lint.videos) videos", $0) }
        for (clip, way) in rows {
            guard way.seconds != nil, let cpu = way.cpuSeconds else {
                lines.append("| \(clip) | \(way.label) | failed: \(way.error ?? "?") | – | `\(way.recipe)` |")
                continue
            }
            lines.append("| \(clip) | \(way.label) | \(Timing(seconds: way.runs).summary) | \(Format.number(cpu, digits: 2)) | `\(way.recipe)` |")
        }
        lines.append("")
        for clip in lint.clips {
            func median(_ prefix: String) -> Double? { clip.ways.first { $0.label.hasPrefix(prefix) }?.seconds }
            guard let own = median("framefarm lint") else { continue }
            var parts: [String] = []
            if let probe = median("framefarm probe") { parts.append("\(Format.number(own / probe, digits: 2))x probe's time (target: at most 1.2x)") }
            if let peer = median("ffprobe") { parts.append("\(Format.number(peer / own, digits: 1))x faster than the peer (target: at least 5x)") }
            lines.append("\(clip.label): lint \(parts.joined(separator: ", ")).")
        }
        if let own = lint.library.first?.seconds, let peer = lint.library.dropFirst().first?.seconds {
            lines.append("Library: lint \(Format.number(peer / own, digits: 1))x faster than the peer per video.")
        }
        return lines
    }

    private static func renditionsSection(_ result: RenditionsResult) -> [String] {
        var lines = ["", "## Renditions: \(result.clip), 160-px thumbnails, exact seeks", "",
                     "The 1080p file (\(Format.size(result.fileBytes))) against an HLS ladder made from it: "
                     + result.ladder.joined(separator: ", ") + ". Bytes read: from disk, what the process read "
                     + "(`rchar`); over http, what nginx sent.", "",
                     "| way | median (min–max) | bytes read | PSNR dB (samples) | checked |", "| --- | --- | --- | --- | --- |"]
        for way in result.ways {
            let psnr = way.psnr.map { "\(Format.number($0)) (\(way.psnrSamples ?? 0))" } ?? "–"
            lines.append("| \(way.tool) | \(timingText(way)) | \(Format.size(way.inputBytes)) | \(psnr) | "
                         + "\((way.verification ?? "–").replacingOccurrences(of: "|", with: "/")) |")
        }
        lines += [""] + result.notes.map { "- " + $0 } + ["", "Ladder: `\(result.ladderRecipe)`"]
        return lines
    }

    private static func shortClipsSection(_ results: [ShortClipResult]) -> [String] {
        var lines = ["", "## Short clips: what one more 1-s 720p clip costs a running process", "",
                     "Each command over a list naming the clip once and \(results.first?.extraClips ?? 0) times more "
                     + "(each its own video); the difference per extra clip is the per-video fixed cost in a warm "
                     + "process (target: under 50 ms). Two clips: the library's (x264 places 2 B-frames in its 25 "
                     + "frames of the sample pattern) and one with three B-frames between every two P-frames, as "
                     + "camera and streaming encodes have them.", "",
                     "| clip | command | 1 clip, median (min–max) | \((results.first?.extraClips ?? 0) + 1) clips, median (min–max) | per extra clip |",
                     "| --- | --- | --- | --- | --- |"]
        for result in results {
            func cell(_ way: LibraryResult.Way) -> String {
                way.runs.isEmpty ? "failed: \(way.error ?? "?")" : Timing(seconds: way.runs).summary
            }
            let perClip = result.perExtraClip.map { Format.number($0 * 1000, digits: 0) + " ms" } ?? "–"
            lines.append("| \(result.clip) | `framefarm \(result.command)` | \(cell(result.one)) | \(cell(result.many)) | \(perClip) |")
        }
        return lines
    }

    /// Each distinct recipe once, verbatim as run (first clip it ran on).
    private static func recipes(_ report: BenchReport) -> [String] {
        var seen = Set<String>()
        var lines = ["", "## Recipes (verbatim, as run)", ""]
        let all = report.scenarios.flatMap { [$0.frameFarm] + $0.references + $0.peers } + report.floors.flatMap(\.measurements)
        // FrameFarm's recipe differs per scenario; a peer's name already says which recipe it is.
        for measurement in all where !seen.contains(measurement.tool == "FrameFarm" ? measurement.recipe : measurement.tool) {
            seen.insert(measurement.tool == "FrameFarm" ? measurement.recipe : measurement.tool)
            lines += ["- **\(measurement.tool)**:", "  ```", "  \(measurement.recipe)", "  ```"]
        }
        for peer in report.pipeline.flatMap(\.scalerPeers) where !peer.recipe.isEmpty && !seen.contains(peer.recipe) {
            seen.insert(peer.recipe)
            lines += ["- **\(peer.tool)** (pipeline, \(peer.work)):", "  ```", "  \(peer.recipe)", "  ```"]
        }
        return lines
    }
}
