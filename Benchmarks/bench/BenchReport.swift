import Foundation

/// One timed tool on one scenario: FrameFarm or a peer recipe.
struct Measurement: Codable {
    var tool: String
    /// The exact command (peers) or API call (FrameFarm) that was timed.
    var recipe: String
    var timing: Timing?
    /// Why it was not timed (peer not installed, engine API missing); a skipped peer is never a win.
    var skipped: String?
    var failed: String?
    var peakRSSBytes: Int?
    /// Thumbnails, renders or posters one run produced.
    var items: Int?
    /// Mean PSNR (dB) of sampled outputs against the float reference, and how many outputs were compared.
    var psnr: Double?
    var psnrSamples: Int?
    /// What was checked on the outputs of the timed runs.
    var verification: String?
    /// Bytes of the images one run wrote (sprite sheets, single thumbnails, renders): size next to quality.
    var outputBytes: Int?
    /// Bytes of input one run read (from disk, or sent by the server for an http input).
    var inputBytes: Int?

    static func skipped(_ tool: String, recipe: String, reason: String) -> Measurement {
        Measurement(tool: tool, recipe: recipe, skipped: reason)
    }

    var medianSeconds: Double? { timing.map(\.median) }
}

/// One scenario on one clip, FrameFarm and its peers side by side.
struct ScenarioResult: Codable {
    var scenario: String
    var clip: String
    var videoSeconds: Double
    /// What `items` counts: thumbnails, renders, posters.
    var unit: String
    var frameFarm: Measurement
    /// FrameFarm with a library in place of its own code (libdeflate for PNG): shown beside it, never a peer.
    var references: [Measurement] = []
    var peers: [Measurement]
    /// `ffmpeg -threads 1 -skip_frame nokey -i clip -f null -` on this clip, when measured.
    var keyframeFloorSeconds: Double?
    var notes: [String] = []

    var bestPeer: Measurement? {
        peers.filter { $0.timing != nil }.min { $0.medianSeconds! < $1.medianSeconds! }
    }

    /// Best peer time / FrameFarm time: above 1 means FrameFarm is faster.
    var speedup: Double? {
        guard let ours = frameFarm.medianSeconds, let theirs = bestPeer?.medianSeconds, ours > 0 else { return nil }
        return theirs / ours
    }
}

/// The ffmpeg decode floors of one clip.
struct FloorResult: Codable {
    var clip: String
    var videoSeconds: Double
    var measurements: [Measurement]
}

/// Growth: thumbnails over clip length and over concurrent videos.
struct GrowthResult: Codable {
    struct Point: Codable {
        var label: String
        var videoMinutes: Double
        var videos: Int
        var timing: Timing
        var peakRSSBytes: Int?
        var secondsPerVideoMinute: Double
    }

    var seek: String
    var byLength: [Point]
    var byConcurrency: [Point]
    /// Fitted seconds per video-minute over the length series (linear cost means this matches the per-point figures).
    var fittedSlopeSecondsPerMinute: Double?
    var fittedInterceptSeconds: Double?
}

/// Where and how the figures were taken.
struct ReportHeader: Codable {
    var date: String
    var cpuModel: String
    var cores: Int
    var memory: String
    var vulkanDevice: String
    var vulkanDeviceType: String
    var ffmpegVersion: String
    var ffmpegLibraries: [String]
    var build: String
    /// FRAMEFARM_* variables in effect (the children inherit them).
    var environment: [String]
    var command: String
    var repeats: Int
    var clips: [String]
}

extension ReportHeader {
    /// Whether FrameFarm's Vulkan stage ran on the CPU (lavapipe), sharing the cores with decoding.
    var vulkanRunsOnCPU: Bool {
        vulkanDeviceType.lowercased().contains("cpu") || vulkanDevice.lowercased().contains("llvmpipe")
    }
}

struct BenchReport: Codable {
    var header: ReportHeader
    var scenarios: [ScenarioResult] = []
    var floors: [FloorResult] = []
    var growth: GrowthResult?
    var library: LibraryResult?
    var lint: LintBenchResult?
    var renditions: [RenditionsResult] = []
    var shortClips: [ShortClipResult] = []
    var pipeline: [PipelineResult] = []
    /// Which stage bounds each thumbnail and preview scenario (StageBounds; needs the pipeline scenario).
    var bounds: [String] = []
    /// Scenarios of the issue this run could not measure, and why.
    var notMeasured: [String] = []
    var notes: [String] = []
}
