import Foundation
import Testing
@testable import FrameFarm
@testable import FrameFarmMedia

/// Batches sharing one OUT at once (shards, or two lists) whose inputs map to one folder: `a/clip.mp4` and
/// `b/clip.mp4` run together both found `clip/` free, both wrote into it and both said done, one input's outputs
/// lost. The folder is claimed while an input is written: the second input fails, naming the first.
@Suite struct ConcurrentBatchTests {
    private func library(_ directory: TemporaryDirectory) throws -> [String] {
        try ["a", "b"].map { folder in
            try FileManager.default.createDirectory(atPath: directory.file(folder), withIntermediateDirectories: true)
            return try makeSample(in: directory, name: folder + "/clip.mp4") { $0.durationSeconds = 2 }
        }
    }

    @Test func twoInputsOfOneFolderRunAtOnceLeaveOneDoneAndOneFailed() throws {
        let directory = TemporaryDirectory()
        let inputs = try library(directory)
        let out = directory.file("out")
        let batches = inputs.map { input in
            let process = KillResumeTests.process(["thumbnails", input, "--out", out, "--interval", "0.5", "--poster", "--quiet"])
            process.standardError = FileHandle.nullDevice
            return process
        }
        for batch in batches { try batch.run() }
        for batch in batches { batch.waitUntilExit() }
        let statuses = batches.map(\.terminationStatus)
        #expect(statuses.sorted() == [0, 1], "one input has the folder, the other fails: \(statuses)")
        let winner = inputs[statuses.firstIndex(of: 0) ?? 0]
        #expect(ManifestStore.read(out + "/clip/manifest.json")?.input.path == winner)
        #expect(FileManager.default.fileExists(atPath: out + "/clip/thumbnails/thumbnails.vtt"))
        #expect((try? FileManager.default.contentsOfDirectory(atPath: out + "/.framefarm/claims")) == [], "claims are given up")
    }

    @Test func aHeldFolderFailsTheOtherInputUntilReleasedAndADeadHoldersClaimIsTakenOver() throws {
        let directory = TemporaryDirectory()
        let inputs = try library(directory)
        let out = directory.file("out")
        func poster(_ input: String) throws -> CommandLineTests.Run {
            try CommandLineTests.run(["poster", input, "--out", out, "--widths", "160"])
        }
        // Held by this (running) process for the other input.
        let claim = try FolderClaim.take(folder: "clip", for: inputs[1], outputRoot: out)
        let refused = try poster(inputs[0])
        #expect(refused.status == 1)
        #expect(refused.stderr.contains("framefarm: \(inputs[0]): its folder clip was being written for another input, \(inputs[1]), "
                                        + "by a batch running then (process \(getpid()))"), "\(refused.stderr)")
        #expect(!FileManager.default.fileExists(atPath: out + "/clip/poster.jpg"))
        // The same input's batch is not refused: it makes the same outputs.
        #expect(try poster(inputs[1]).status == 0)
        claim.release()

        // A claim whose process has ended (killed outright) holds nothing.
        let ended = Process()
        ended.executableURL = URL(fileURLWithPath: "/bin/true")
        try ended.run()
        ended.waitUntilExit()
        _ = try FolderClaim.take(folder: "clip", for: inputs[0], outputRoot: out)
        let claims = out + "/.framefarm/claims/"
        let file = try #require(try FileManager.default.contentsOfDirectory(atPath: claims).first)
        let text = try String(contentsOfFile: claims + file, encoding: .utf8)
        try text.replacingOccurrences(of: "\"pid\":\(getpid())", with: "\"pid\":\(ended.processIdentifier)")
            .write(toFile: claims + file, atomically: true, encoding: .utf8)
        let taken = try CommandLineTests.run(["poster", inputs[0], "--out", out, "--widths", "160", "--force"])
        #expect(taken.status == 0, "\(taken.stderr)")
        #expect(ManifestStore.read(out + "/clip/manifest.json")?.input.path == inputs[0])
    }
}
