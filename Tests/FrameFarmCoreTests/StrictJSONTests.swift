import Foundation
@testable import FrameFarmCore
import Testing

/// Hand-written JSON is checked as RFC 8259 has it, and the place of the first fault is said: Foundation's parser
/// took a comma before a closing bracket and a key given twice (keeping the first), and said only "not valid JSON".
@Suite struct StrictJSONTests {
    private func fault(_ text: String) -> StrictJSON.SyntaxError? {
        do {
            try StrictJSON.check(Array(text.utf8))
            return nil
        } catch {
            return error
        }
    }

    @Test func validDocumentsPass() {
        for text in [#"{"devices": [{"id": "x", "n": -1.5e3, "u": "\u00e9 ü \"q\"", "t": true, "f": false, "z": null, "e": {}, "l": []}]}"#,
                     "  [0, 1.0, 2E+2, -0.5]\n", #""just a string""#, "{\"a\": {\"a\": 1}, \"b\": {\"a\": 2}}"] {
            #expect(fault(text) == nil, "\(text)")
        }
    }

    @Test func eachFaultIsPlaced() {
        let cases: [(String, Int, Int, String)] = [
            (#"{"a": 1,}"#, 1, 9, "a comma before '}'"),
            ("[1, 2,\n]", 2, 1, "a comma before ']'"),
            ("{\"rules\": {\"x\": 1,\n  \"x\": 2}}", 2, 3, "\"x\" appears twice in this object"),
            (#"{"a": tru}"#, 1, 7, "a value belongs here"),
            (#"{"a": 01}"#, 1, 7, "a number may not start with 0"),
            (#"{"é": 1,}"#, 1, 9, "a comma before '}'"),
            ("{} x", 1, 4, "text after the end of the JSON value"),
            ("{\"a\": \"b", 1, 9, "a string not closed before the end of the file"),
            ("{\"a\": \"b\nc\"}", 1, 9, "a control character inside a string (write it escaped)"),
            ("{\"a\" 1}", 1, 6, "expected ':'"),
            ("", 1, 1, "the file ends where a value belongs"),
            ("{\"warningSeconds\":\n  1e400}", 2, 3, "a number beyond the range of a double (about 1.8e308)"),
            ("[-2E+309]", 1, 2, "a number beyond the range of a double (about 1.8e308)"),
            ("[0.0, 1e-400]", 1, 7, "a number too small for a double (below about 4.9e-324): write 0"),
        ]
        for (text, line, column, reason) in cases {
            #expect(fault(text) == StrictJSON.SyntaxError(line: line, column: column, reason: reason), "\(text)")
        }
    }

    /// Both files people write by hand say where: a policy by its line, a devices file by line and column.
    @Test func policyAndDevicesFilesNameThePlace() {
        #expect(throws: LintPolicyError(description: "p.json:3: not valid JSON: column 1: a comma before '}'")) {
            _ = try LintPolicy.settings(parsing: "{\"rules\": {\"codec\": {\"enabled\": false}\n},\n}", file: "p.json")
        }
        #expect(throws: DeviceCatalogError.malformedFile(reason: "not valid JSON: line 1, column 15: \"devices\" appears twice in this object")) {
            _ = try DeviceCatalog.builtIn.merging(devicesFile: Data(#"{"devices":[],"devices":[]}"#.utf8))
        }
    }
}
