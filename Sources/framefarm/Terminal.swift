import Foundation
import FrameFarm

/// Where the CLI talks to people: results on stdout, failures and progress on stderr.
enum Terminal {
    static let standardErrorIsTerminal = isatty(STDERR_FILENO) != 0

    static func printError(_ line: String) {
        FileHandle.standardError.write(Data("framefarm: \(line)\n".utf8))
    }

    static func report(_ failure: InputFailure) { printError(failure.description) }

    /// Pretty-printed, key-sorted JSON on stdout.
    static func printJSON<Value: Encodable>(_ value: Value) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        print(String(decoding: try encoder.encode(value), as: UTF8.self))
    }
}

/// Exit statuses shared by every subcommand.
enum ExitStatus {
    static let someInputsFailed: Int32 = 1
    static let usage: Int32 = 2
}
