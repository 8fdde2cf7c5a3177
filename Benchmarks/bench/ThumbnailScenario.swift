import Foundation
import FrameFarm

extension BenchRunner {
    /// The 160-px track of one clip in one seek mode, against the ffmpeg recipes that make the same track.
    func measureThumbnails(clip: BenchClip, seek: SeekMode) -> ScenarioResult {
        let output = settings.work + "/thumbnails-framefarm"
        var ours = runChild(scenario: "thumbnails", clips: [clip.path], output: output, arguments: ["--seek", seek.rawValue])
        let folder = output + "/" + OutputLayout.stem(clip.path)
        let section = ManifestStore.read(folder + "/manifest.json")?.thumbnails
        let count = section?.count ?? Int((clip.durationSeconds / 10).rounded(.up))
        let times = (0..<count).map { Double($0) * 10 }
        var result = ScenarioResult(scenario: "thumbnails --seek \(seek.rawValue)", clip: clip.label,
                                    videoSeconds: clip.durationSeconds, unit: "thumbnails", frameFarm: ours, peers: [],
                                    keyframeFloorSeconds: keyframeFloors[clip.path])
        var peers = seek == .exact
            ? [tiledPeer(clip: clip, keyframesOnly: false, count: count),
               seekPeer(clip: clip, times: times, parallel: 1),
               seekPeer(clip: clip, times: times, parallel: 2)]
            : [tiledPeer(clip: clip, keyframesOnly: true, count: count)]
        if let decoder {
            let quality = ThumbnailQuality(clip: clip, decoder: decoder, samples: psnrSamples, exact: seek == .exact)
            if let section, ours.timing != nil { quality.checkFrameFarm(&ours, section: section, folder: folder) }
            for index in peers.indices where peers[index].measurement.timing != nil {
                quality.checkPeer(&peers[index].measurement, layout: peers[index].layout, count: count)
            }
        }
        result.frameFarm = ours
        result.peers = peers.map(\.measurement)
        if seek == .keyframe, clip.keyframeIntervalSeconds == nil || clip.keyframeIntervalSeconds! > 10 {
            result.notes.append("keyframes are further apart than the 10-s interval: keyframe mode repeats frames")
        }
        return result
    }

    /// `--widths 160,320,640` against the 160-px track alone, both FrameFarm (the target: three widths cost at
    /// most 1.3 times one, since they share the decoded frames); the peer is one width, so its ratio below 1 is
    /// what the extra widths cost. Every tile of every width is read back for its frame code's PSNR.
    func measureWidths(clip: BenchClip, seek: SeekMode) -> ScenarioResult {
        let widths = [160, 320, 640]
        let output = settings.work + "/thumbnails-widths"
        var three = runChild(scenario: "thumbnails", clips: [clip.path], output: output,
                             arguments: ["--widths", widths.map(String.init).joined(separator: ","), "--seek", seek.rawValue])
        let section = ManifestStore.read(output + "/" + OutputLayout.stem(clip.path) + "/manifest.json")?.thumbnails
        if three.timing != nil { three.items = section.map { $0.count * widths.count } }
        var one = runChild(scenario: "thumbnails", clips: [clip.path], output: settings.work + "/thumbnails-one-width",
                           arguments: ["--seek", seek.rawValue])
        one.tool = "FrameFarm, 160 px only"
        var result = ScenarioResult(scenario: "thumbnails --widths 160,320,640 --seek \(seek.rawValue)", clip: clip.label,
                                    videoSeconds: clip.durationSeconds, unit: "tiles", frameFarm: three, peers: [one],
                                    keyframeFloorSeconds: keyframeFloors[clip.path])
        if let threeSeconds = three.timing?.median, let oneSeconds = one.timing?.median, oneSeconds > 0 {
            result.notes.append(String(format: "three widths cost %.2fx one width (target: at most 1.3x)", threeSeconds / oneSeconds))
        }
        if let section, section.moreWidths?.map(\.tileWidth) != [320, 640] {
            result.notes.append("the manifest does not list the 320 and 640 tracks")
        }
        return result
    }

    /// `fps=1/10,scale=160:-2,tile=10x10` into JPEG sheets, decoding every frame or (`-skip_frame nokey`) keyframes.
    private func tiledPeer(clip: BenchClip, keyframesOnly: Bool, count: Int) -> PeerThumbnails {
        let folder = settings.work + "/thumbnails-ffmpeg-tiled"
        let arguments = { FFmpegRecipes.tiledTrack(clip: clip.path, output: folder, keyframesOnly: keyframesOnly) }
        let measurement = timePeer(keyframesOnly ? "ffmpeg -skip_frame nokey fps+scale+tile" : "ffmpeg fps+scale+tile",
                                   recipe: FFmpegPeer.commandLine(arguments()), items: count,
                                   prepare: { _ = try self.freshFolder("thumbnails-ffmpeg-tiled") },
                                   run: { _ = try $0.run(arguments()) })
        return PeerThumbnails(measurement: measurement, layout: .sheets(folder: folder))
    }

    /// One `ffmpeg -ss T` process per thumbnail, `parallel` at a time.
    private func seekPeer(clip: BenchClip, times: [Double], parallel: Int) -> PeerThumbnails {
        let folder = settings.work + "/thumbnails-ffmpeg-seek"
        let arguments = { @Sendable (index: Int) in
            FFmpegRecipes.seekThumbnail(clip: clip.path, time: times[index],
                                        output: folder + String(format: "/thumb-%04d.jpg", index + 1))
        }
        let tool = parallel == 1 ? "ffmpeg -ss T per thumbnail, sequential" : "ffmpeg -ss T per thumbnail, \(parallel) at a time"
        let measurement = timePeer(tool, recipe: FFmpegPeer.commandLine(arguments(min(1, times.count - 1)))
                                   + "   (one per thumbnail, T = 0, 10, 20 ...)", items: times.count,
                                   prepare: { _ = try self.freshFolder("thumbnails-ffmpeg-seek") },
                                   run: { ffmpeg in
            try Concurrent.forEach(count: times.count, width: parallel) { index in _ = try ffmpeg.run(arguments(index)) }
        })
        return PeerThumbnails(measurement: measurement, layout: .singleFiles(folder: folder))
    }
}

/// A peer's timing and where its thumbnails are, for the checks after timing.
struct PeerThumbnails {
    enum Layout {
        /// `out001.jpg ...`: 10x10 sheets.
        case sheets(folder: String)
        /// `thumb-0001.jpg ...`: one file per thumbnail.
        case singleFiles(folder: String)
    }

    var measurement: Measurement
    var layout: Layout
}
