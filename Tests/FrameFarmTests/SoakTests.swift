import Dispatch
import Foundation
import FrameFarmMedia
import Testing
@testable import FrameFarm
import FrameFarmSamples

/// Issue 7, item 6: 500 small inputs through preview and thumbnails, 8 in flight, in this process; resident
/// memory stays flat (the last 100 inputs within 10% of the first 100) and no file descriptor is leaked.
/// Minutes long, so `make test` skips it; `make soak` runs it (FRAMEFARM_SOAK=1).
@Suite(.enabled(if: ProcessInfo.processInfo.environment["FRAMEFARM_SOAK"] == "1", "make soak runs it"))
struct SoakTests {
    static let inputCount = 500
    static let roundSize = 100
    static let inFlight = 8

    @Test func fiveHundredInputsHoldMemoryAndDescriptorsFlat() throws {
        let inputs = try Self.cachedInputs()
        let gpu = try GPUService(configuration: testConfiguration.gpu)
        var previewOptions = PreviewOptions()
        previewOptions.devices = ["pip-iphone", "apple-watch-s10-46"].map { DeviceCatalog.builtIn.device(id: $0)! }
        var thumbnailOptions = ThumbnailOptions()
        thumbnailOptions.spacing = .interval(0.25)
        let directory = TemporaryDirectory()
        let sampler = ResidentMemorySampler()
        var descriptorsAfterRound: [Int] = []
        for round in 0..<(Self.inputCount / Self.roundSize) {
            let slice = Array(inputs[(round * Self.roundSize)..<((round + 1) * Self.roundSize)])
            let out = directory.file("round\(round)")
            let preview = PreviewJob.run(inputs: slice, outputRoot: out, options: previewOptions, gpu: gpu,
                                         inFlight: Self.inFlight) { _ in sampler.sample(round: round) }
            let thumbnails = ThumbnailJob.run(inputs: slice, outputRoot: out, options: thumbnailOptions, gpu: gpu,
                                              inFlight: Self.inFlight) { _ in sampler.sample(round: round) }
            #expect(preview.failed == 0 && thumbnails.failed == 0, "\(preview.failures + thumbnails.failures)")
            try FileManager.default.removeItem(atPath: out)
            descriptorsAfterRound.append(Self.openDescriptors())
        }
        let means = sampler.meanPerRound()
        let figures = means.enumerated().map { String(format: "inputs %d-%d: %.1f MiB (peak %.1f)",
                                                      $0.offset * Self.roundSize + 1, ($0.offset + 1) * Self.roundSize,
                                                      $0.element.mean / 1_048_576, $0.element.peak / 1_048_576) }
        print("soak: RSS " + figures.joined(separator: "; "))
        print("soak: open file descriptors after each 100 inputs: \(descriptorsAfterRound)")
        let first = means.first!.mean, last = means.last!.mean
        #expect(last <= first * 1.10, "RSS grew from \(first / 1_048_576) MiB to \(last / 1_048_576) MiB")
        #expect(descriptorsAfterRound.last! <= descriptorsAfterRound.first!,
                "file descriptors grew: \(descriptorsAfterRound)")
        #expect(gpu.validationMessages.isEmpty)
    }

    /// 64x36, 1 s samples made once into .build-soak/inputs (git-ignored) and reused by later runs.
    static func cachedInputs() throws -> [String] {
        let folder = FileManager.default.currentDirectoryPath + "/.build-soak/inputs"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let paths = (0..<inputCount).map { String(format: "%@/soak-%03d.mp4", folder, $0) }
        let missing = paths.filter { !FileManager.default.fileExists(atPath: $0) }
        let failures = ErrorList()
        DispatchQueue.concurrentPerform(iterations: missing.count) { index in
            var options = SampleOptions()
            options.size = PixelSize(width: 64, height: 36)
            options.durationSeconds = 1
            options.preset = "ultrafast"
            do { try SampleVideoWriter.write(to: missing[index], options: options) } catch { failures.append(error) }
        }
        if let error = failures.first { throw error }
        return paths
    }

    static func openDescriptors() -> Int {
        ((try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []).count
    }
}

/// VmRSS of this process, sampled as inputs finish, grouped by round. Thread-safe.
final class ResidentMemorySampler: @unchecked Sendable {
    private let lock = NSLock()
    private var samples: [Int: [Double]] = [:]

    func sample(round: Int) {
        guard let bytes = Self.residentBytes() else { return }
        lock.withLock { samples[round, default: []].append(bytes) }
    }

    func meanPerRound() -> [(mean: Double, peak: Double)] {
        lock.withLock {
            samples.keys.sorted().map { round in
                let values = samples[round]!
                return (values.reduce(0, +) / Double(values.count), values.max()!)
            }
        }
    }

    /// VmRSS from /proc/self/status, in bytes.
    static func residentBytes() -> Double? {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
              let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") }),
              let kilobytes = Double(line.split(separator: " ").dropFirst().first ?? "")
        else { return nil }
        return kilobytes * 1024
    }
}

final class ErrorList: @unchecked Sendable {
    private let lock = NSLock()
    private var errors: [Error] = []
    func append(_ error: Error) { lock.withLock { errors.append(error) } }
    var first: Error? { lock.withLock { errors.first } }
}
