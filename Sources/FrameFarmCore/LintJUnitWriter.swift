/// JUnit XML for CI: one testsuite per input, one testcase per rule that ran, failed by the rule's findings at or
/// above `failOn` (one `failure`, as Ant's schema allows and CI servers show: the first finding's message, every
/// finding in its text), and findings below it written to the testcase's system-out.
public enum LintJUnitWriter {
    public static func document(_ results: [LintResult], failOn: LintSeverity) -> String {
        let escape = MarkupEscaping.escaped
        func failing(_ result: LintResult, _ rule: LintRule) -> [LintFinding] {
            result.findings.filter { $0.rule == rule && $0.severity >= failOn }
        }
        let failures = results.map { result in result.rulesRun.filter { !failing(result, $0).isEmpty }.count }
        var xml = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
        xml += "<testsuites name=\"framefarm lint\" tests=\"\(results.map(\.rulesRun.count).reduce(0, +))\" "
            + "failures=\"\(failures.reduce(0, +))\">\n"
        for (result, failed) in zip(results, failures) {
            xml += "  <testsuite name=\"\(escape(result.path))\" tests=\"\(result.rulesRun.count)\" failures=\"\(failed)\" errors=\"0\">\n"
            for rule in result.rulesRun {
                let found = result.findings.filter { $0.rule == rule }
                xml += "    <testcase classname=\"\(escape(result.path))\" name=\"\(rule.rawValue)\""
                guard !found.isEmpty else {
                    xml += "/>\n"
                    continue
                }
                xml += ">\n"
                let failed = failing(result, rule)
                if let first = failed.first, let worst = failed.map(\.severity).max() {
                    let more = failed.count > 1 ? " (and \(failed.count - 1) more)" : ""
                    xml += "      <failure type=\"\(worst.rawValue)\" message=\"\(escape(first.message + more))\">"
                        + escape(failed.map { "\($0.severity.rawValue): \($0.message)" }.joined(separator: "\n")) + "</failure>\n"
                }
                let notes = found.filter { $0.severity < failOn }
                if !notes.isEmpty {
                    xml += "      <system-out>\(escape(notes.map { "\($0.severity.rawValue): \($0.message)" }.joined(separator: "\n")))</system-out>\n"
                }
                xml += "    </testcase>\n"
            }
            xml += "  </testsuite>\n"
        }
        return xml + "</testsuites>\n"
    }
}
