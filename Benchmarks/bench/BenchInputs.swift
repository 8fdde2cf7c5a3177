import Foundation
import FrameFarm
import FrameFarmSamples

/// One synthetic input the bench makes with the engine's sample writer, named by every parameter that shapes it
/// so that a cached file is reused only when it is the same clip.
struct ClipSpec: Sendable {
    var label: String
    var width: Int
    var height: Int
    var durationSeconds: Double
    /// nil: the encoder's default GOP (x264: keyint 250 with scene cuts), so thumbnail times fall inside GOPs.
    var keyframeIntervalSeconds: Double?
    var bFrames: Int?
    /// false: `bFrames` B-frames between every two P-frames, as camera and streaming encodes have them (see
    /// `VideoEncoding.adaptiveBFrames`).
    var adaptiveBFrames = true
    var encoder: String?
    var pixelFormat: String?
    /// Whole frames per second. Default-GOP clips run at 30: x264's 250-frame GOP is then 8.33 s, so 10-s
    /// thumbnail times fall 1.7 to 6.7 s into GOPs instead of on their keyframes as they would at 25.
    var frameRate = 25

    var fileName: String {
        let gop = keyframeIntervalSeconds.map { "gop\(Format.number($0, digits: 1))s" } ?? "gopdefault"
        let parts = [encoder ?? "libx264", pixelFormat ?? "default", "\(width)x\(height)",
                     "\(Int(durationSeconds))s", gop, "b\(bFrames.map(String.init) ?? "default")\(adaptiveBFrames ? "" : "fixed")",
                     "\(frameRate)fps", "veryfast"]
        return parts.joined(separator: "-") + ".mp4"
    }

    var options: SampleOptions {
        var options = SampleOptions()
        options.size = PixelSize(width: width, height: height)
        options.durationSeconds = durationSeconds
        options.frameRate = (numerator: frameRate, denominator: 1)
        options.keyframeIntervalSeconds = keyframeIntervalSeconds
        options.bFrames = bFrames
        options.adaptiveBFrames = adaptiveBFrames
        options.encoder = encoder
        options.pixelFormat = pixelFormat
        options.preset = "veryfast"
        return options
    }
}

/// A video the scenarios run on: its path, a short label for the report, and its probed facts.
struct BenchClip: Sendable {
    var label: String
    var path: String
    var durationSeconds: Double
    var frameRate: Double
    var displayWidth: Int
    var displayHeight: Int
    var codec: String
    var keyframeIntervalSeconds: Double?
    var colorMatrix: String
    var colorRange: String

    var summary: String {
        let gop = keyframeIntervalSeconds.map { "keyframes every \(Format.number($0)) s" } ?? "one keyframe"
        return "\(label): \(codec) \(displayWidth)x\(displayHeight) \(Format.number(frameRate, digits: 2)) fps, "
            + "\(Format.number(durationSeconds, digits: 0)) s, \(gop)"
    }
}

/// The clip sets of a full and a quick run, generated once into a cache folder and reused across runs.
enum BenchInputs {
    static func fullSet(hasX265: Bool) -> [ClipSpec] {
        let uhd = hasX265
            ? ClipSpec(label: "4K HEVC 10-bit 1 min", width: 3840, height: 2160, durationSeconds: 60,
                       keyframeIntervalSeconds: 2, bFrames: 3, encoder: "libx265", pixelFormat: "yuv420p10le")
            : ClipSpec(label: "4K H.264 1 min", width: 3840, height: 2160, durationSeconds: 60,
                       keyframeIntervalSeconds: 2, bFrames: 3)
        return [
            streaming1080p(minutes: 10),
            ClipSpec(label: "1080p H.264 10 min, default GOP", width: 1920, height: 1080, durationSeconds: 600,
                     keyframeIntervalSeconds: nil, bFrames: nil, frameRate: 30),
            uhd,
            ClipSpec(label: "720p H.264 2 min", width: 1280, height: 720, durationSeconds: 120,
                     keyframeIntervalSeconds: 2, bFrames: 3),
        ]
    }

    /// One short clip with the encoder's default GOP, so exact seeks still decode into GOPs; and the same with
    /// B-frames throughout, as camera and streaming encodes have them (x264 places 29 in the first one's 600
    /// frames of the sample pattern).
    static func quickSet() -> [ClipSpec] {
        [ClipSpec(label: "720p H.264 20 s, default GOP", width: 1280, height: 720, durationSeconds: 20,
                  keyframeIntervalSeconds: nil, bFrames: nil, frameRate: 30),
         ClipSpec(label: "720p H.264 20 s, default GOP, B-frames throughout", width: 1280, height: 720,
                  durationSeconds: 20, keyframeIntervalSeconds: nil, bFrames: 3, adaptiveBFrames: false, frameRate: 30)]
    }

    static func streaming1080p(minutes: Double) -> ClipSpec {
        ClipSpec(label: "1080p H.264 \(Format.number(minutes, digits: 0)) min, GOP 2 s", width: 1920, height: 1080,
                 durationSeconds: minutes * 60, keyframeIntervalSeconds: 2, bFrames: 3)
    }

    /// Growth clips: the same streaming-style encode at several lengths.
    static func growthSet(quick: Bool) -> [ClipSpec] {
        if quick {
            return [5.0, 10, 20].map {
                ClipSpec(label: "360p \(Int($0)) s", width: 640, height: 360, durationSeconds: $0,
                         keyframeIntervalSeconds: 2, bFrames: 3)
            }
        }
        return [1.0, 2, 5, 10].map(streaming1080p(minutes:))
    }

    /// A tiny clip each child runs once before timing, so pipelines, shaders and code paths are warm.
    static let warmUp = ClipSpec(label: "warm-up", width: 640, height: 360, durationSeconds: 4,
                                 keyframeIntervalSeconds: 1, bFrames: 2)

    /// Where `spec`'s clip is kept in `cache`.
    static func path(of spec: ClipSpec, cache: String) -> String { cache + "/" + spec.fileName }

    /// The path of `spec` in `cache`, encoding it first when it is not there yet.
    static func materialize(_ spec: ClipSpec, cache: String) throws -> String {
        let path = path(of: spec, cache: cache)
        if FileManager.default.fileExists(atPath: path) { return path }
        try FileManager.default.createDirectory(atPath: cache, withIntermediateDirectories: true)
        let started = Date()
        Log.progress("generating \(spec.fileName) (\(spec.label))...")
        try SampleVideoWriter.write(to: path, options: spec.options)
        Log.progress("generated \(spec.fileName) in \(Format.seconds(Date().timeIntervalSince(started)))")
        return path
    }

    /// Makes every missing clip of `specs`, several at once: one x264 stream does not keep a many-core machine
    /// busy, and the first full run on a new machine spends most of its time here.
    static func materializeAll(_ specs: [ClipSpec], cache: String) throws {
        var seen = Set<String>()
        let missing = specs.filter {
            seen.insert($0.fileName).inserted && !FileManager.default.fileExists(atPath: path(of: $0, cache: cache))
        }
        try Concurrent.forEach(count: missing.count) { index in _ = try materialize(missing[index], cache: cache) }
    }

    /// Probes `path` with the engine and describes it for the scenarios.
    static func clip(path: String, label: String) throws -> BenchClip {
        switch Prober.probe(paths: [path]).first! {
        case .failure(let failure):
            throw failure
        case .success(let report):
            return BenchClip(label: label, path: path, durationSeconds: report.durationSeconds,
                             frameRate: report.frameRate ?? 25, displayWidth: report.displayWidth,
                             displayHeight: report.displayHeight, codec: report.codec,
                             keyframeIntervalSeconds: report.keyframeIntervalSeconds,
                             colorMatrix: report.colorMatrix.rawValue, colorRange: report.colorRange.rawValue)
        }
    }

    /// Every video file directly in `folder` (`--inputs`), sorted by name.
    static func videos(in folder: String) throws -> [String] {
        let extensions: Set<String> = ["mp4", "m4v", "mov", "mkv", "webm", "ts", "avi"]
        return try FileManager.default.contentsOfDirectory(atPath: folder)
            .filter { extensions.contains(($0 as NSString).pathExtension.lowercased()) }
            .sorted()
            .map { folder + "/" + $0 }
    }

    /// Whether this FFmpeg build has libx265 (for the 10-bit HEVC clip): a 1-frame trial encode.
    static func encoderWorks(_ spec: ClipSpec, cache: String) -> Bool {
        var trial = spec
        trial.width = 64
        trial.height = 64
        trial.durationSeconds = 0.2
        let path = NSTemporaryDirectory() + "/framefarm-bench-encoder-trial-\(getpid()).mp4"
        defer { try? FileManager.default.removeItem(atPath: path) }
        return (try? SampleVideoWriter.write(to: path, options: trial.options)) != nil
    }
}

/// Progress lines on standard error (standard output carries the report).
enum Log {
    static func progress(_ message: String) {
        FileHandle.standardError.write(Data(("bench: " + message + "\n").utf8))
    }
}
