import Foundation
@_spi(Bench) import FrameFarm

/// One clip's stages measured apart: the Vulkan stage on a frame decoded beforehand (upload, compute, readback,
/// encode) for a 100-tile sheet and for every device screen, and decoding alone for a thumbnail track.
struct PipelineResult: Codable {
    struct Render: Codable {
        var work: String
        var megapixelsIn: Double
        var outputs: Int
        var outputMegapixels: Double
        var uploadMilliseconds: Double
        /// The host's prefilter (where it ran there) plus device execution.
        var computeMilliseconds: Double
        /// Whether the host ran the box prefilter (CPU Vulkan devices); its time is then host time.
        var prefilterOnHost: Bool
        /// Time of the box prefilter and device time of the two resampling passes (timestamp queries; 0 without).
        var prefilterMilliseconds: Double
        var resampleMilliseconds: Double
        var readbackMilliseconds: Double
        var encodeMilliseconds: Double

        /// The Vulkan stage for this work: upload + compute.
        var vulkanMilliseconds: Double { uploadMilliseconds + computeMilliseconds }
    }

    struct Decode: Codable {
        var seek: String
        var frames: Int
        var seconds: Double
    }

    var clip: String
    var renders: [Render]
    var decodes: [Decode]
    /// ffmpeg's scalers doing the same jobs on the same frame (see ScalerPeers.swift).
    var scalerPeers: [ScalerPeerResult] = []
}

extension BenchRunner {
    func measurePipeline(clip: BenchClip, gpu: GPUService) -> PipelineResult {
        var result = PipelineResult(clip: clip.label, renders: [], decodes: [])
        let works: [(String, StageProbe.RenderWork)] = [
            (PipelineWork.thumbnail, .thumbnails(width: 160, count: 1, columns: 1)),
            (PipelineWork.sheet, .thumbnails(width: 160, count: 100, columns: 10)),
            (PipelineWork.deviceScreens, .deviceScreens),
            (PipelineWork.previewRenders, .previewRenders),
        ]
        for (label, work) in works {
            do {
                let timing = try StageProbe.renderAlone(path: clip.path, at: clip.durationSeconds / 2, work: work, gpu: gpu,
                                                        repeats: max(3, settings.repeats), minimumSeconds: 1)
                result.renders.append(PipelineResult.Render(
                    work: label, megapixelsIn: timing.megapixelsIn, outputs: timing.outputs,
                    outputMegapixels: timing.outputMegapixels, uploadMilliseconds: timing.uploadMilliseconds,
                    computeMilliseconds: timing.computeMilliseconds, prefilterOnHost: timing.prefilterOnHost,
                    prefilterMilliseconds: timing.prefilterMilliseconds,
                    resampleMilliseconds: timing.resampleMilliseconds, readbackMilliseconds: timing.readbackMilliseconds,
                    encodeMilliseconds: timing.encodeMilliseconds))
            } catch {
                Log.progress("pipeline \(label) failed: \(error)")
            }
        }
        result.scalerPeers = measureScalerPeers(clip: clip, at: clip.durationSeconds / 2)
        let times = stride(from: 0.0, to: clip.durationSeconds, by: 10).map { $0 }
        for seek in SeekMode.allCases {
            if let timing = try? StageProbe.decodeAlone(path: clip.path, times: times, seek: seek) {
                result.decodes.append(PipelineResult.Decode(seek: seek.rawValue, frames: timing.frames, seconds: timing.seconds))
            }
        }
        return result
    }
}

extension MarkdownReport {
    static func pipelineSection(_ results: [PipelineResult]) -> [String] {
        guard !results.isEmpty else { return [] }
        var lines = ["", "## Pipeline: stages apart", "",
                     "The Vulkan stage on a frame decoded beforehand (medians of back-to-back rounds, at least a "
                     + "second of them, so a job of a millisecond is timed in the steady state the peers' slopes "
                     + "measure; readback is 0 because canvases are read "
                     + "from mapped memory by the encoders, whose time is the encode column), and decoding alone for a "
                     + "thumbnail every 10 s on one thread. On a CPU Vulkan device the host runs the box prefilter "
                     + "(marked \"host\"); compute then includes its time.", "",
                     "| clip | work | MP in | outputs (MP) | upload | compute (prefilter + resample) | readback | encode (JPEG unless PNG is named) | MP/s in | outputs/s |",
                     "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"]
        for result in results {
            for render in result.renders {
                let vulkanSeconds = render.vulkanMilliseconds / 1000
                lines.append("| \(result.clip) | \(render.work) | \(Format.number(render.megapixelsIn, digits: 2)) | "
                             + "\(render.outputs) (\(Format.number(render.outputMegapixels))) | "
                             + "\(Format.number(render.uploadMilliseconds)) ms | \(Format.number(render.computeMilliseconds)) ms "
                             + "(\(Format.number(render.prefilterMilliseconds))\(render.prefilterOnHost ? " host" : "") + "
                             + "\(Format.number(render.resampleMilliseconds))) | "
                             + "\(Format.number(render.readbackMilliseconds)) ms | \(Format.number(render.encodeMilliseconds)) ms | "
                             + "\(Format.number(render.megapixelsIn / vulkanSeconds)) | "
                             + "\(Format.number(Double(render.outputs) / vulkanSeconds)) |")
            }
        }
        lines += scalerSection(results)
        lines += ["", "| clip | decode alone | frames | time | per frame |", "| --- | --- | --- | --- | --- |"]
        for result in results {
            for decode in result.decodes {
                lines.append("| \(result.clip) | --seek \(decode.seek) | \(decode.frames) | \(Format.seconds(decode.seconds)) | "
                             + "\(Format.number(decode.seconds * 1000 / Double(max(1, decode.frames)))) ms |")
            }
        }
        return lines
    }

    /// Each job against ffmpeg's scalers on the same frame: time per job, and FrameFarm's speedup.
    static func scalerSection(_ results: [PipelineResult]) -> [String] {
        guard results.contains(where: { !$0.scalerPeers.isEmpty }) else { return [] }
        var lines = ["", "The same jobs through ffmpeg's scalers on the same decoded frame: FrameFarm's Vulkan stage "
                     + "(upload + compute) against swscale and the libplacebo filter on the same Vulkan device (per job: "
                     + "the slope between runs looping the frame a different number of times, so start-up cancels out; "
                     + "outputs RGBA like FrameFarm's; libplacebo's sheet and device-screen jobs are "
                     + "timed once).", "",
                     "| clip | work | FrameFarm | peer | peer per job | FrameFarm speedup |",
                     "| --- | --- | --- | --- | --- | --- |"]
        for result in results {
            for peer in result.scalerPeers {
                guard let ours = result.renders.first(where: { $0.work == peer.work }) else { continue }
                let oursMilliseconds = ours.vulkanMilliseconds
                let time = peer.millisecondsPerJob.map { Format.number($0) + " ms" }
                let speedup = peer.millisecondsPerJob.map { Format.number($0 / oursMilliseconds, digits: 2) + "x" } ?? "–"
                let missing = peer.skipped.map { "skipped: \($0)" } ?? "failed: \(peer.failed ?? "?")"
                lines.append("| \(result.clip) | \(peer.work) | \(Format.number(oursMilliseconds)) ms | \(peer.tool) | "
                             + "\(time ?? missing.replacingOccurrences(of: "|", with: "/")) | \(speedup) |")
            }
        }
        return lines
    }
}
