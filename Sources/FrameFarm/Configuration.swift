import Foundation
import FrameFarmGPU
import FrameFarmMedia

/// Everything about a FrameFarm process that is not a job's options: the GPU and FFmpeg's log. The library reads
/// no environment: the executables build this value from their flags and the `FRAMEFARM_*` variables
/// (`init(environment:)`, the one table of them) and hand it down.
public struct Configuration: Sendable, Hashable {
    public var gpu = GPUConfiguration()
    public var ffmpegLog = FFmpegLogLevel.quiet
    /// How PNGs are deflated; the executables put it in each batch's `BatchSettings`.
    public var pngCompressor = PNGCompressor.framefarm

    public init() {}

    /// Every variable FrameFarm's executables read, and what each sets (docs/development.md lists them too).
    public static let variables: [(name: String, meaning: String)] = [
        ("FRAMEFARM_GPU", "Vulkan device: an index or a name substring (--gpu wins)"),
        ("FRAMEFARM_VALIDATION", "1: the Khronos validation layer, every message recorded"),
        ("FRAMEFARM_PREFILTER", "auto, host or device: where large reductions are prefiltered"),
        ("FRAMEFARM_CANVASES", "device: draw canvases in device memory and copy them to the host once"),
        ("FRAMEFARM_GPU_TIMING", "1: each submission's upload and compute times on stderr"),
        ("FRAMEFARM_FFMPEG_LOG", "quiet, error, warning, info or debug: FFmpeg's own log"),
        ("FRAMEFARM_VULKAN_LOADER", "the Vulkan loader library to open instead of libvulkan.so.1"),
        ("FRAMEFARM_PNG_COMPRESSOR", "framefarm or libdeflate: how PNG image data is deflated (same pixels)"),
        ("FRAMEFARM_SHARDS", "the shard count for --shard auto where the engine gives only an index (Kubernetes)"),
    ]

    /// The configuration `environment` (a process's variables) asks for; a value that means nothing is an error
    /// naming the variable and the values it takes.
    public init(environment: [String: String]) throws(ConfigurationError) {
        func value(_ name: String) -> String? { environment[name].flatMap { $0.isEmpty ? nil : $0 } }
        func choice<Choice: RawRepresentable<String> & CaseIterable>(_ name: String, _ type: Choice.Type)
            throws(ConfigurationError) -> Choice? {
            guard let text = value(name) else { return nil }
            guard let choice = Choice(rawValue: text.lowercased()) else {
                throw ConfigurationError(variable: name, value: text,
                                         expected: Choice.allCases.map(\.rawValue).joined(separator: ", "))
            }
            return choice
        }
        func flag(_ name: String) throws(ConfigurationError) -> Bool {
            guard let text = value(name) else { return false }
            guard text == "0" || text == "1" else { throw ConfigurationError(variable: name, value: text, expected: "0, 1") }
            return text == "1"
        }
        self.init()
        if let named = value("FRAMEFARM_GPU") {
            gpu.selection = GPUSelection(argument: named)
            gpu.selectionNamedBy = "FRAMEFARM_GPU=\(named)"
        }
        gpu.validation = try flag("FRAMEFARM_VALIDATION")
        gpu.prefilter = try choice("FRAMEFARM_PREFILTER", PrefilterPlacement.self) ?? .automatic
        gpu.canvasesOnDevice = try choice("FRAMEFARM_CANVASES", CanvasPlacement.self) == .device
        gpu.printsTimings = try flag("FRAMEFARM_GPU_TIMING")
        gpu.loaderPath = value("FRAMEFARM_VULKAN_LOADER")
        ffmpegLog = try choice("FRAMEFARM_FFMPEG_LOG", FFmpegLogLevel.self) ?? .quiet
        pngCompressor = try choice("FRAMEFARM_PNG_COMPRESSOR", PNGCompressor.self) ?? .framefarm
    }

    /// Applies what is process-wide by nature (FFmpeg's log level, the Vulkan drivers the loader opens, chosen
    /// from the executable's `environment`); call once at start, before any thread: setenv is not thread-safe,
    /// and the loader reads its variables when it makes the first instance.
    public func applyProcessWide(environment: [String: String]) {
        FFmpegLog.set(ffmpegLog)
        var loaderEnvironment = environment
        if let drivers = VulkanDrivers.manifestsForThisMachine(environment: environment)?.joined(separator: ":") {
            // Loaders from 1.3.207 read the first, older ones the second.
            setenv("VK_DRIVER_FILES", drivers, 0)
            setenv("VK_ICD_FILENAMES", drivers, 0)
            loaderEnvironment["VK_DRIVER_FILES"] = drivers
        }
        // lavapipe, among the drivers the loader will open, is opened deep-bound first; not where a preloaded
        // library (a malloc) is in the global scope, which the deep-bound driver would bypass.
        if environment["LD_PRELOAD", default: ""].isEmpty {
            VulkanLoader.deepBindBeforeTheFirstInstance(VulkanDrivers.lavapipeLibraries(environment: loaderEnvironment))
        }
    }

    /// `FRAMEFARM_CANVASES`.
    private enum CanvasPlacement: String, CaseIterable {
        case host, device
    }
}

/// A `FRAMEFARM_*` variable whose value means nothing.
public struct ConfigurationError: Error, CustomStringConvertible, Sendable {
    public var variable: String
    public var value: String
    public var expected: String

    public var description: String { "\(variable)=\(value) is not valid (expected \(expected))" }
}

extension FrameFarmVersion {
    /// `report` for the loader `configuration` names.
    public static func report(configuration: Configuration) -> String {
        """
        framefarm \(current)
        \(MediaLibraries.description)
        \(VulkanLoader.versionDescription(path: configuration.gpu.loaderPath))
        """
    }
}
