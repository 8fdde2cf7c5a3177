import Foundation
@_spi(Bench) import FrameFarm

/// ffmpeg's own scalers doing the pipeline scenario's jobs on the same decoded frame: swscale's Lanczos on the
/// CPU, and the libplacebo filter (Lanczos) on the same Vulkan device (lavapipe here). Time per job is the slope
/// between two runs that loop the frame a different number of times, so process start-up, reading the frame and
/// Vulkan start-up cancel out. Outputs are RGBA, as FrameFarm's are (swscale converts while it scales).
struct ScalerPeerResult: Codable {
    /// The pipeline job (`PipelineResult.Render.work`).
    var work: String
    var tool: String
    /// The longer of the two runs, verbatim (the shorter differs only in the loop count).
    var recipe: String
    var millisecondsPerJob: Double?
    var failed: String?
    /// Why it was not run (this ffmpeg lacks the filter); never a win.
    var skipped: String?
}

/// The pipeline scenario's jobs, named as its table names them.
enum PipelineWork {
    static let thumbnail = "1 frame -> 1 thumbnail of 160 px"
    static let sheet = "1 frame -> 100 thumbnails of 160 px in one sheet"
    static let deviceScreens = "1 frame -> every device screen, fit and fill"
    /// What `preview` draws of those (identical renders once) and writes (PNG); no peer does this job.
    static let previewRenders = "1 frame -> the same screens as preview draws them: identical renders once, PNG"
}

extension BenchRunner {
    func measureScalerPeers(clip: BenchClip, at time: Double) -> [ScalerPeerResult] {
        guard let ffmpeg else { return [] }
        let frame = settings.work + "/pipeline-frame.nut"
        do {
            // The decoded frame as stored (rawvideo in NUT keeps its size and pixel format).
            _ = try ffmpeg.run(FFmpegPeer.common + ["-ss", Format.number(time, digits: 3), "-i", clip.path, "-frames:v",
                                                    "1", "-c:v", "rawvideo", "-f", "nut", frame])
        } catch {
            return [ScalerPeerResult(work: PipelineWork.thumbnail, tool: "ffmpeg scalers", recipe: "",
                                     failed: "could not extract the frame: \(error)")]
        }
        return ScalerPeerJob.all(clip: clip, quick: settings.quick).flatMap { job in
            job.peers.map { peer in
                measure(peer, of: job, frame: frame, ffmpeg: ffmpeg, repeats: peer.heavy ? 1 : max(1, settings.repeats))
            }
        }
    }

    /// The least extra time the long run must take for its slope to be read as a time per job.
    private static let resolutionSeconds = 0.05

    private func measure(_ peer: ScalerPeerJob.Peer, of job: ScalerPeerJob, frame: String, ffmpeg: FFmpegPeer,
                         repeats: Int) -> ScalerPeerResult {
        let short = peer.heavy ? 1 : 2, long = short + peer.extraJobs
        let arguments = { (jobs: Int) in peer.arguments(frame, jobs * job.framesPerJob) }
        var result = ScalerPeerResult(work: job.work, tool: peer.tool,
                                      recipe: FFmpegPeer.commandLine(arguments(long)))
        if peer.tool == ScalerPeerJob.libplacebo, !ffmpeg.hasLibplacebo {
            result.skipped = "this ffmpeg was built without libplacebo"
            Log.progress("  \(job.work), \(peer.tool): skipped, \(result.skipped!)")
            return result
        }
        do {
            var slopes: [Double] = []
            for _ in 0..<repeats {
                let shortSeconds = try ffmpeg.run(arguments(short))
                let longSeconds = try ffmpeg.run(arguments(long))
                slopes.append((longSeconds - shortSeconds) / Double(long - short))
            }
            let perJob = Timing(seconds: slopes).median
            // Noise larger than the extra jobs' time gives a slope near or below zero: say so instead of a time.
            if perJob * Double(long - short) > Self.resolutionSeconds {
                result.millisecondsPerJob = perJob * 1000
            } else {
                let extra = Format.number(perJob * Double(long - short) * 1000)
                result.failed = "below the noise: \(long - short) more jobs took \(extra) ms"
            }
        } catch {
            result.failed = "\(error)"
        }
        let summary = result.millisecondsPerJob.map { Format.number($0) + " ms per job" }
        Log.progress("  \(job.work), \(peer.tool): \(summary ?? result.failed ?? "?")")
        return result
    }
}

/// One pipeline job as ffmpeg's scalers do it, from a frame looped `frames` times.
struct ScalerPeerJob {
    struct Peer {
        var tool: String
        /// ffmpeg's arguments for `frames` looped input frames.
        var arguments: (_ frame: String, _ frames: Int) -> [String]
        /// Jobs the long run does beyond the short one's (two, one when heavy): enough that the difference is well
        /// above noise.
        var extraJobs: Int
        /// Slow enough on a CPU Vulkan driver (tens of seconds per job) to be timed once.
        var heavy = false
    }

    var work: String
    /// Input frames one job consumes (the sheet's 100 tiles each scale a copy of the frame).
    var framesPerJob: Int
    var peers: [Peer]

    static let swscale = "swscale lanczos (CPU)"
    static let libplacebo = "libplacebo lanczos (same Vulkan device)"
    private static let vulkan = ["-init_hw_device", "vulkan=vk:0", "-filter_hw_device", "vk"]

    private static func crop(_ size: PixelSize) -> String { "crop=\(size.width):\(size.height)" }
    private static func pad(_ size: PixelSize) -> String { "pad=\(size.width):\(size.height):(ow-iw)/2:(oh-ih)/2" }

    private static func loop(_ frames: Int) -> String { "loop=loop=\(frames - 1):size=1:start=0" }

    private static func placebo(width: Int, height: Int, aspect: String? = nil) -> String {
        "libplacebo=w=\(width):h=\(height)" + (aspect.map { ":force_original_aspect_ratio=\($0)" } ?? "")
            + ":upscaler=lanczos:downscaler=lanczos:format=rgba"
    }

    /// The one-thumbnail job on every clip; the sheet and device-screen jobs (issue 3's 1080p workloads) on 1080p
    /// clips, libplacebo's share of them left out of `--quick` (about a minute each on lavapipe).
    static func all(clip: BenchClip, quick: Bool) -> [ScalerPeerJob] {
        let width = 160
        let height = max(2, Int((Double(width) * Double(clip.displayHeight) / Double(clip.displayWidth) / 2).rounded()) * 2)
        func chain(_ filter: String) -> (String, Int) -> [String] {
            { frame, frames in FFmpegPeer.common + ["-i", frame, "-vf", "\(loop(frames)),\(filter)", "-f", "null", "-"] }
        }
        func vulkanChain(_ filter: String) -> (String, Int) -> [String] {
            { frame, frames in
                FFmpegPeer.common + vulkan + ["-i", frame, "-vf", "\(loop(frames)),\(filter)", "-f", "null", "-"]
            }
        }
        let scale = "scale=\(width):\(height):flags=lanczos,format=rgba"
        let placeboThumbnail = "hwupload,\(placebo(width: width, height: height)),hwdownload,format=rgba"
        var jobs = [ScalerPeerJob(work: PipelineWork.thumbnail, framesPerJob: 1, peers: [
            Peer(tool: swscale, arguments: chain(scale), extraJobs: 1000),
            Peer(tool: libplacebo, arguments: vulkanChain(placeboThumbnail), extraJobs: 20),
        ])]
        guard clip.displayHeight == 1080 else { return jobs }
        let tile = "tile=10x10"
        var sheet = ScalerPeerJob(work: PipelineWork.sheet, framesPerJob: 100, peers: [
            Peer(tool: swscale, arguments: chain("\(scale),\(tile)"), extraJobs: 8),
        ])
        let screens = StageProbe.deviceScreens(displaySize: PixelSize(width: clip.displayWidth, height: clip.displayHeight))
        var devices = ScalerPeerJob(work: PipelineWork.deviceScreens, framesPerJob: 1, peers: [
            Peer(tool: swscale, arguments: { frame, frames in
                let chains = screens.map { screen in
                    "scale=\(screen.size.width):\(screen.size.height):force_original_aspect_ratio="
                        + (screen.fill ? "increase:flags=lanczos,format=rgba,\(crop(screen.size))"
                                       : "decrease:flags=lanczos,format=rgba,\(pad(screen.size))")
                }
                return split(frame: frame, prefix: loop(frames), chains: chains, device: [])
            }, extraJobs: 4),
        ])
        if !quick {
            sheet.peers.append(Peer(tool: libplacebo, arguments: vulkanChain("\(placeboThumbnail),\(tile)"),
                                    extraJobs: 1, heavy: true))
            devices.peers.append(Peer(tool: libplacebo, arguments: { frame, frames in
                let chains = screens.map { screen in
                    placebo(width: screen.size.width, height: screen.size.height,
                            aspect: screen.fill ? "increase" : "decrease")
                        + ",hwdownload,format=rgba," + (screen.fill ? crop(screen.size) : pad(screen.size))
                }
                return split(frame: frame, prefix: "\(loop(frames)),hwupload", chains: chains, device: vulkan)
            }, extraJobs: 1, heavy: true))
        }
        jobs += [sheet, devices]
        return jobs
    }

    /// One process: the looped frame split into one chain per output, each to its own null sink.
    private static func split(frame: String, prefix: String, chains: [String], device: [String]) -> [String] {
        FFmpegPeer.common + device
            + ["-i", frame, "-filter_complex", FFmpegRecipes.splitGraph(prefix: prefix, chains: chains)]
            + chains.indices.flatMap { ["-map", "[o\($0)]", "-f", "null", "-"] }
    }
}
