import Dispatch
import Foundation
import FrameFarmGPU
import FrameFarmMedia

/// `framefarm preview`: every device x orientation x mode of each video, from one decoded frame, in GPU
/// submissions of bounded canvas memory; PNG/JPEG encoding of one submission fans out over the cores while the
/// GPU draws the next; videos run concurrently, a bounded number at a time so memory stays flat however many are
/// given.
public struct PreviewJob: BatchJob {
    public static let command = "preview"
    let options: PreviewOptions

    public init(options: PreviewOptions) { self.options = options }

    /// The largest screen's long side: what a video filling it shows, pixel for pixel.
    public var renditionNeed: (minimumWidth: Int?, purpose: String) {
        let longest = options.devices.map { max($0.nativePixels.width, $0.nativePixels.height) }.max() ?? 0
        return (longest, "previews on screens up to \(longest) px")
    }

    /// Readback memory one preview submission may fill (a larger canvas goes alone): the different renders of a
    /// 16:9 video on the built-in devices (about 340 MB at native pixels) go in about a dozen submissions,
    /// whose canvases take turns in the renderer's two slots. Smaller slots touch fewer fresh pages: against
    /// 128 MB, a preview's page faults fell from 138k to 100k and its peak RSS from 610 to 430 MB.
    static let canvasBytesPerSubmission = 32 << 20

    public func settings(policy: ModePolicy) -> PreviewSettings { options.settings(policy: policy) }

    public func recordedSettings(in manifest: VideoManifest) -> [String: String]? { manifest.preview?.settings }

    public func process(_ input: InputContext) throws -> InputResult {
        let (facts, decoded) = try options.frame.decodeFindingPadding(try input.stream(), path: input.path,
                                                                            maxPixels: input.maxPixels)
        let frame = decoded.frame
        // A frame of another shape than the stream's (an advertisement after an HLS discontinuity) is placed on
        // the screens by its own shape, as players place what they show; the stream's padding is not its own.
        let geometry = GPUFrame.otherShape(of: frame, in: facts.info.geometry) ?? facts.info.geometry
        let codedContent = geometry == facts.info.geometry ? facts.codedContent(options.removePadding)
            : PixelRect(size: geometry.codedSize)
        var plans = PreviewPlan.renders(options: options, policy: input.policy, geometry: geometry,
                                        codedContent: codedContent)
        // Renders that are one image are drawn once and share one review copy, which the review page loads once.
        let copies = Self.identicalRenders(plans)
        for group in copies {
            for index in group.dropFirst() { plans[index].record.reviewFile = plans[group[0]].record.reviewFile }
        }
        // Drawn into a staging folder that replaces preview/ once every render is in (as a thumbnail track is):
        // a preview failing midway leaves the earlier one as it was, and one for fewer devices leaves no others.
        let oldSetLeftAt = try AtomicFile.replacingFolder(at: try input.makeOutputFolder() + "/preview") { staging in
            try draw(plans, copies: copies, from: GPUFrame(frame, geometry: geometry), into: staging, input: input)
        }.oldSetLeftAt
        let paddingDetected = facts.codedContentRect.size != facts.info.geometry.codedSize
        let warnings = options.frame.warnings(facts: facts, decoded: decoded)
        let section = PreviewSection(
            settings: SettingsRecord.record(settings(policy: input.policy)), gpu: input.gpu.record, frameTimeSeconds: frame.timeSeconds,
            frameChoice: options.frame.description, paddingDetected: paddingDetected,
            paddingRemoved: codedContent.size != geometry.codedSize,
            contentRect: ProbeReport.Rect(geometry.displayPixelRect(ofCoded: codedContent)),
            renders: plans.map(\.record), warnings: warnings.map(\.description))
        return InputResult(facts: facts, files: section.files, warnings: warnings) { $0.preview = section }
            .warning(oldSetLeftAt.map { InputWarning.oldOutputsLeft(folder: "preview", leftAt: $0) })
    }

    /// Draws and encodes every planned render into `folder` (under the names of their files in preview/).
    /// Each group of `identical` renders (`identicalRenders`: fit and fill on a screen of the picture's own shape)
    /// is drawn and encoded once and written under each name.
    private func draw(_ plans: [PlannedRender], copies identical: [[Int]], from gpuFrame: GPUFrame, into folder: String,
                      input: InputContext) throws {
        // Largest first, so each slot's buffers grow on its first submission only.
        let copies = identical.sorted { plans[$0[0]].canvas.size.area > plans[$1[0]].canvas.size.area }
        let drawn = copies.map(\.[0])
        if let largest = drawn.map({ plans[$0].canvas.size }).max(by: { $0.area < $1.area }) {
            input.encoders.reserve(largest, format: options.format)
        }
        try input.gpu.withRenderer { renderer in
            // One submission per video, unless its canvases together pass `canvasBytesPerSubmission`; then one
            // per group that fits, so the readback memory a video holds stays bounded. The groups take turns in
            // the renderer's slots; each group's encoding starts as soon as it is drawn and runs on while the GPU
            // draws the next ones, alongside the encodings still running, until its slot is drawn into again. A
            // lone large canvas then no longer holds the other cores idle: they encode the next group. Each group
            // is waited for before the next is submitted: lavapipe signals a submission's fence only once the
            // queue behind it has drained.
            var encodings: [BackgroundWork<Void>] = []  // oldest first, one per slot at most
            // However the loop ends, no encoding may outlive the renderer whose memory it reads.
            defer { for encoding in encodings { try? encoding.finish() } }
            try FileManager.default.createDirectory(atPath: folder + "/review", withIntermediateDirectories: true)
            for group in Self.groups(drawn.map { plans[$0] }, limit: Self.canvasBytesPerSubmission) {
                var jobs = group.map { gpuFrame.job(plans[drawn[$0]].job) }
                for index in jobs.indices { jobs[index].canvasIndex = index }
                let batch = RenderBatch(sources: [gpuFrame.source],
                                        canvases: group.map { plans[drawn[$0]].canvas }, jobs: jobs,
                                        resampling: options.resampling)
                // This group is drawn into the slot of the group `slotCount` back: that one's encoding must be over.
                if encodings.count == renderer.slotCount { try encodings.removeFirst().finish() }
                let rendered = try renderer.wait(try renderer.submit(batch))
                let options = options, reviewSizes = group.map { plans[drawn[$0]].reviewCopy.size }
                encodings.append(BackgroundWork {
                    // Each render, then its review copy.
                    let encoded = try ParallelBatch.encode(group.indices.map {
                        EncodeRequest(canvas: $0, of: rendered, format: options.format, quality: options.quality)
                    } + group.indices.map {
                        EncodeRequest(shrinking: $0, of: rendered, to: reviewSizes[$0], quality: Self.reviewQuality)
                    }, with: input.encoders)
                    for (position, drawnPlan) in group.enumerated() {
                        for plan in copies[drawnPlan] {
                            try AtomicFile.write(encoded[position], to: folder + "/" + Self.inPreview(plans[plan].record.file))
                            input.progress.add(items: 1)
                        }
                        // One review copy for the group (`process` gave its renders the first one's).
                        if let review = plans[copies[drawnPlan][0]].record.reviewFile {
                            try AtomicFile.write(encoded[group.count + position], to: folder + "/" + Self.inPreview(review))
                        }
                    }
                })
            }
            while !encodings.isEmpty { try encodings.removeFirst().finish() }
        }
    }

    /// JPEG quality of the review copies: a page of many videos, looked at, not measured.
    static let reviewQuality = 80

    /// `file` (relative to the video's folder, under `preview/`) relative to the preview folder.
    private static func inPreview(_ file: String) -> String { String(file.dropFirst("preview/".count)) }

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
