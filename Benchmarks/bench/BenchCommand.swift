import ArgumentParser
import Foundation
import FrameFarm

/// Scenario names accepted by `--only`.
/// Scenarios run in this order whatever order `--only` names them in: floors first, because the thumbnail and
/// poster rows report FrameFarm's distance from the keyframe-decode floor measured there.
enum ScenarioName: String, CaseIterable, ExpressibleByArgument {
    case floors, thumbnails, widths, preview, poster, growth, pipeline, library, lint, renditions, shortclips
}

@main
struct BenchCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bench",
        abstract: "Measure FrameFarm's throughput against the ffmpeg CLI on the same machine, in the same run.",
        discussion: """
            Runs each scenario in its own child process (so its peak RSS is its own), warms up, times --repeat \
            runs, reports median (min–max), then checks what the timed runs wrote. Peers are the ffmpeg CLI \
            recipes printed in the report; without ffmpeg on PATH they are reported as skipped. Inputs are made \
            with the engine's sample writer into --cache and reused. Build in release: swift run -c release bench.
            """)

    @Flag(help: "Short clips and a short scenario set: a smoke run for CI (under 90 s on 2 cores, inputs cached).")
    var quick = false

    @Option(help: ArgumentHelp("Also write the report as JSON.", valueName: "file"))
    var json: String?

    @Option(help: ArgumentHelp("Also write the Markdown report to a file.", valueName: "file"))
    var markdown: String?

    @Option(help: ArgumentHelp("Benchmark the videos in this folder instead of generated clips.", valueName: "dir"))
    var inputs: String?

    @Option(help: ArgumentHelp("Vulkan device: an index or a name substring (default: FRAMEFARM_GPU, then the best).",
                               valueName: "gpu"))
    var gpu: String?

    @Option(parsing: .upToNextOption,
            help: ArgumentHelp("Scenarios to run, comma-separated: \(ScenarioName.allCases.map(\.rawValue).joined(separator: ", ")).",
                               valueName: "name,..."))
    var only: [String] = []

    @Option(name: .customLong("repeat"), help: "Timed runs per tool after one warm-up (default 3; 1 with --quick).")
    var repeats: Int?

    @Option(help: ArgumentHelp("Folder of generated clips, reused across runs.", valueName: "dir"))
    var cache = ".build/bench-inputs"

    @Option(help: ArgumentHelp("Scratch folder for outputs; emptied per scenario.", valueName: "dir"))
    var work = ".build/bench-work"

    @Option(help: ArgumentHelp("Only the clips whose label or path contains this text (e.g. \"default GOP\").",
                               valueName: "text"))
    var clipFilter: String?

    @Flag(help: "Only make the input clips the selected scenarios need (into --cache), then exit.")
    var prepareOnly = false

    @OptionGroup(visibility: .private)
    var child: ChildOptions

    func validate() throws {
        if let repeats, repeats < 1 { throw ValidationError("--repeat must be at least 1") }
        _ = try selectedScenarios()
    }

    func selectedScenarios() throws -> [ScenarioName] {
        let names = only.flatMap { $0.split(separator: ",").map(String.init) }
        guard !names.isEmpty else {
            // Growth is seven more child runs: left out of the CI smoke run unless asked for with --only.
            return quick ? [.floors, .thumbnails, .preview, .poster, .pipeline] : ScenarioName.allCases
        }
        let named = try names.map { name in
            guard let scenario = ScenarioName(rawValue: name) else {
                throw ValidationError("unknown scenario '\(name)': expected "
                                      + ScenarioName.allCases.map(\.rawValue).joined(separator: ", "))
            }
            return scenario
        }
        return ScenarioName.allCases.filter(named.contains)
    }

    func run() throws {
        let configuration: Configuration
        do {
            configuration = try Configuration(environment: ProcessInfo.processInfo.environment)
        } catch {
            throw ValidationError(error.description)
        }
        configuration.applyProcessWide(environment: ProcessInfo.processInfo.environment)
        if let scenario = child.scenario {
            try ChildScenario.run(scenario: scenario, options: child, gpu: gpu)
            return
        }
        // These time the framefarm CLI, which `swift run bench` does not build: said once, before any clip is made,
        // rather than as every row's "file doesn't exist".
        let timesCLI = try selectedScenarios().filter { [.library, .lint, .shortclips].contains($0) }
        let cli = BenchRunner.framefarmExecutable()
        if !timesCLI.isEmpty, !FileManager.default.isExecutableFile(atPath: cli) {
            throw ValidationError("\(timesCLI.map(\.rawValue).joined(separator: ", ")) time\(timesCLI.count == 1 ? "s" : "") the "
                                  + "framefarm CLI, which is not built (\(cli)): run `swift build -c release --product "
                                  + "framefarm` first (`make bench` does)")
        }
        let settings = BenchSettings(
            quick: quick, repeats: repeats ?? (quick ? 1 : 3), gpu: gpu, scenarios: try selectedScenarios(),
            cache: absolute(cache), work: absolute(work), inputsFolder: inputs.map(absolute), clipFilter: clipFilter,
            commandLine: CommandRunner.shellLine(["bench"] + CommandLine.arguments.dropFirst()))
        if prepareOnly {
            try BenchRunner(settings: settings).prepareInputs()
            return
        }
        let report = try BenchRunner(settings: settings).run()
        let text = MarkdownReport.render(report)
        print(text, terminator: "")
        if let markdown { try Data(text.utf8).write(to: URL(fileURLWithPath: markdown)) }
        if let json {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
            try encoder.encode(report).write(to: URL(fileURLWithPath: json))
        }
    }

    private func absolute(_ path: String) -> String {
        path.hasPrefix("/") ? path : FileManager.default.currentDirectoryPath + "/" + path
    }
}

/// What the parent tells a child process (`bench --scenario NAME ...`); not part of the documented CLI.
struct ChildOptions: ParsableArguments {
    @Option(help: "Run one engine scenario in this process and write its timings to --result.")
    var scenario: String?

    @Option(help: "Input video (repeatable).")
    var clip: [String] = []

    @Option(help: "Clip to run once before timing.")
    var warmUpClip: String?

    @Option(help: "exact or keyframe (thumbnails).")
    var seek = "exact"

    @Option(help: "Thumbnail widths, comma-separated (thumbnails).")
    var widths = "160"

    @Option(help: "Frame time in seconds (preview).")
    var at = 0.0

    @Option(help: "Output root of the timed runs.")
    var output = ""

    @Option(help: "Where to write the child's JSON result.")
    var result = ""

    @Option(help: "Timed runs.")
    var times = 1

    @Option(help: "How PNGs are deflated: framefarm or libdeflate (the reference).")
    var pngCompressor = "framefarm"
}

extension GPUService {
    /// The bench's device: as the `FRAMEFARM_*` variables configure it (checked at start), `--gpu` first.
    static func bench(gpu: String?) throws -> GPUService {
        var configuration = try Configuration(environment: ProcessInfo.processInfo.environment).gpu
        if let gpu { configuration.selection = GPUSelection(argument: gpu) }
        return try GPUService(configuration: configuration)
    }
}
