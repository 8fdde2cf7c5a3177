import Foundation

extension BenchRunner {
    /// ffmpeg decoding the clip to nothing: every frame, and keyframes only, each with ffmpeg's default threads
    /// and with one thread. The single-threaded keyframe figure is the floor FrameFarm's keyframe mode is held to.
    func measureFloors(clip: BenchClip) -> FloorResult {
        var measurements: [Measurement] = []
        for keyframesOnly in [false, true] {
            for singleThread in [false, true] {
                let arguments = FFmpegRecipes.decodeFloor(clip: clip.path, keyframesOnly: keyframesOnly,
                                                          singleThread: singleThread)
                let tool = "decode " + (keyframesOnly ? "keyframes" : "all frames")
                    + (singleThread ? ", -threads 1" : ", default threads")
                let measurement = timePeer(tool, recipe: FFmpegPeer.commandLine(arguments), items: nil,
                                           prepare: {}, run: { _ = try $0.run(arguments) })
                if keyframesOnly, singleThread, let median = measurement.medianSeconds {
                    keyframeFloors[clip.path] = median
                }
                measurements.append(measurement)
            }
        }
        return FloorResult(clip: clip.label, videoSeconds: clip.durationSeconds, measurements: measurements)
    }
}
