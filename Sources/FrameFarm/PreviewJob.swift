import Dispatch
import Foundation
import FrameFarmGPU
import FrameFarmMedia

/// `framefarm preview`: every device x orientation x mode of each video, from one decoded frame, in GPU
/// submissions of bounded canvas memory; PNG/JPEG encoding of one submission fans out over the cores while the
/// GPU draws the next; videos run concurrently, a bounded number at a time so memory stays flat however many are
/// given.
public enum PreviewJob {
    /// Readback memory one preview submission may fill (a larger canvas goes alone): the different renders of a
    /// 16:9 video on the built-in devices (about 340 MB at native pixels) go in about a dozen submissions,
    /// whose canvases take turns in the renderer's two slots. Smaller slots touch fewer fresh pages: against
    /// 128 MB, a preview's page faults fell from 138k to 100k and its peak RSS from 610 to 430 MB.
    static let canvasBytesPerSubmission = 32 << 20

    /// - Parameters:
    ///   - force: redo inputs whose outputs are already complete and current (otherwise skipped).
    ///   - inFlight: how many inputs are processed at once (default 2).
    public static func run(inputs: [String], outputRoot: String, options: PreviewOptions, gpu: GPUService,
                           force: Bool = false, inFlight: Int? = nil,
                           progress: ((BatchProgress) -> Void)? = nil) -> BatchSummary {
        let layout = OutputLayout(root: outputRoot)
        let driver = BatchDriver(command: "preview", inputs: inputs, layout: layout, gpu: gpu, force: force,
                                 inFlight: inFlight ?? 2, settings: options.settings) { manifest in
            manifest.preview.map { ($0.settings, $0.renders.map(\.file)) }
        }
        // One pool for the batch: the videos in flight share the cores' encoders and their scratch memory
        // (tens of MB each for the largest PNGs), which each video's own pool faulted in afresh.
        let encoders = EncoderPool()
        return driver.run(progress: progress) { input, folder, counter in
            try preview(input, folder: folder, layout: layout, options: options, gpu: gpu, encoders: encoders,
                        counter: counter)
        }
    }

    private static func preview(_ path: String, folder: String, layout: OutputLayout, options: PreviewOptions,
                                gpu: GPUService, encoders: EncoderPool,
                                counter: ProgressCounter) throws -> (files: [String], warnings: [String]) {
        let (facts, decoded) = try options.frame.probeAndDecode(path: path, maxPixels: options.maxPixels)
        let codedContent = options.removePadding ? facts.codedContentRect : PixelRect(size: facts.info.geometry.codedSize)
        let probe = ProbeReport(path: path, facts: facts, policy: options.policy)
        let frame = decoded.frame
        let plans = PreviewPlan.renders(options: options, geometry: facts.info.geometry, codedContent: codedContent)
        let videoFolder = layout.videoFolder(folder)
        try gpu.ready()
        try layout.makeFolder(videoFolder + "/preview")
        // Renders that would come out identical (fit and fill on a screen of the picture's own shape) are drawn
        // and encoded once and written under each name.
        // Largest first, so each slot's buffers grow on its first submission only.
        let copies = identicalRenders(plans).sorted { plans[$0[0]].canvas.size.area > plans[$1[0]].canvas.size.area }
        let drawn = copies.map(\.[0])
        let gpuFrame = GPUFrame(frame)
        if let largest = drawn.map({ plans[$0].canvas.size }).max(by: { $0.area < $1.area }) {
            encoders.reserve(largest, format: options.format)
        }
        try gpu.withRenderer { renderer in
            // One submission per video, unless its canvases together pass `canvasBytesPerSubmission`; then one
            // per group that fits, so the readback memory a video holds stays bounded. The groups take turns in
            // the renderer's slots; each group's encoding starts as soon as it is drawn and runs on while the GPU
            // draws the next ones, alongside the encodings still running, until its slot is drawn into again. A
            // lone large canvas then no longer holds the other cores idle: they encode the next group. Each group
            // is waited for before the next is submitted: lavapipe signals a submission's fence only once the
            // queue behind it has drained.
            var encodings: [BackgroundWork] = []  // oldest first, one per slot at most
            // However the loop ends, no encoding may outlive the renderer whose memory it reads.
            defer { for encoding in encodings { try? encoding.finish() } }
            for group in groups(drawn.map { plans[$0] }, limit: canvasBytesPerSubmission) {
                var jobs = group.map { gpuFrame.job(plans[drawn[$0]].job) }
                for index in jobs.indices { jobs[index].canvasIndex = index }
                let batch = RenderBatch(sources: [gpuFrame.source],
                                        canvases: group.map { plans[drawn[$0]].canvas }, jobs: jobs,
                                        resampling: options.resampling)
                // This group is drawn into the slot of the group `slotCount` back: that one's encoding must be over.
                if encodings.count == renderer.slotCount { try encodings.removeFirst().finish() }
                let rendered = try renderer.wait(try renderer.submit(batch))
                encodings.append(BackgroundWork {
                    try ParallelBatch.encode(count: group.count, with: encoders) { index, encoder in
                        let size = rendered.size(of: index)
                        let data = try rendered.withUnsafeBytes(canvas: index) {
                            try encoder.encode($0, width: size.width, height: size.height,
                                               bytesPerRow: size.width * 4, format: options.format,
                                               quality: options.quality)
                        }
                        for plan in copies[group[index]] {
                            try AtomicFile.write(data, to: videoFolder + "/" + plans[plan].record.file)
                            counter.add(items: 1)
                        }
                    }
                })
            }
            while !encodings.isEmpty { try encodings.removeFirst().finish() }
        }
        let section = PreviewSection(
            settings: options.settings, gpu: gpu.record, frameTimeSeconds: frame.timeSeconds,
            frameChoice: options.frame.description, paddingDetected: probe.paddingDetected,
            paddingRemoved: options.removePadding && probe.paddingDetected, contentRect: ProbeReport.Rect(facts.info.geometry.displayPixelRect(ofCoded: codedContent)),
            renders: plans.map(\.record))
        try ManifestStore.update(at: layout.manifestPath(folder), input: ManifestStore.inputRecord(for: path),
                                 probe: probe) { $0.preview = section }
        return (plans.map(\.record.file) + ["manifest.json"], options.frame.warnings(facts: facts, decoded: decoded))
    }

    /// Plan indices grouped by identical output: same canvas (size, overlays) and same job (crop, destination,
    /// transform). Groups keep the plans' order; each group's first index is the one drawn.
    static func identicalRenders(_ plans: [PlannedRender]) -> [[Int]] {
        struct Output: Hashable {
            var canvas: CanvasSpec
            var job: RenderJob
        }
        var groups: [[Int]] = []
        var groupOf: [Output: Int] = [:]
        for (index, plan) in plans.enumerated() {
            var job = plan.job
            job.canvasIndex = 0
            let output = Output(canvas: plan.canvas, job: job)
            if let group = groupOf[output] {
                groups[group].append(index)
            } else {
                groupOf[output] = groups.count
                groups.append([index])
            }
        }
        return groups
    }

    /// Consecutive runs of plan indices whose canvases together stay within `limit` bytes.
    static func groups(_ plans: [PlannedRender], limit: Int) -> [[Int]] {
        var groups: [[Int]] = [[]]
        var bytes = 0
        for (index, plan) in plans.enumerated() {
            let size = plan.canvas.size.area * 4
            if bytes + size > limit, !groups[groups.count - 1].isEmpty {
                groups.append([])
                bytes = 0
            }
            groups[groups.count - 1].append(index)
            bytes += size
        }
        return groups.filter { !$0.isEmpty }
    }
}
