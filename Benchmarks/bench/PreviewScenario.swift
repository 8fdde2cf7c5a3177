import Foundation
import FrameFarm

extension BenchRunner {
    /// Every built-in device x {fit, fill} from one frame (the middle of the clip), FrameFarm against one ffmpeg
    /// process that splits the frame into the same renders.
    func measurePreview(clip: BenchClip) -> ScenarioResult {
        let frame = Int((clip.durationSeconds / 2 * clip.frameRate).rounded())
        let time = Double(frame) / clip.frameRate
        let output = settings.work + "/preview-framefarm"
        var ours = runChild(scenario: "preview", clips: [clip.path], output: output,
                            arguments: ["--at", Format.number(time, digits: 4)])
        let manifest = ManifestStore.read(output + "/" + OutputLayout.stem(clip.path) + "/manifest.json")
        let renders = manifest?.preview?.renders ?? []
        var result = ScenarioResult(scenario: "preview", clip: clip.label, videoSeconds: clip.durationSeconds,
                                    unit: "renders", frameFarm: ours, peers: [])
        guard !renders.isEmpty else {
            result.notes.append("no FrameFarm renders to mirror: the ffmpeg peer needs the same render list")
            return result
        }
        let specs = renders.enumerated().map { index, render in
            PreviewRenderSpec(fileName: String(format: "render-%03d.png", index), width: render.screenWidth,
                              height: render.screenHeight, fill: render.mode == .fill)
        }
        // The same renders deflated by libdeflate: PNGDeflater stays only while it is clearly faster.
        let libdeflateOutput = settings.work + "/preview-framefarm-libdeflate"
        var libdeflate = runChild(scenario: "preview", clips: [clip.path], output: libdeflateOutput,
                                  arguments: ["--at", Format.number(time, digits: 4), "--png-compressor", "libdeflate"])
        libdeflate.tool = "FrameFarm, PNG by libdeflate level 1 (reference)"
        let peerFolder = settings.work + "/preview-ffmpeg"
        let arguments = FFmpegRecipes.previewRenders(clip: clip.path, time: time, renders: specs, output: peerFolder)
        var peer = timePeer("ffmpeg split + scale/crop (fill) and scale/pad (fit)",
                            recipe: FFmpegPeer.commandLine(arguments), items: specs.count,
                            prepare: { _ = try self.freshFolder("preview-ffmpeg") },
                            run: { _ = try $0.run(arguments) })
        if let decoder, let manifest, let previewFrame = manifest.preview {
            let folder = output + "/" + OutputLayout.stem(clip.path)
            let checker = PreviewQuality(clip: clip, decoder: decoder, renders: renders,
                                         frame: Int((previewFrame.frameTimeSeconds * clip.frameRate).rounded()),
                                         samples: psnrSamples)
            checker.score(&ours, files: renders.map { folder + "/" + $0.file })
            let libdeflateFolder = libdeflateOutput + "/" + OutputLayout.stem(clip.path)
            checker.score(&libdeflate, files: renders.map { libdeflateFolder + "/" + $0.file })
            checker.score(&peer, files: specs.map { peerFolder + "/" + $0.fileName })
        }
        result.frameFarm = ours
        result.references = [libdeflate]
        result.peers = [peer]
        return result
    }
}

/// PSNR of preview renders against the float reference drawn with FrameFarm's geometry (the manifest's source
/// crop and destination rect): the same frame and geometry for every tool.
struct PreviewQuality {
    let clip: BenchClip
    let decoder: ImageDecoding
    let renders: [PreviewRender]
    let frame: Int
    let samples: Int

    /// Evenly spaced render indices, fill and fit alike.
    var sampled: [Int] {
        let count = min(samples, renders.count)
        return (0..<count).map { $0 * renders.count / count }
    }

    func score(_ measurement: inout Measurement, files: [String]) {
        guard measurement.timing != nil else { return }
        do {
            let source = try decoder.decodeFrame(clip: clip, frame: frame)
            var values: [Double] = []
            for index in sampled {
                let render = renders[index]
                let canvas = PixelSize(width: render.screenWidth, height: render.screenHeight)
                let reference = ReferenceScaler.render(source, crop: render.sourceCrop,
                                                       destination: render.destination.pixelRect, canvas: canvas)
                let image = try decoder.decodeImage(files[index])
                guard image.size == canvas else { throw BenchError("\(files[index]) is \(image.size), expected \(canvas)") }
                values.append(PSNR.decibels(image, in: PixelRect(size: canvas), reference: reference))
            }
            measurement.outputBytes = Format.totalBytes(files)
            measurement.psnr = values.reduce(0, +) / Double(values.count)
            measurement.psnrSamples = values.count
            measurement.verification = "\(files.count) renders written; sampled renders have the screen's size"
        } catch {
            measurement.verification = "not checked: \(error)"
        }
    }
}
