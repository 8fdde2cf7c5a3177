import Foundation
import FrameFarmMedia

/// `framefarm lint`: the probe's facts (demuxing, and the frames the padding search samples; no GPU) turned into
/// rule findings. An input that cannot be read is a finding too, never a failure of the run.
public enum Linter {
    /// Lints `paths` concurrently, `width` at once (one per core by default); results come back in input order.
    /// A multivariant input is linted at the rendition `rendition` picks (the highest by default).
    public static func lint(paths: [String], settings: LintSettings = LintSettings(),
                            maxPixels: Int = BatchSettings.defaultMaxPixels, rendition: RenditionChoice = .highest,
                            width: Int = Concurrent.cores) -> [LintResult] {
        ParallelBatch.map(paths, width: width) { path in
            do {
                let facts = try MediaProber.probe(path: path, maxPixels: maxPixels,
                                                  rendition: RenditionRequest(choice: rendition, purpose: "lint"))
                let report = ProbeReport(path: path, facts: facts, policy: .hig)
                return LintResult(path: path, rulesRun: settings.rules,
                                  findings: Lint.findings(for: report, settings: settings))
            } catch {
                // A file or server that could not be read is not a content problem: a delivery pipeline grouping
                // findings by rule must not count a 404 or a timeout as a file that is no video.
                let rule: LintRule = switch error {
                case InputError.noVideoStream: .noVideoStream
                case let error as InputError where error.isReadFailure: .unreadable
                default: .notAVideo
                }
                return LintResult(path: path, rulesRun: [.notAVideo, .noVideoStream, .unreadable].filter(settings.rules.contains),
                                  findings: settings.applied(to: [LintFinding(rule, InputFailure(path: path, error: error).reason)]))
            }
        }
    }

    /// The codec, profile and container names a policy file's limits may use: FFmpeg's.
    public static let policyVocabulary = LintVocabulary.ffmpeg

    /// Writes the JUnit report of `results` to `path`, atomically.
    public static func writeJUnit(_ results: [LintResult], failOn: LintSeverity, to path: String) throws {
        try AtomicFile.write(Data(LintJUnitWriter.document(results, failOn: failOn).utf8), to: path)
    }
}
