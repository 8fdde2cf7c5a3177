import ArgumentParser
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

/// Runs an option parser and turns any error it throws (a core ValueParseError, a catalog error) into a usage
/// error, which exits with status 2 and the command's usage.
func usageChecked<Value>(_ parse: () throws -> Value) throws -> Value {
    do {
        return try parse()
    } catch let error as ValidationError {
        throw error
    } catch {
        throw ValidationError("\(error)")
    }
}

/// Exit statuses shared by every subcommand.
enum ExitStatus {
    static let someInputsFailed: Int32 = 1
    static let usage: Int32 = 2
}

/// The configuration the `FRAMEFARM_*` variables give this process (`Configuration.variables` lists them); read
/// once, at start, by `main`, which exits with a usage error when one is invalid.
enum ProcessConfiguration {
    static let parsed = Result { () throws(ConfigurationError) in
        try Configuration(environment: ProcessInfo.processInfo.environment)
    }

    static var current: Configuration { (try? parsed.get()) ?? Configuration() }
}
