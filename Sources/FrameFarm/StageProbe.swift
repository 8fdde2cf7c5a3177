import Foundation
import FrameFarmGPU
import FrameFarmMedia

/// Measures FrameFarm's stages apart, for the bench's `pipeline` scenario: decoding alone, and the Vulkan stage
/// alone on frames decoded beforehand (upload, compute, readback, encode). The bench's, not the product's API: it
/// needs the engine's insides (renderer timings, preview plans), which the bench may not import, so it lives here
/// behind `@_spi(Bench)`.
@_spi(Bench) public enum StageProbe {
    public struct DecodeTiming: Sendable {
        public var frames: Int
        public var seconds: Double
    }

    public struct RenderTiming: Sendable {
        /// Medians over the repeats, in milliseconds.
        public var uploadMilliseconds: Double
        /// `RenderTimings.computeMilliseconds`: the host's prefilter where it ran there, then device execution.
        public var computeMilliseconds: Double
        /// Whether the host ran the prefilter (on a CPU Vulkan device, see `HostPrefilter`).
        public var prefilterOnHost: Bool
        /// Time of the prefilter (host time, or device time from timestamp queries) and of the resampling passes
        /// (device time; 0 where the device has no timestamps).
        public var prefilterMilliseconds: Double
        public var resampleMilliseconds: Double
        /// Canvases are read straight from mapped memory, so readback is the encoders' reading; reported as 0.
        public var readbackMilliseconds: Double
        public var encodeMilliseconds: Double
        public var megapixelsIn: Double
        public var outputs: Int
        public var outputMegapixels: Double
    }

    /// What the Vulkan stage renders from one decoded frame.
    public enum RenderWork: Sendable {
        /// `count` tiles `width` wide into one sprite sheet (`columns` per row).
        case thumbnails(width: Int, count: Int, columns: Int)
        /// Every built-in device screen, fit and fill.
        case deviceScreens
        /// What `preview` draws for them: renders that would come out identical drawn once, encoded as PNG.
        case previewRenders

        /// How the outputs are encoded: as the command that makes them writes them by default.
        var format: ImageFormat {
            if case .previewRenders = self { return .png }
            return .jpeg
        }
    }

    /// Decodes the frames shown at `times` (stream-relative seconds), as `thumbnails` would, without the GPU.
    public static func decodeAlone(path: String, times: [Double], seek: SeekMode) throws -> DecodeTiming {
        let start = Date()
        let reader = try FrameReader(path: path, threads: 1, keyframesOnly: seek == .keyframe,
                                     skipsDeblocking: true)
        let origin = reader.info.startSeconds
        var last: Double?
        var frames = 0
        for (index, time) in times.enumerated() {
            let frame: DecodedFrame?
            if seek == .keyframe {
                frame = try reader.keyframe(atOrBefore: origin + time)
            } else {
                let next = index + 1 < times.count ? NextRead.time(origin + times[index + 1]) : .nothing
                frame = try reader.frame(at: origin + time, lastTime: last, then: next)
            }
            if let frame {
                frames += 1
                last = frame.timeSeconds
            }
        }
        return DecodeTiming(frames: frames, seconds: Date().timeIntervalSince(start))
    }

    /// Decodes the frame at `time` once, then renders `work` from it `repeats` times, or for as many more rounds
    /// as `minimumSeconds` takes, and encodes the outputs (`RenderWork.format`), timing each stage; returns
    /// medians. A job of a millisecond needs hundreds of rounds to reach the steady state a per-job figure means
    /// (its first rounds find the driver's threads asleep and the caches cold): five rounds of a 160-px thumbnail
    /// gave 1.0-1.5 ms, three hundred 0.8 ms.
    public static func renderAlone(path: String, at time: Double, work: RenderWork, gpu: GPUService,
                                   repeats: Int = 5, minimumSeconds: Double = 0) throws -> RenderTiming {
        let facts = try MediaProber.probe(path: path)
        let reader = try FrameReader(path: path, threads: 0)
        guard let frame = try reader.frame(at: facts.info.startSeconds + time, lastTime: nil, then: .nothing) else {
            throw InputError.noDecodableFrames
        }
        let batch = try makeBatch(frame: frame, facts: facts, work: work)
        var uploads: [Double] = [], computes: [Double] = [], encodes: [Double] = []
        var prefilters: [Double] = [], resamples: [Double] = []
        var prefilterOnHost = false
        let encoders = EncoderPool()
        try gpu.withRenderer { renderer in
            let start = Date()
            var rounds = 0
            while rounds <= repeats || Date().timeIntervalSince(start) < minimumSeconds {
                rounds += 1
                let rendered = try renderer.render(batch)
                let encodeStart = Date()
                _ = try ParallelBatch.encode((0..<rendered.count).map {
                    EncodeRequest(canvas: $0, of: rendered, format: work.format, quality: 85)
                }, with: encoders)
                let timings = renderer.lastTimings
                uploads.append(timings.uploadMilliseconds)
                computes.append(timings.computeMilliseconds)
                prefilters.append(timings.prefilterMilliseconds)
                resamples.append(timings.resampleMilliseconds)
                prefilterOnHost = timings.prefilterOnHost
                encodes.append(Date().timeIntervalSince(encodeStart) * 1000)
            }
        }
        // The first round compiles pipelines and grows buffers: a warm-up, left out.
        func median(_ values: [Double]) -> Double {
            let sorted = values.dropFirst().sorted()
            return sorted[sorted.count / 2]
        }
        let outputPixels = batch.canvases.reduce(0) { $0 + $1.size.area }
        return RenderTiming(uploadMilliseconds: median(uploads), computeMilliseconds: median(computes),
                            prefilterOnHost: prefilterOnHost, prefilterMilliseconds: median(prefilters),
                            resampleMilliseconds: median(resamples),
                            readbackMilliseconds: 0, encodeMilliseconds: median(encodes),
                            megapixelsIn: Double(frame.size.area) / 1e6, outputs: batch.jobs.count,
                            outputMegapixels: Double(outputPixels) / 1e6)
    }

    /// The screens and modes `RenderWork.deviceScreens` draws for a video of `displaySize` with no bars, for
    /// peers that must draw the same renders.
    public static func deviceScreens(displaySize: PixelSize) -> [(size: PixelSize, fill: Bool)] {
        deviceScreenPlans(geometry: DisplayGeometry(codedSize: displaySize), codedContent: PixelRect(size: displaySize))
            .map { ($0.canvas.size, $0.record.mode == .fill) }
    }

    /// `preview`'s default renders (every built-in device, fit and fill), without overlays.
    private static func deviceScreenPlans(geometry: DisplayGeometry, codedContent: PixelRect) -> [PlannedRender] {
        var options = PreviewOptions()
        options.overlays = []
        return PreviewPlan.renders(options: options, policy: .hig, geometry: geometry, codedContent: codedContent)
    }

    private static func makeBatch(frame: DecodedFrame, facts: MediaFacts, work: RenderWork) throws -> RenderBatch {
        let gpuFrame = GPUFrame(frame, geometry: facts.info.geometry)
        let geometry = facts.info.geometry
        switch work {
        case .deviceScreens, .previewRenders:
            var plans = deviceScreenPlans(geometry: geometry, codedContent: facts.codedContentRect)
            if case .previewRenders = work {
                plans = PreviewJob.identicalRenders(plans).map { plans[$0[0]] }
            }
            let jobs = plans.enumerated().map { index, plan in
                var job = gpuFrame.job(plan.job)
                job.canvasIndex = index
                return job
            }
            return RenderBatch(sources: [gpuFrame.source], canvases: plans.map(\.canvas), jobs: jobs)
        case .thumbnails(let width, let count, let columns):
            let content = geometry.displayPixelRect(ofCoded: facts.codedContentRect).size
            // The same tile layout `thumbnails` uses: `count` one-second thumbnails in one sheet.
            let track = try ThumbnailTrack(duration: Double(count), spacing: .interval(1),
                                           tileSize: ThumbnailOptions.tileSize(for: content, width: width), columns: columns,
                                           rows: (count + columns - 1) / columns)
            let jobs = track.thumbnails.map { thumbnail in
                gpuFrame.job(RenderJob(sourceIndex: 0, sourceCrop: SourceRect(facts.codedContentRect),
                                       destination: thumbnail.tileRect, canvasIndex: 0, transform: geometry.transform))
            }
            return RenderBatch(sources: [gpuFrame.source], canvases: [CanvasSpec(size: track.sheets[0].size)], jobs: jobs)
        }
    }
}
