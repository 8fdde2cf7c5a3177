import Foundation
import FrameFarm

/// What a child process reports back to the parent.
struct ChildResult: Codable {
    var seconds: [Double]
    var peakRSSBytes: Int?
    /// Outputs of the last timed run (thumbnails, renders or posters).
    var items: Int
    /// Bytes the timed runs read through read(2) and pread(2) (`rchar`), per run: local inputs; an http input's
    /// bytes come through sockets, counted by the server instead.
    var bytesRead: Int?
    var error: String?
}

/// One engine scenario inside a child process: warm up on a tiny clip, pre-read the inputs, then time `times`
/// runs of the same call into a fresh output root; the last run's outputs stay for the parent to check.
enum ChildScenario {
    static func run(scenario: String, options: ChildOptions, gpu gpuArgument: String?) throws {
        var result = ChildResult(seconds: [], peakRSSBytes: nil, items: 0, error: nil)
        do {
            let gpu = try GPUService.bench(gpu: gpuArgument)
            var work = try EngineWork(scenario: scenario, seek: options.seek, widths: options.widths, frameTime: options.at)
            guard let compressor = PNGCompressor(rawValue: options.pngCompressor) else {
                throw BenchError("unknown PNG compressor \(options.pngCompressor)")
            }
            work.pngCompressor = compressor
            if let warmUp = options.warmUpClip {
                let scratch = options.output + "-warm-up"
                _ = try work.run(inputs: [warmUp], outputRoot: scratch, gpu: gpu, warmUp: true)
                try? FileManager.default.removeItem(atPath: scratch)
            }
            options.clip.forEach(readThrough)
            let readBefore = bytesReadSoFar()
            for _ in 0..<options.times {
                try? FileManager.default.removeItem(atPath: options.output)
                let started = DispatchTime.now()
                result.items = try work.run(inputs: options.clip, outputRoot: options.output, gpu: gpu)
                result.seconds.append(Double(DispatchTime.now().uptimeNanoseconds - started.uptimeNanoseconds) / 1e9)
            }
            if let before = readBefore, let after = bytesReadSoFar(), options.times > 0 {
                result.bytesRead = (after - before) / options.times
            }
        } catch {
            result.error = "\(error)"
        }
        result.peakRSSBytes = PeakMemory.currentProcessPeakBytes()
        try JSONEncoder().encode(result).write(to: URL(fileURLWithPath: options.result))
    }

    /// This process's `rchar` (/proc/self/io): bytes passed to read(2) and pread(2) so far, page cache or not.
    static func bytesReadSoFar() -> Int? {
        guard let io = try? String(contentsOfFile: "/proc/self/io", encoding: .utf8) else { return nil }
        return io.split(separator: "\n").first { $0.hasPrefix("rchar:") }
            .flatMap { Int($0.dropFirst("rchar:".count).trimmingCharacters(in: .whitespaces)) }
    }

    /// Reads a file once so every timed run (FrameFarm's and the peers') starts from the page cache.
    static func readThrough(_ path: String) {
        guard let handle = FileHandle(forReadingAtPath: path) else { return }
        defer { try? handle.close() }
        while let chunk = try? handle.read(upToCount: 8 << 20), !chunk.isEmpty {}
    }
}

/// The engine call a scenario times. Every input must succeed: a failed input makes the run an error, never a
/// faster time.
struct EngineWork {
    enum Kind { case thumbnails(SeekMode, widths: [Int]), preview(Double), poster }
    let kind: Kind
    var pngCompressor = PNGCompressor.framefarm

    init(scenario: String, seek: String, widths: String = "160", frameTime: Double) throws {
        switch scenario {
        case "thumbnails":
            guard let mode = SeekMode(rawValue: seek) else { throw BenchError("unknown seek mode \(seek)") }
            let widths = widths.split(separator: ",").compactMap { Int($0) }
            guard !widths.isEmpty else { throw BenchError("bad widths") }
            kind = .thumbnails(mode, widths: widths)
        case "preview": kind = .preview(frameTime)
        case "poster": kind = .poster
        default: throw BenchError("unknown engine scenario \(scenario)")
        }
    }

    /// Runs the job once; returns the number of thumbnails, renders or posters written.
    /// A warm-up preview renders one device only: enough to build every pipeline, without the 5K canvases.
    func run(inputs: [String], outputRoot: String, gpu: GPUService, warmUp: Bool = false) throws -> Int {
        var settings = BatchSettings(outputRoot: outputRoot)
        settings.pngCompressor = pngCompressor
        let pipeline = BatchPipeline(settings: settings, gpu: gpu)
        let summary: BatchSummary
        switch kind {
        case .thumbnails(let seek, let widths):
            var options = Self.thumbnailOptions(seek)
            options.widths = widths
            summary = pipeline.run(ThumbnailJob(options: options), inputs: inputs)
        case .preview(let time):
            var options = Self.previewOptions(at: time)
            if warmUp { options.devices = Array(options.devices.prefix(1)) }
            summary = pipeline.run(PreviewJob(options: options), inputs: inputs)
        case .poster:
            summary = pipeline.run(PosterJob(options: PosterOptions()), inputs: inputs)
        }
        if let failure = summary.failures.first { throw BenchError("FrameFarm failed: \(failure)") }
        return try Self.itemCount(summary: summary, kind: kind)
    }

    static func thumbnailOptions(_ seek: SeekMode) -> ThumbnailOptions {
        var options = ThumbnailOptions()
        options.seek = seek
        return options
    }

    /// Pictures only (no overlays), PNG like the ffmpeg peer, so both draw the same thing and PSNR compares them.
    static func previewOptions(at time: Double) -> PreviewOptions {
        var options = PreviewOptions()
        options.frame = .seconds(time)
        options.overlays = []
        options.format = .png
        return options
    }

    private static func itemCount(summary: BatchSummary, kind: Kind) throws -> Int {
        var count = 0
        for outcome in summary.inputs {
            guard let folder = outcome.folder,
                  let manifest = ManifestStore.read(OutputLayout(root: summary.outputRoot).manifestPath(folder)) else {
                throw BenchError("no manifest for \(outcome.path)")
            }
            switch kind {
            case .thumbnails: count += manifest.thumbnails?.count ?? 0
            case .preview: count += manifest.preview?.renders.count ?? 0
            case .poster: count += manifest.poster == nil ? 0 : 1
            }
        }
        return count
    }
}

struct BenchError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
