import ArgumentParser
import Foundation
import FrameFarm

/// `--gpu`, `--verbose` and how frames are scaled, shared by every command that renders.
struct GPUOptions: ParsableArguments {
    @Option(help: "Vulkan device: an index or a name substring (default: FRAMEFARM_GPU, else the best device: discrete > integrated > virtual > CPU).")
    var gpu: String?

    @Flag(help: "Print the Vulkan device used and per-input timings on stderr.")
    var verbose = false

    @Option(help: "Resampling kernel: lanczos3 (sharpest, the default), catmull-rom (less ringing at hard edges) or bilinear (softest). Each widens with the reduction, so nothing aliases.")
    var filter = ResamplingFilter.lanczos3

    @Flag(help: "Resample in linear light (decode the transfer, filter, re-encode): fine bright detail on dark keeps its brightness when shrunk; slower.")
    var linearLight = false

    var resampling: Resampling { Resampling(filter: filter, linearLight: linearLight) }

    /// The Vulkan context starts on a background thread while the batch probes its inputs; `BatchOptions.run`
    /// reports it in one line when it cannot be made.
    func service() -> GPUService {
        let service = GPUService.starting(gpu: gpu)
        if verbose, service.startFailure == nil {
            Terminal.printError("using Vulkan device \(service.deviceName) (\(service.deviceType))")
        }
        return service
    }
}

/// Inputs, `--out`, `--json` and `--quiet`, shared by the batch commands.
struct BatchOptions: ParsableArguments {
    @Argument(help: "Video files (or still images).")
    var videos: [String]

    @Option(help: "Output folder (created if missing).")
    var out: String

    @Flag(help: "Print the batch summary as JSON on stdout.")
    var json = false

    @Flag(help: "No progress bar and no summary line.")
    var quiet = false

    @Option(help: "Refuse inputs whose frames have more pixels than this (default 8192x8192 = 67108864).")
    var maxPixels = 8192 * 8192

    @Flag(help: "Redo inputs whose outputs are complete and current (by default a re-run skips them).")
    var force = false

    /// Runs `job`, showing a progress bar on a terminal, then reports failures and the summary; exits 1 when
    /// any input failed. Without a Vulkan device every input fails for that one reason, said once.
    func run(unit: String, gpu: GPUService, _ job: (((BatchProgress) -> Void)?) -> BatchSummary) throws {
        let signals = SignalHandler()
        signals.install()
        let bar = !quiet && Terminal.standardErrorIsTerminal ? ProgressLine(label: "framefarm") : nil
        let summary = job(bar.map { bar in
            { progress in
                let rate = progress.elapsedSeconds > 0 ? Double(progress.itemsDone) / progress.elapsedSeconds : 0
                let fraction = Double(progress.inputsDone) / Double(max(1, progress.inputsTotal))
                bar.update(fraction: fraction, detail: String(format: "%d/%d videos, %.1f %@/s",
                                                              progress.inputsDone, progress.inputsTotal, rate, unit))
            }
        })
        bar?.finish()
        if let failure = gpu.startFailure {
            Terminal.printError(failure.reason)
            throw ExitCode(ExitStatus.someInputsFailed)
        }
        summary.failures.filter { !$0.reason.hasPrefix("not started") }.forEach(Terminal.report)
        if !quiet {
            for input in summary.inputs { input.warnings.forEach { Terminal.printError("\(input.path): \($0)") } }
        }
        if json {
            try Terminal.printJSON(summary)
        } else if !quiet {
            let sheet = summary.contactSheet.map { " Contact sheet: \($0)" } ?? ""
            let memory = summary.peakGPUMemoryBytes.map {
                String(format: " (%.1f MiB of GPU memory at most)", Double($0) / 1_048_576)
            } ?? ""
            FileHandle.standardError.write(Data(String(format: "framefarm: %d of %d inputs done in %.1f s on %@%@.%@\n",
                                                       summary.succeeded, summary.inputs.count, summary.elapsedSeconds,
                                                       summary.gpu?.name ?? "no GPU", memory, sheet).utf8))
        }
        if let interrupted = signals.exitStatus {
            Terminal.printError("interrupted: \(summary.succeeded) of \(summary.inputs.count) inputs done")
            throw ExitCode(interrupted)
        }
        if summary.failed > 0 { throw ExitCode(ExitStatus.someInputsFailed) }
    }
}

/// `--remove-padding auto|off`, as every rendering command takes it.
func parseRemovePadding(_ text: String) throws -> Bool {
    guard ["auto", "off"].contains(text) else { throw ValidationError("--remove-padding must be auto or off") }
    return text == "auto"
}

/// `--format jpeg|png|webp|webp-if-available`; the last falls back to JPEG where FFmpeg cannot write WebP.
func parseImageFormat(_ text: String) throws -> ImageFormat {
    if text == "webp-if-available" { return .webpIfAvailable }
    guard let format = ImageFormat(rawValue: text) else {
        throw ValidationError("--format must be jpeg, png, webp or webp-if-available")
    }
    guard format != .webp || ImageFormat.canEncodeWebP else {
        throw ValidationError("--format webp: this FFmpeg has no libwebp encoder (webp-if-available falls back to JPEG)")
    }
    return format
}

extension ResamplingFilter: ExpressibleByArgument {}
