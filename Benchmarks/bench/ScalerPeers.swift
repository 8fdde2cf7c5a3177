import Foundation

/// ffmpeg's own scalers on the frame the pipeline scenario renders, one frame to one 160-px thumbnail: swscale's
/// Lanczos on the CPU, and the libplacebo filter on the same Vulkan device (lavapipe here). Per-frame time is
/// the slope between two runs that loop the frame a different number of times, so process start-up, reading the
/// frame and Vulkan start-up cancel out.
struct ScalerPeerResult: Codable {
    var tool: String
    /// The longer of the two runs, verbatim (the shorter differs only in the loop count).
    var recipe: String
    var millisecondsPerFrame: Double?
    var failed: String?
}

extension BenchRunner {
    func measureScalerPeers(clip: BenchClip, at time: Double) -> [ScalerPeerResult] {
        guard let ffmpeg else { return [] }
        let width = 160
        let aspect = Double(clip.displayHeight) / Double(clip.displayWidth)
        let height = max(2, Int((Double(width) * aspect / 2).rounded()) * 2)
        let frame = settings.work + "/pipeline-frame.nut"
        do {
            // The decoded frame as stored (rawvideo in NUT keeps its size and pixel format).
            _ = try ffmpeg.run(FFmpegPeer.common + ["-ss", Format.number(time, digits: 3), "-i", clip.path, "-frames:v",
                                                    "1", "-c:v", "rawvideo", "-f", "nut", frame])
        } catch {
            return [ScalerPeerResult(tool: "ffmpeg scalers", recipe: "",
                                     failed: "could not extract the frame: \(error)")]
        }
        let vulkan = ["-init_hw_device", "vulkan=vk:0", "-filter_hw_device", "vk"]
        let placebo = "libplacebo=w=\(width):h=\(height):downscaler=lanczos:format=yuv420p"
        // Extra loops: enough frames that the difference is well above start-up noise.
        let peers: [(tool: String, device: [String], filter: String, extraFrames: Int)] = [
            ("swscale lanczos (CPU)", [], "scale=\(width):\(height):flags=lanczos", 100),
            ("libplacebo lanczos (same Vulkan device)", vulkan, "hwupload,\(placebo),hwdownload,format=yuv420p", 20),
        ]
        return peers.map { peer in
            func arguments(loops: Int) -> [String] {
                FFmpegPeer.common + peer.device
                    + ["-i", frame, "-vf", "loop=loop=\(loops):size=1:start=0,\(peer.filter)", "-f", "null", "-"]
            }
            let short = 2, long = 2 + peer.extraFrames
            var result = ScalerPeerResult(tool: peer.tool, recipe: FFmpegPeer.commandLine(arguments(loops: long)))
            do {
                var slopes: [Double] = []
                for _ in 0..<max(1, settings.repeats) {
                    let shortSeconds = try ffmpeg.run(arguments(loops: short))
                    let longSeconds = try ffmpeg.run(arguments(loops: long))
                    slopes.append((longSeconds - shortSeconds) / Double(long - short))
                }
                result.millisecondsPerFrame = Timing(seconds: slopes).median * 1000
            } catch {
                result.failed = "\(error)"
            }
            let summary = result.millisecondsPerFrame.map { Format.number($0) + " ms per frame" }
            Log.progress("  \(peer.tool): \(summary ?? result.failed ?? "?")")
            return result
        }
    }
}
