import ArgumentParser
import Foundation
import FrameFarm

/// Where the CLI talks to people: results on stdout, failures and progress on stderr.
enum Terminal {
    static let standardErrorIsTerminal = isatty(STDERR_FILENO) != 0

    /// One line on stderr, whatever it quotes: control characters (a newline in a file name) are written escaped,
    /// so that scripts reading a line per failure read this one whole, and so are bidirectional controls (a
    /// right-to-left override in a file name), which would show the rest of the line reversed.
    /// On a terminal the line first clears the progress bar's (which redraws below it), so the two never share one.
    static func printError(_ line: String) {
        FileHandle.standardError.write(Data("\(standardErrorIsTerminal ? "\r\u{1B}[K" : "")framefarm: \(oneLine(line))\n".utf8))
    }

    /// The terminal's width in columns (stderr's), when it says.
    static var columns: Int? {
        var size = winsize()
        guard ioctl(STDERR_FILENO, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 else { return nil }
        return Int(size.ws_col)
    }

    /// `--fps -5` as `--fps=-5`: ArgumentParser takes a value that starts with `-` for an option and says
    /// "Missing value for '--fps'"; attached, it is the value, and the option's own check says what is wrong.
    static func attachingNegativeNumbers(_ arguments: [String]) -> [String] {
        var result: [String] = []
        for argument in arguments {
            // -5, -0.5, -.5
            let magnitude = argument.dropFirst(argument.hasPrefix("-.") ? 2 : 1)
            let isNegativeNumber = argument.first == "-" && magnitude.first?.isNumber == true
            if isNegativeNumber, let option = result.last, option.hasPrefix("--"), option.count > 2, !option.contains("=") {
                result[result.count - 1] = option + "=" + argument
            } else {
                result.append(argument)
            }
        }
        return result
    }

    static func oneLine(_ text: String) -> String {
        func isEscaped(_ scalar: Unicode.Scalar) -> Bool {
            scalar.properties.generalCategory == .control || scalar.properties.isBidiControl
        }
        guard text.unicodeScalars.contains(where: isEscaped) else { return text }
        return String(text.unicodeScalars.map { scalar -> String in
            guard isEscaped(scalar) else { return String(scalar) }
            return switch scalar {
            case "\n": "\\n"
            case "\r": "\\r"
            case "\t": "\\t"
            case _ where scalar.value > 0xFF: String(format: "\\u{%04X}", scalar.value)
            default: String(format: "\\x%02X", scalar.value)
            }
        }.joined())
    }

    static func report(_ failure: InputFailure) { printError(failure.description) }

    /// Pretty-printed, key-sorted JSON on stdout, written whole (`writeResults`).
    static func printJSON<Value: Encodable>(_ value: Value) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        try writeResults(try encoder.encode(value) + Data("\n".utf8))
    }

    /// Held while results are written to stdout (`holdResults`).
    private static let writingResults = NSLock()

    /// Writes `data` to stdout at once, unbuffered (every result FrameFarm prints goes through here, never through
    /// stdio's buffer): a summary is out whole before a second signal quits (through stdio, what its buffer still
    /// held was lost when a quit came while a large summary was being written), and a write stdout refuses (a full
    /// disk) is an error, not results cut short with exit status 0.
    static func writeResults(_ data: Data) throws(StandardOutputError) {
        writingResults.lock()
        defer { writingResults.unlock() }
        let failure: Int32? = data.withUnsafeBytes { bytes in
            var offset = 0
            while offset < bytes.count {
                let written = write(STDOUT_FILENO, bytes.baseAddress! + offset, bytes.count - offset)
                if written < 0, errno != EINTR { return errno }
                offset += max(0, written)
            }
            return nil
        }
        if let failure { throw StandardOutputError(code: failure) }
    }

    /// `text` and `terminator` on stdout (`writeResults`).
    static func writeLine(_ text: String, terminator: String = "\n") throws(StandardOutputError) {
        try writeResults(Data((text + terminator).utf8))
    }

    /// Waits for results being written to stdout to be out whole (at most `seconds`: a reader that stopped reading
    /// does not keep the process alive), and lets no more start: called before quitting at once.
    static func holdResults(upTo seconds: Double) {
        _ = writingResults.lock(before: Date(timeIntervalSinceNow: seconds))
    }
}

/// Runs what checks a command's inputs once it runs (a list to read, folders to walk), and turns a usage error it
/// throws into one line on stderr and exit status 2: the command's usage says nothing about a list that cannot be
/// read.
func exitingOnUsageError<Value>(_ body: () throws -> Value) throws -> Value {
    do {
        return try body()
    } catch let error as ValidationError {
        Terminal.printError(error.message)
        throw ExitCode(ExitStatus.usage)
    }
}

/// Runs an option parser and turns any error it throws (a core ValueParseError, a catalog error) into a usage
/// error, which exits with status 2 and the command's usage.
func usageChecked<Value>(_ parse: () throws -> Value) throws -> Value {
    do {
        return try parse()
    } catch let error as ValidationError {
        throw error
    } catch let exit as ExitCode {  // said already, in one line
        throw exit
    } catch {
        throw ValidationError("\(error)")
    }
}

/// `--max-pixels`: a whole number of pixels, 1 or more (0 made every input fail, one by one).
func parsePixelLimit(_ text: String) throws -> Int {
    guard let limit = Int(text), limit >= 1 else { throw ValidationError("a whole number of pixels, 1 or more") }
    return limit
}

/// Exit statuses shared by every subcommand.
/// Stdout would not take the results: they are not all there.
struct StandardOutputError: Error, CustomStringConvertible {
    let code: Int32
    var description: String { "cannot write the results to standard output: \(String(cString: strerror(code)))" }
}

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
