import Foundation
import FrameFarm

extension BenchRunner {
    /// The auto poster of one clip against `ffmpeg -vf thumbnail` (its representative-frame filter). Speed only:
    /// the tools choose different frames by design, so there is no common reference for PSNR.
    func measurePoster(clip: BenchClip) -> ScenarioResult {
        let output = settings.work + "/poster-framefarm"
        let ours = runChild(scenario: "poster", clips: [clip.path], output: output)
        let file = settings.work + "/poster-ffmpeg/poster.jpg"
        let arguments = FFmpegRecipes.poster(clip: clip.path, output: file)
        var peer = timePeer("ffmpeg -vf thumbnail", recipe: FFmpegPeer.commandLine(arguments), items: 1,
                            prepare: { _ = try self.freshFolder("poster-ffmpeg") }, run: { _ = try $0.run(arguments) })
        if peer.timing != nil, let decoder, let image = try? decoder.decodeImage(file) {
            peer.verification = "poster \(image.width)x\(image.height), frame \(image.frameCode().map(String.init) ?? "?")"
        }
        var result = ScenarioResult(scenario: "poster", clip: clip.label, videoSeconds: clip.durationSeconds,
                                    unit: "posters", frameFarm: ours, peers: [peer],
                                    keyframeFloorSeconds: keyframeFloors[clip.path])
        result.notes.append("ffmpeg's thumbnail filter looks at batches of 100 frames from the start only")
        return result
    }
}
