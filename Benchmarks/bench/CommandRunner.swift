import Foundation

/// What a finished command gave back.
struct CommandResult {
    var status: Int32
    var standardOutput: Data
    var standardError: String
    var seconds: Double

    var succeeded: Bool { status == 0 }
}

/// Runs external commands (the ffmpeg CLI peers, and this executable as a per-scenario child) with Foundation's
/// `Process`. Thread-safe: every call owns its own process and pipes.
enum CommandRunner {
    /// `arguments` as one line a shell runs as given: arguments with spaces or quotes are single-quoted.
    static func shellLine(_ arguments: [String]) -> String {
        arguments.map { argument in
            let plain = argument.allSatisfy { $0.isLetter || $0.isNumber || "-_./=:,%+@".contains($0) }
            return plain && !argument.isEmpty ? argument : "'" + argument.replacingOccurrences(of: "'", with: "'\\''") + "'"
        }.joined(separator: " ")
    }

    /// The first executable named `name` on PATH, or nil.
    static func which(_ name: String) -> String? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        for folder in path.split(separator: ":") {
            let candidate = "\(folder)/\(name)"
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        }
        return nil
    }

    /// Runs `executable` with `arguments` and waits. Standard output is kept only when `captureOutput` is set
    /// (raw frames can be large); standard error is always kept for the failure message.
    static func run(_ executable: String, _ arguments: [String], captureOutput: Bool = false) throws -> CommandResult {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.standardInput = FileHandle.nullDevice
        let outputPipe = Pipe()
        let errorPipe = Pipe()
        process.standardOutput = captureOutput ? outputPipe : FileHandle.nullDevice
        process.standardError = errorPipe
        // Both pipes are drained on their own threads so a chatty child never blocks on a full pipe.
        let output = PipeDrain(captureOutput ? outputPipe.fileHandleForReading : nil)
        let error = PipeDrain(errorPipe.fileHandleForReading)
        let started = DispatchTime.now()
        try process.run()
        process.waitUntilExit()
        let seconds = Double(DispatchTime.now().uptimeNanoseconds - started.uptimeNanoseconds) / 1e9
        return CommandResult(status: process.terminationStatus, standardOutput: output.wait(),
                             standardError: String(decoding: error.wait(), as: UTF8.self), seconds: seconds)
    }
}

/// Reads a pipe to its end on a background thread.
private final class PipeDrain: @unchecked Sendable {
    private var data = Data()
    private let done = DispatchSemaphore(value: 0)

    init(_ handle: FileHandle?) {
        guard let handle else {
            done.signal()
            return
        }
        Thread.detachNewThread { [self] in
            data = handle.readDataToEndOfFile()
            done.signal()
        }
    }

    func wait() -> Data {
        done.wait()
        return data
    }
}

/// A command that failed, with the tail of its standard error.
struct CommandFailure: Error, CustomStringConvertible {
    var command: String
    var status: Int32
    var message: String

    var description: String {
        let tail = message.split(separator: "\n").suffix(3).joined(separator: " | ")
        return "\(command) exited with \(status): \(tail)"
    }
}
