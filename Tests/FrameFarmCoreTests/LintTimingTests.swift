import Testing
@testable import FrameFarmCore

/// The timing rules over probe reports built here: each fact and the finding it must give.
@Suite struct LintTimingTests {
    private func report(median: Double?, longest: Double?, timing: FrameTiming? = nil) -> ProbeReport {
        var report = ProbeReport()
        report.durationSeconds = 60
        report.keyframeIntervalSeconds = median
        report.keyframeIntervalMaxSeconds = longest
        report.frameTiming = timing
        return report
    }

    private func finding(_ rule: LintRule, in report: ProbeReport) -> LintFinding? {
        Lint.findings(for: report).first { $0.rule == rule }
    }

    /// A keyframe every 2 s but one gap of 12 s: judged by the longest gap, an error, with both values said.
    @Test func keyframeIntervalIsJudgedByTheLongestGap() throws {
        let uneven = try #require(finding(.keyframeInterval, in: report(median: 2, longest: 12)))
        #expect(uneven.severity == .error)
        #expect(uneven.message.hasPrefix("a keyframe every 2.00 s (median), 12.00 s at the longest"))
        #expect(finding(.keyframeInterval, in: report(median: 2, longest: 2)) == nil)
        #expect(finding(.keyframeInterval, in: report(median: 1.5, longest: 4))?.severity == .warning)
    }

    /// "Every 2 s" at NTSC rates is 60 frames at 29.97 fps (2.002 s) or 120 at 59.94: met. One frame more is
    /// not. Limits are said as set (a policy's 2.5 s is not "3 s").
    @Test func keyframeLimitsTakeNTSCRatesAndAreSaidAsSet() throws {
        let ntsc = 1001.0 / 30000
        #expect(finding(.keyframeInterval, in: report(median: 60 * ntsc, longest: 60 * ntsc)) == nil)
        #expect(finding(.keyframeInterval, in: report(median: 120 * ntsc / 2, longest: 120 * ntsc / 2)) == nil)
        #expect(finding(.keyframeInterval, in: report(median: 60 * ntsc, longest: 61 * ntsc)) != nil)
        #expect(finding(.keyframeInterval, in: report(median: 2, longest: 121 * ntsc / 2)) != nil)
        var settings = LintSettings()
        settings.keyframeWarningSeconds = 1.5
        settings.keyframeErrorSeconds = 2.5
        let over = try #require(Lint.findings(for: report(median: 2.6, longest: 2.6), settings: settings)
            .first { $0.rule == .keyframeInterval })
        #expect(over.severity == .error && over.message.contains("over the 2.5-s limit"), "\(over.message)")
    }

    /// Irregular frames above the 5% threshold, and a jump: one finding each, naming the measured values.
    @Test func frameTimingGivesVariableRateAndJumps() throws {
        let steady = FrameTiming(medianFrameSeconds: 0.04, shortestFrameSeconds: 0.04, longestFrameSeconds: 0.04,
                                 irregularShare: 0.02, jumps: [], framesMeasured: 100)
        #expect(finding(.variableFrameRate, in: report(median: 1, longest: 1, timing: steady)) == nil)
        var variable = steady
        variable.irregularShare = 0.4
        variable.shortestFrameSeconds = 0.02
        variable.jumps = [TimestampJump(atSeconds: 3.96, bySeconds: 30)]
        let rate = try #require(finding(.variableFrameRate, in: report(median: 1, longest: 1, timing: variable)))
        #expect(rate.message.hasPrefix("frame durations from 20.0 to 40.0 ms, 40% of them off the median 40.0 ms"))
        let jump = try #require(finding(.timestampJump, in: report(median: 1, longest: 1, timing: variable)))
        #expect(jump.message.hasPrefix("timestamps jump 30.000 s at 3.960 s"))
        // Repeated timestamps, without a jump, are said as what they are.
        var repeated = steady
        repeated.repeats = TimestampRepeats(count: 20, firstAtSeconds: 0.16)
        let repeats = try #require(finding(.timestampJump, in: report(median: 1, longest: 1, timing: repeated)))
        #expect(repeats.message.hasPrefix("20 frames carry the timestamp of the frame before (first at 0.160 s)"))
    }
}
