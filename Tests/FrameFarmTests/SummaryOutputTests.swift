import Foundation
import Testing

/// What a script reading `--json` gets when the batch is told to quit while its summary is being written.
@Suite struct SummaryOutputTests {
    /// A summary larger than a pipe holds, written to a reader that has not started reading, and two SIGTERMs meanwhile:
    /// the second quits at once, but only once the summary is out whole (written through stdio's buffer, what it
    /// still held was lost, and the reader got JSON cut at a 4-KiB boundary).
    @Test func aQuitWhileTheSummaryIsWrittenLeavesItWhole() throws {
        let directory = TemporaryDirectory()
        let name = String(repeating: "not-a-video-", count: 8)
        let inputs = (1...400).map { directory.write("\(name)\($0).mp4", Data("text".utf8)) }
        let list = directory.write("list.txt", Data(inputs.joined(separator: "\n").utf8))
        let process = CommandLineTests.process(["poster", "--inputs-from", list, "--out", directory.file("out"), "--json"])
        let output = Pipe()
        let errorsPath = directory.file("stderr.txt")
        _ = FileManager.default.createFile(atPath: errorsPath, contents: nil)
        process.standardOutput = output
        process.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: errorsPath))
        try process.run()
        defer { if process.isRunning { process.terminate() } }
        // The summary has begun: the pipe holds some of it, and the writer waits for room.
        var ready = pollfd(fd: output.fileHandleForReading.fileDescriptor, events: Int16(POLLIN), revents: 0)
        try #require(poll(&ready, 1, 120_000) == 1, "no summary within 2 minutes")
        kill(process.processIdentifier, SIGTERM)
        let deadline = Date().addingTimeInterval(30)
        while !((try? String(contentsOfFile: errorsPath, encoding: .utf8))?.contains("stopping after") ?? false),
              Date() < deadline {
            Thread.sleep(forTimeInterval: 0.01)
        }
        kill(process.processIdentifier, SIGTERM)
        Thread.sleep(forTimeInterval: 0.3)
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let stderr = (try? String(contentsOfFile: errorsPath, encoding: .utf8)) ?? ""
        #expect(process.terminationStatus == 128 + SIGTERM && stderr.contains("quit at once"), "\(stderr.suffix(500))")
        #expect(data.count > 65_536, "more than a pipe holds: \(data.count) bytes")
        struct Summary: Decodable {
            struct Input: Decodable { var path: String }
            var failed: Int, inputs: [Input]
        }
        let summary = try JSONDecoder().decode(Summary.self, from: data)
        #expect(summary.failed == 400 && summary.inputs.map(\.path) == inputs)
    }

    /// Results stdout will not take (a full disk: /dev/full) are an error, one line and exit status 1, in every
    /// command that prints them: they exited 0 with the results lost.
    @Test func resultsStdoutRefusesAreAnError() throws {
        let directory = TemporaryDirectory()
        let video = try makeSample(in: directory) { $0.durationSeconds = 1 }
        let commands: [[String]] = [["probe", video], ["probe", "--json", video], ["lint", video], ["lint", "--json", video],
                                    ["devices"], ["devices", "--json"], ["--version"],
                                    ["poster", "--json", video, "--out", directory.file("out"), "--widths", "160"]]
        for arguments in commands {
            let process = CommandLineTests.process(arguments)
            let errors = Pipe()
            process.standardOutput = FileHandle(forWritingAtPath: "/dev/full")
            process.standardError = errors
            try process.run()
            let stderr = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            process.waitUntilExit()
            #expect(process.terminationStatus == 1
                    && stderr.hasSuffix("framefarm: cannot write the results to standard output: No space left on device\n"),
                    "\(arguments): \(process.terminationStatus) \(stderr)")
        }
    }
}
