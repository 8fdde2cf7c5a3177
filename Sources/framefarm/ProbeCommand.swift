import ArgumentParser
import Foundation
import FrameFarm

struct ProbeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "probe",
        abstract: "Print each video's geometry, colour, timing and baked-in padding.",
        discussion: """
            Sizes are display sizes (sample aspect ratio and rotation applied) unless named 'coded'. Padding is \
            found from frames sampled across the video and reported as 'contentRect'. The JSON keys are listed \
            in docs/commands.md and stay stable.
            """)

    @OptionGroup var input: InputOptions

    @Flag(help: "Print a JSON array (one object per input that could be read) on stdout.")
    var json = false

    @Option(help: "Policy for 'defaultMode': hig, or max-crop:P (fill unless it crops more than P% of the picture).",
            transform: { try ModePolicy(parsing: $0) })
    var policy: ModePolicy = .hig

    @Option(help: "Refuse inputs whose frames have more pixels than this (default 8192x8192).", transform: parsePixelLimit)
    var maxPixels = BatchSettings.defaultMaxPixels

    @Option(help: ArgumentHelp("Inputs read at once (default: one per core). More helps http(s) inputs, which wait on the server.", valueName: "count"))
    var jobs: Int?

    @Option(help: ArgumentHelp("For multivariant HLS playlists and DASH manifests: the rendition to probe: highest, lowest, WIDTHxHEIGHT, or its index from 0 (default: highest).", valueName: "rendition"),
            transform: { try RenditionChoice(parsing: $0) })
    var rendition = RenditionChoice.highest

    func validate() throws { try validateJobs(jobs) }

    func run() throws {
        let inputs = try exitingOnUsageError { try input.resolve(skipping: nil) }
        let results = Prober.probe(paths: inputs, policy: policy, maxPixels: maxPixels, rendition: rendition,
                                   width: jobs ?? Concurrent.cores)
        var reports: [ProbeReport] = []
        for result in results {
            switch result {
            case .success(let report): reports.append(report)
            case .failure(let failure): Terminal.report(failure)
            }
        }
        if json {
            try Terminal.printJSON(reports)
        } else {
            if !reports.isEmpty { try Terminal.writeLine(reports.map(ProbeCommand.describe).joined(separator: "\n")) }
        }
        if reports.count < results.count { throw ExitCode(ExitStatus.someInputsFailed) }
    }

    static func describe(_ report: ProbeReport) -> String {
        let rate = report.frameRate.map { String(format: "%.3f fps", $0) } ?? "unknown rate"
        let keyframes = report.keyframeIntervalSeconds.map { String(format: "keyframe every %.2f s", $0) } ?? "one keyframe"
        let content = report.contentRect
        let evidence = report.paddingSamples.map { " (from \($0) sampled frame\($0 == 1 ? "" : "s"))" } ?? ""
        var padding = report.paddingDetected
            ? "baked-in padding: picture is \(content.width)x\(content.height) at +\(content.x)+\(content.y) (\(String(format: "%.3f", report.contentAspectRatio)):1)"
            : "no baked-in padding"
        if let partial = report.partialPadding {
            let inside = partial.contentRect
            padding += "; bars in part of the video (about \(Int((partial.share * 100).rounded()))% of it): picture "
                + "\(inside.width)x\(inside.height) at +\(inside.x)+\(inside.y) there, not removed"
        }
        padding += evidence
        let hdr = report.isHDR
            ? " (HDR, peak " + (report.peakLuminance.map { String(format: "%.0f cd/m²", $0) } ?? "unstated: 1000 cd/m² assumed")
                + ", tone-mapped to SDR)" : ""
        let cut = report.cutShortAtSeconds.map {
            "\n  " + ProbeReport.cutShortNote(atSeconds: $0, ofSeconds: report.durationSeconds)
        } ?? ""
        let profile = [report.codecProfile, report.codecLevel.map { String(format: "level %.1f", $0) }]
            .compactMap { $0 }.map { " " + $0 }.joined()
        let combing = report.interlaced != true && report.combing?.showsInterlacing == true ? ", combed (interlaced, not flagged)" : ""
        let untagged = report.colorTagsMissing.map { " (untagged: " + $0.joined(separator: ", ") + "; assumed)" } ?? ""
        let damage = report.damagedData.map { "\n  \($0)" } ?? ""
        // What lint finds of the timing and the opening, said here too (the JSON had them, the text did not).
        let variable = report.frameTiming.flatMap { timing in
            timing.irregularShare * 100 > LintSettings().variableFramePercent
                ? String(format: ", variable frame rate (%.0f%% of frame durations off the median)", timing.irregularShare * 100) : nil
        } ?? ""
        let black = report.blackOpeningSeconds.map { String(format: "\n  opens on black until %.2f s", $0) } ?? ""
        let rendition = report.rendition.map { rendition in
            "\n  rendition \(rendition.index) of \(rendition.count): \(rendition.width)x\(rendition.height)"
                + (rendition.bandwidth.map { ", \($0 / 1000) kb/s" } ?? "") + " (\(rendition.reason))"
        } ?? ""
        let audio = report.audio.map { tracks in
            "\n  audio: " + tracks.map { track in
                [track.codec, track.profile].compactMap { $0 }.joined(separator: " ")
                    + ", \(track.channels) ch, " + String(format: "%g kHz", Double(track.sampleRate) / 1000)
            }.joined(separator: "; ")
        } ?? ""
        let skipped = (report.skippedRenditions ?? []).map { "\n  rendition left out (as players leave it): \($0)" }.joined()
        return """
            \(Terminal.oneLine(report.path))
              \(report.fileFormat ?? report.container), \(report.codec)\(profile) \(report.pixelFormat), coded \(report.codedWidth)x\(report.codedHeight), SAR \(report.sampleAspectRatio), rotation \(report.rotation)\(report.mirrored ? " mirrored" : "")
              display \(report.displayWidth)x\(report.displayHeight) (\(String(format: "%.3f", report.aspectRatio)):1), \(report.aspectClass.rawValue)\(report.aspectRatio < 1 ? " (standing up)" : ""), default mode \(report.defaultMode.rawValue) (\(report.policy))
              \(String(format: "%.3f", report.durationSeconds)) s\(report.videoStartSeconds.map { String(format: " (the video from %.3f s)", $0) } ?? ""), \(rate)\(variable), \(keyframes)\(report.interlaced == true ? ", interlaced (shown from its first field)" : "")\(combing)
              colour \(report.colorMatrix.rawValue) \(report.colorRange.rawValue) range, \(report.colorPrimaries.rawValue) primaries, transfer \(report.colorTransfer.rawValue)\(hdr), chroma \(report.chromaSiting.rawValue)\(untagged)\(audio)
              \(padding)\(cut)\(damage)\(black)\(rendition)\(skipped)
            """
    }
}
