import Foundation
import FrameFarm

/// What a batch command says as its inputs end, and at its end.
extension BatchCommand {
    /// What an input that just ended says, as it ends (a long batch's failures are not kept to its end, nor lost
    /// when it is killed): its failure, its warnings unless `--quiet`, its time with `--verbose`. Inputs failed
    /// for want of a GPU say nothing: the batch says that once. Inputs found up to date are counted in the
    /// summary, not named one a line.
    static func say(_ outcome: BatchSummary.Outcome, quiet: Bool, verbose: Bool, gpu: GPUService) {
        if outcome.status == .failed {
            guard gpu.startFailure == nil else { return }
            Terminal.printError("\(outcome.path): \(outcome.error ?? "failed")")
        }
        if !quiet { outcome.warnings.forEach { Terminal.printError("\(outcome.path): warning: \($0)") } }
        if verbose, let seconds = outcome.seconds {
            Terminal.printError(String(format: "%@: %@ in %.2f s", outcome.path, outcome.status.rawValue, seconds))
        }
    }

    /// The summary: as JSON on stdout with `--json`, else one line on stderr.
    func report(_ summary: BatchSummary) throws {
        if batch.json {
            try Terminal.printJSON(summary)
        } else if !batch.quiet {
            let sheet = summary.contactSheet.map { " Contact sheet: \($0)" } ?? ""
            let memory = summary.peakGPUMemoryBytes.map {
                String(format: " (%.1f MiB of GPU memory at most)", Double($0) / 1_048_576)
            } ?? ""
            // A re-run says how many it made and how many it found up to date (`--json` names them).
            let skipped = summary.inputs.filter { $0.status == .upToDate }.count
            let split = skipped == 0 ? "" : " (\(summary.succeeded - skipped) made, \(skipped) up to date, --force redoes them)"
            FileHandle.standardError.write(Data(String(format: "framefarm: %d of %d inputs done in %.1f s%@ on %@%@.%@\n",
                                                       summary.succeeded, summary.inputs.count, summary.elapsedSeconds, split,
                                                       summary.gpu?.name ?? "no GPU", memory, sheet).utf8))
        }
    }
}
