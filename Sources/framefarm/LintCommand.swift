import ArgumentParser
import Foundation
import FrameFarm

extension LintSeverity: ExpressibleByArgument {}
extension LintProfile: ExpressibleByArgument {}

struct LintCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "lint",
        abstract: "Check each video for what goes wrong on devices and in trick play, with an exit code for CI.",
        discussion: """
            Reads each input's headers and the frames the padding search samples (no GPU). One line per \
            finding, 'path: severity rule-id: message', then a count. Exit status: 0 when no finding reaches \
            --fail-on, 1 when one does (an input that cannot be read is an error finding), 2 for usage errors. \
            The rules, their reasons and sources are in docs/lint.md.
            """)

    @OptionGroup var input: InputOptions

    @Option(help: "The least severity that fails the run: error, warning or info.")
    var failOn = LintSeverity.error

    @Flag(help: "Print a JSON array (one object per input: path, rulesRun, findings) on stdout.")
    var json = false

    @Option(help: ArgumentHelp("Also write a JUnit XML report to this file (a testsuite per input, a testcase per rule).", valueName: "file"))
    var junit: String?

    @Option(help: "Refuse inputs whose frames have more pixels than this (default 8192x8192).", transform: parsePixelLimit)
    var maxPixels = BatchSettings.defaultMaxPixels

    @Option(help: ArgumentHelp("For multivariant HLS playlists and DASH manifests: the rendition to lint: highest, lowest, WIDTHxHEIGHT, or its index from 0 (default: highest).", valueName: "rendition"),
            transform: { try RenditionChoice(parsing: $0) })
    var rendition = RenditionChoice.highest

    @Option(help: "The built-in rule set: default, apple-hls or web (the base of --policy-file when it names none).")
    var profile: LintProfile?

    @Option(help: ArgumentHelp("Inputs read at once (default: one per core). More helps http(s) inputs, which wait on the server.", valueName: "count"))
    var jobs: Int?

    @Option(help: ArgumentHelp("A JSON policy: rules enabled or not, their severities and thresholds (docs/lint.md).", valueName: "file"))
    var policyFile: String?

    @Option(help: ArgumentHelp("Print a built-in profile as a policy file, to start one from, and exit.", valueName: "name"))
    var printProfile: LintProfile?

    func validate() throws { try validateJobs(jobs) }

    func run() throws {
        if let printProfile {
            try Terminal.writeLine(LintPolicy.document(printProfile.settings, profile: printProfile), terminator: "")
            return
        }
        let (settings, inputs) = try exitingOnUsageError { (try self.settings(), try input.resolve(skipping: nil)) }
        let results = Linter.lint(paths: inputs, settings: settings, maxPixels: maxPixels, rendition: rendition,
                                  width: jobs ?? Concurrent.cores)
        if json {
            try Terminal.printJSON(results)
        } else {
            for result in results {
                for finding in result.findings {
                    try Terminal.writeLine("\(Terminal.oneLine(result.path)): \(finding.severity.rawValue) \(finding.rule.rawValue): \(finding.message)")
                }
            }
            try Terminal.writeLine(Self.count(results, failOn: failOn))
        }
        if let junit {
            do {
                try Linter.writeJUnit(results, failOn: failOn, to: junit)
            } catch {
                Terminal.printError("\(junit): cannot write the JUnit report: \(error)")
                throw ExitCode(ExitStatus.usage)
            }
        }
        if results.contains(where: { $0.findings.contains { $0.severity >= failOn } }) {
            throw ExitCode(ExitStatus.someInputsFailed)
        }
    }

    /// The profile's settings, with the policy file's over them.
    private func settings() throws -> LintSettings {
        guard let policyFile else { return (profile ?? .default).settings }
        // Read as a stream, so that /dev/null or a pipe reads as what it holds.
        guard let data = FileHandle(forReadingAtPath: policyFile).flatMap({ try? $0.readToEnd() ?? Data() }) else {
            throw ValidationError("\(policyFile): cannot read the policy file")
        }
        do {
            return try LintPolicy.settings(parsing: String(decoding: data, as: UTF8.self), file: policyFile, profile: profile,
                                           vocabulary: Linter.policyVocabulary)
        } catch {
            throw ValidationError(error.description)
        }
    }

    /// "3 inputs: 1 error, 2 warnings, 4 infos; fails on error".
    static func count(_ results: [LintResult], failOn: LintSeverity) -> String {
        let findings = results.flatMap(\.findings)
        let counts = LintSeverity.allCases.reversed().map { severity in
            let count = findings.filter { $0.severity == severity }.count
            return "\(count) \(severity.rawValue)\(count == 1 ? "" : "s")"
        }
        return "\(results.count) input\(results.count == 1 ? "" : "s"): \(counts.joined(separator: ", ")); fails on \(failOn.rawValue)"
    }
}
