import Foundation

/// Which stage bounds each thumbnail and preview scenario, from the pipeline scenario's stages measured apart on
/// the same clip: decoding the frames the scenario needs (on one thread, so spread over every core) against the
/// Vulkan stage for them (one frame's upload + compute, times the frames); for previews, the Vulkan stage and the
/// PNG encoding of the renders `preview` draws (identical ones once). On a CPU Vulkan driver both run on the
/// same cores, so their sum is the floor; on a GPU, the larger of the two.
enum StageBounds {
    static func lines(_ report: BenchReport) -> [String] {
        let cores = max(1, report.header.cores)
        let sharedCores = report.header.vulkanRunsOnCPU
        return report.scenarios.compactMap { scenario in
            guard let ours = scenario.frameFarm.medianSeconds, ours > 0,
                  let pipeline = report.pipeline.first(where: { $0.clip == scenario.clip }) else { return nil }
            let stages: [(name: String, seconds: Double, detail: String)]
            if scenario.scenario.hasPrefix("thumbnails") {
                let seek = scenario.scenario.replacingOccurrences(of: "thumbnails --seek ", with: "")
                guard let decode = pipeline.decodes.first(where: { $0.seek == seek }),
                      let render = pipeline.renders.first(where: { $0.work == PipelineWork.thumbnail }) else { return nil }
                let perFrame = render.vulkanMilliseconds / 1000
                stages = [
                    ("decoding", decode.seconds / Double(cores),
                     "\(decode.frames) frames, \(Format.seconds(decode.seconds)) on one thread / \(cores) cores"),
                    ("the Vulkan stage", perFrame * Double(decode.frames),
                     "\(decode.frames) x \(Format.number(perFrame * 1000)) ms"),
                ]
            } else if scenario.scenario == "preview" {
                guard let render = pipeline.renders.first(where: { $0.work == PipelineWork.previewRenders }) else {
                    return nil
                }
                stages = [
                    ("the Vulkan stage", render.vulkanMilliseconds / 1000,
                     "\(render.outputs) distinct renders, \(Format.number(render.outputMegapixels)) MP"),
                    ("PNG encoding", render.encodeMilliseconds / 1000, "on every core"),
                ]
            } else {
                return nil
            }
            func percent(_ seconds: Double) -> String { Format.number(seconds / ours * 100, digits: 0) + "%" }
            let parts = stages.map { "\($0.name) \(Format.seconds($0.seconds)) (\($0.detail)) = \(percent($0.seconds))" }
            let together = stages.reduce(0) { $0 + $1.seconds }
            let shared = sharedCores ? "; on this CPU Vulkan driver they share the cores: \(percent(together)) together" : ""
            let largest = stages.max { $0.seconds < $1.seconds }!
            func capitalized(_ text: String) -> String { text.prefix(1).uppercased() + text.dropFirst() }
            let bound = (sharedCores ? together : largest.seconds) >= ours / 2
                ? "bound: \(largest.name)"
                : "bound: neither stage; probing, encoding and start-up take the rest"
            return "**\(scenario.scenario)**, \(scenario.clip): FrameFarm \(Format.seconds(ours)). "
                + capitalized(parts.joined(separator: "; ")) + shared + ". " + capitalized(bound) + "."
        }
    }
}
