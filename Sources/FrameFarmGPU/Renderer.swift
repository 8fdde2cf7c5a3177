import CVulkan
import Foundation

/// Identifies one submitted batch; redeem it with `Renderer.wait(_:)`.
public struct RenderTicket: Hashable, Sendable {
    let slot: Int
    let generation: UInt64
}

/// Host-side milliseconds of the last submission, for benchmarks (`FRAMEFARM_GPU_TIMING=1` prints them).
public struct RenderTimings: Sendable {
    /// Validating the batch and building its tables (weights are cached across batches).
    public var planMilliseconds = 0.0
    /// Writing sources and tables into the mapped upload buffer.
    public var uploadMilliseconds = 0.0
    /// Recording and submitting the command buffer.
    public var recordMilliseconds = 0.0
    /// From submission until the fence signalled, as seen by `wait` (exact for `render`).
    public var executeMilliseconds = 0.0
    /// Whether the host ran the prefilter (`Renderer.prefiltersOnHost`, in encoded values).
    public var prefilterOnHost = false
    /// The prefilter's host time when `prefilterOnHost`, else its device time.
    public var prefilterMilliseconds = 0.0
    /// Device time of the other pass groups, from timestamp queries (0 where the device has none).
    public var resampleMilliseconds = 0.0
    public var overlayMilliseconds = 0.0

    /// The passes' work after the upload: the host's prefilter where it ran there, then the device's execution.
    public var computeMilliseconds: Double { (prefilterOnHost ? prefilterMilliseconds : 0) + executeMilliseconds }
}

/// Renders batches of jobs (source crop -> canvas rect) on one `GPUContext`, one submission per batch.
///
/// Ownership: owns its pipelines, descriptor pool and sets, command buffers and buffers, and keeps them (growing
/// only when a batch needs more) so steady state allocates nothing on the device. Thread-safety: none; create
/// one renderer per worker (they can share a context). Up to `slotCount` batches are in flight at once.
public final class Renderer {
    public let context: GPUContext
    public let slotCount: Int
    /// Whether batches in encoded values are prefiltered by the host (`HostPrefilter`) rather than the device.
    public let prefiltersOnHost: Bool
    /// Whether the passes draw canvases into device-local memory, copied to the host-visible readback buffer at
    /// the end of the batch, rather than straight into the readback buffer.
    public let drawsCanvasesOnDevice: Bool
    /// Timings of the last batch waited for.
    public private(set) var lastTimings = RenderTimings()

    private let pipelineLayout: PipelineLayout
    private let descriptorPool: DescriptorPool
    private let slots: [RenderSlot]
    private var nextSlot = 0
    /// Floats of intermediate one chunk of jobs may use (64 MiB, or less where the device binds less at once); a
    /// job that alone needs more is drawn in bands of rows. Tests lower it to make small jobs band.
    lazy var intermediateBudget = min(Int(context.limits.maxStorageBufferRange), 64 << 20) / 4
    /// The most pixels one binding of a canvas may hold (RGBA8 within the device's storage-buffer range): what a
    /// persistent canvas (a sprite sheet), bound whole, never in windows, may hold.
    public var persistentCanvasPixels: Int { Int(context.limits.maxStorageBufferRange) / 4 }
    /// Pixels one binding of a canvas may hold: a larger canvas is drawn in windows of rows (`BatchPlan.windows`).
    /// Tests lower it to make small canvases window.
    lazy var canvasWindowPixels = persistentCanvasPixels
    private var pipelines: [PassVariant: PassPipelines] = [:]
    private let filterTables = FilterTableCache()
    private var submitTimes: [Int: UInt64] = [:]
    private let printsTimings: Bool

    /// Which specialization of the passes a batch needs: filtering light or encoded values, and whether any
    /// source needs colour conversion (HDR, wide gamut). SDR pipelines carry none of that code: CPU drivers run
    /// both sides of a branch, so even a skipped conversion would cost its instructions.
    private struct PassVariant: Hashable {
        var linearLight: Bool
        var convertsColor: Bool
    }

    /// The passes of one variant (pipelines differ by specialization constants).
    private struct PassPipelines {
        /// nil where the host prefilters this variant: the pipeline is never compiled (on lavapipe, a sixth of
        /// the renderer's start-up).
        var prefilter: PrefilterPass?
        var horizontal: ResampleHorizontalPass
        var vertical: ResampleVerticalPass
        var overlay: OverlayPass

        var pipelineObjects: [AnyObject] {
            [prefilter?.pipeline, horizontal.pipeline, vertical.pipeline, overlay.pipeline].compactMap { $0 }
        }
    }

    /// - Parameters:
    ///   - slotCount: batches that may be in flight (2: upload of N+1 and readback of N-1 overlap N).
    ///   - prefilter: `.automatic` prefilters on the host when the device is the CPU; tests ask for both.
    ///   - canvasesOnDevice: draw into device memory and copy once, rather than straight into the readback buffer.
    ///     On the H100 the passes took 142 ms to write 113 MP of device screens into host memory across PCIe;
    ///     drawing into device memory and copying once is the usual remedy, not yet measured on a GPU, so it is not
    ///     the default.
    ///   - printsTimings: each submission's upload and compute times on stderr.
    public init(context: GPUContext, slotCount: Int = 2, prefilter: PrefilterPlacement = .automatic,
                canvasesOnDevice: Bool = false, printsTimings: Bool = false) throws {
        precondition(slotCount >= 1)
        self.context = context
        self.slotCount = slotCount
        prefiltersOnHost = prefilter == .host || (prefilter == .automatic && context.deviceType == .cpu)
        drawsCanvasesOnDevice = canvasesOnDevice
        self.printsTimings = printsTimings
        let setLayout = try DescriptorSetLayout(context: context, types: ShaderBinding.allCases.map(\.descriptorType))
        pipelineLayout = try PipelineLayout(setLayout: setLayout, pushConstantSize: MemoryLayout<PassConstants>.size)
        let pool = try DescriptorPool(layout: setLayout, setCount: slotCount * Self.maxCanvasTargets)
        descriptorPool = pool
        slots = try (0..<slotCount).map { _ in
            try RenderSlot(context: context, descriptorSets: (0..<Self.maxCanvasTargets).map { _ in try pool.allocateSet() })
        }
        _ = try passes(PassVariant(linearLight: false, convertsColor: false))
    }

    deinit {
        for slot in slots { try? slot.submission.wait() }
    }

    /// Device memory held by this renderer's buffers, in bytes.
    public var deviceMemoryBytes: Int { slots.reduce(0) { $0 + $1.deviceMemoryBytes } }

    /// About the most source bytes one batch may upload: sources are read through one texel view of the upload
    /// buffer (512 MiB on lavapipe), which also holds the batch's filter tables.
    public var maxSourceBytesPerBatch: Int { Int(context.limits.maxTexelBufferElements) * 4 - (16 << 20) }

    /// Renders `batch` and waits for it. The result is valid until the next `render` or `submit`.
    public func render(_ batch: RenderBatch) throws -> RenderedCanvases {
        let ticket = try submit(batch)
        reuseNext(ticket)
        return try wait(ticket)
    }

    /// Lets the next batch take `ticket`'s slot again, whose buffers are grown and whose pages are touched: on a
    /// CPU driver, faulting in fresh canvas memory took about a tenth of a preview's CPU time. Only for results
    /// that end at the next `render` or `submit`; pipelined submissions go round the slots.
    private func reuseNext(_ ticket: RenderTicket) {
        nextSlot = ticket.slot
    }

    /// Renders `batch` into `canvas` without clearing it, and waits: every job draws into the canvas (their
    /// `canvasIndex` must be 0), and `batch.canvases` may be empty or hold one spec of the canvas's size whose
    /// overlays are drawn.
    public func render(_ batch: RenderBatch, into canvas: PersistentCanvas) throws {
        let ticket = try submit(batch, into: canvas)
        reuseNext(ticket)
        try finish(ticket)
    }

    /// Submits `batch` to draw into `canvas`, as `render(_:into:)` does, without waiting: `finish` its ticket
    /// before reading the canvas. Batches into one canvas may be in flight together when their jobs draw
    /// disjoint rectangles (the tiles of a sprite sheet); the queue runs them in order.
    public func submit(_ batch: RenderBatch, into canvas: PersistentCanvas) throws -> RenderTicket {
        try submit(batch, into: [canvas])
    }

    /// The most persistent canvases one submission draws into.
    public static let maxCanvasTargets = 8

    /// Submits `batch` to draw into several persistent canvases at once, without clearing them or waiting: a job
    /// with `canvasIndex` i draws into `canvases[i]`, and `batch.canvases` is empty or describes each of them in
    /// order. The sources are uploaded (and prefiltered) once for all: the tiles of one frame at several widths,
    /// each width's sheet its own canvas, take one submission instead of one per width.
    public func submit(_ batch: RenderBatch, into canvases: [PersistentCanvas]) throws -> RenderTicket {
        guard !canvases.isEmpty, canvases.count <= Self.maxCanvasTargets else {
            throw GPUError.invalidBatch("a batch draws into 1 to \(Self.maxCanvasTargets) canvases, not \(canvases.count)")
        }
        var batch = batch
        if batch.canvases.isEmpty {
            batch.canvases = canvases.map { CanvasSpec(size: $0.size, background: $0.background) }
        }
        guard batch.canvases.map(\.size) == canvases.map(\.size) else {
            throw GPUError.invalidBatch("a batch rendered into canvases of \(canvases.map(\.size)) must describe those canvases")
        }
        return try submitInParts(batch, targets: canvases)
    }

    /// Submits `batch` into persistent canvases, in parts where it needs more than the device binds at once
    /// (eight 4K frames drawn at 160, 320 and 640 px need 142 MB of prefilter images; lavapipe binds 128 MiB):
    /// halves (`halves(of:)`), halved again until each fits. The queue runs them in order and a fence covers
    /// everything submitted before it, so the last part's ticket stands for them all. A single job that does not
    /// fit throws.
    private func submitInParts(_ batch: RenderBatch, targets: [PersistentCanvas]) throws -> RenderTicket {
        do {
            return try submit(batch, targets: targets)
        } catch GPUError.beyondDeviceLimits where batch.jobs.count > 1 {
            let (first, second) = Self.halves(of: batch)
            _ = try submitInParts(first, targets: targets)
            return try submitInParts(second, targets: targets)
        }
    }

    /// `batch`'s jobs in two parts, in order, cut where the source changes nearest the middle (so that a frame
    /// drawn at several widths is uploaded and prefiltered once), each with only the sources its jobs read. The
    /// canvases' overlays go with the second part, which is drawn last.
    static func halves(of batch: RenderBatch) -> (RenderBatch, RenderBatch) {
        let jobs = batch.jobs, middle = jobs.count / 2
        func startsSource(_ index: Int) -> Bool {
            index > 0 && index < jobs.count && jobs[index - 1].sourceIndex != jobs[index].sourceIndex
        }
        let nearest = (0...middle).lazy.flatMap { [middle + $0, middle - $0] }.first(where: startsSource)
        let cut = nearest ?? middle
        func part(_ range: Range<Int>, overlays: Bool) -> RenderBatch {
            var renumbered: [Int: Int] = [:]
            var part = batch
            part.sources = []
            part.jobs = jobs[range].map { job in
                var job = job
                if renumbered[job.sourceIndex] == nil {
                    renumbered[job.sourceIndex] = part.sources.count
                    part.sources.append(batch.sources[job.sourceIndex])
                }
                job.sourceIndex = renumbered[job.sourceIndex]!
                return job
            }
            if !overlays { part.canvases = batch.canvases.map { CanvasSpec(size: $0.size, background: $0.background) } }
            return part
        }
        return (part(0..<cut, overlays: false), part(cut..<jobs.count, overlays: true))
    }

    /// Waits until `ticket`'s batch has finished. A ticket whose slot has been reused finished before the reuse.
    public func finish(_ ticket: RenderTicket) throws {
        guard slots[ticket.slot].generation == ticket.generation else { return }
        _ = try wait(ticket)
    }

    /// Uploads and submits `batch` without waiting. Blocks only when every slot is busy, on the oldest one, whose
    /// results become invalid.
    public func submit(_ batch: RenderBatch) throws -> RenderTicket {
        try submit(batch, targets: [])
    }

    /// - Parameter targets: persistent canvases the jobs draw into, one per canvas of the batch; empty to draw
    ///   into the slot's own buffers.
    private func submit(_ batch: RenderBatch, targets: [PersistentCanvas]) throws -> RenderTicket {
        var timings = RenderTimings()
        var clock = DispatchTime.now().uptimeNanoseconds
        func lap() -> Double {
            let now = DispatchTime.now().uptimeNanoseconds
            defer { clock = now }
            return Double(now - clock) / 1e6
        }
        // A persistent canvas is bound whole, from the start of its own buffer (sprite sheets are kept within
        // `persistentCanvasPixels`).
        var plan = try BatchPlan(batch: batch, intermediateBudget: intermediateBudget,
                                 canvasAlignment: Int(context.limits.minStorageBufferOffsetAlignment),
                                 windowPixels: targets.isEmpty ? canvasWindowPixels : .max, filterTables: filterTables)
        if !targets.isEmpty {
            for index in plan.canvases.indices { plan.canvases[index].pixelOffset = 0 }
            for index in plan.windows.indices { plan.windows[index].pixelOffset = 0 }
        }
        let passes = try passes(PassVariant(linearLight: batch.linearLight, convertsColor: plan.convertsColor))
        let hostPrefilters = passes.prefilter == nil
        // Frames the host prefilters in place never go into the upload buffer (a memcpy of each frame, and on a
        // fresh buffer a page fault per 4 KB).
        let readsInPlace = hostPrefilters && batch.sources.allSatisfy { $0.planes != nil }
        let layout = try UploadLayout(plan: plan, context: context, copiesSources: !readsInPlace,
                                      prefiltersOnHost: hostPrefilters)
        timings.planMilliseconds = lap()

        let slotIndex = nextSlot
        let slot = slots[slotIndex]
        let generation = try slot.reuse()
        nextSlot = (nextSlot + 1) % slotCount
        try slot.reserve(upload: layout.totalBytes, planes: plan.planeFloats * 4, planesOnHost: hostPrefilters,
                         intermediate: plan.intermediateFloats * 4,
                         // Every window is bound with the largest one's range, so the last needs that much room.
                         readback: (plan.canvasPixels + plan.largestWindowPixels) * 4,
                         canvasesOnDevice: drawsCanvasesOnDevice && targets.isEmpty)
        slot.canvases = plan.canvases
        layout.write(plan: plan, sources: batch.sources, into: slot.upload!)
        timings.uploadMilliseconds = lap()
        slot.prefilteredOnHost = hostPrefilters
        timings.prefilterOnHost = hostPrefilters
        if hostPrefilters {
            let planes = slot.planes!.mapped!.assumingMemoryBound(to: Float.self)
            for image in plan.images {
                let source = Int(image.sourceIndex)
                let frame = readsInPlace ? batch.sources[source].planes!
                    : layout.copiedPlanes(of: source, plan: plan, in: slot.upload!)
                HostPrefilter.run(image, source: plan.sources[source], frame: frame, planes: planes)
            }
            timings.prefilterMilliseconds = lap()
        }

        // Where each descriptor set's passes draw, and how much of it a dispatch sees.
        let canvasBuffers = targets.isEmpty
            ? [(drawsCanvasesOnDevice ? slot.deviceCanvases! : slot.readback!, plan.largestWindowPixels * 4)]
            : targets.map { ($0.buffer, $0.size.area * 4) }
        for (set, canvas) in zip(slot.descriptorSets, canvasBuffers) {
            set.update(try layout.bindings(slot: slot, plan: plan, canvasBuffer: canvas.0, canvasBytes: canvas.1))
        }
        try record(plan, passes: passes, into: slot, sets: Array(slot.descriptorSets.prefix(canvasBuffers.count)),
                   ownCanvases: targets.isEmpty ? canvasBuffers[0].0 : nil, strides: layout.strides)
        let retained: [AnyObject] = slot.resources + passes.pipelineObjects + targets.map(\.buffer)
        try slot.submission.submit(slot.commands, retaining: retained)
        context.countSubmission()
        timings.recordMilliseconds = lap()
        submitTimes[slotIndex] = clock
        lastTimings = timings
        return RenderTicket(slot: slotIndex, generation: generation)
    }

    /// Waits for `ticket`'s batch and returns its canvases. Throws `GPUError.staleTicket` when its slot was reused.
    public func wait(_ ticket: RenderTicket) throws -> RenderedCanvases {
        let slot = slots[ticket.slot]
        guard slot.generation == ticket.generation else { throw GPUError.staleTicket }
        try slot.submission.wait()
        if let submitted = submitTimes.removeValue(forKey: ticket.slot) {
            lastTimings.executeMilliseconds = Double(DispatchTime.now().uptimeNanoseconds - submitted) / 1e6
            // `record` writes four timestamps: before the prefilter, the resampling, the overlays, and after them.
            let passes = slot.commands.timestampIntervals()
            if passes.count == 3 {
                if !slot.prefilteredOnHost { lastTimings.prefilterMilliseconds = passes[0] }
                lastTimings.resampleMilliseconds = passes[1]
                lastTimings.overlayMilliseconds = passes[2]
            }
            if printsTimings {
                let t = lastTimings
                FileHandle.standardError.write(Data(String(
                    format: "framefarm-gpu: plan %.2f ms, upload %.2f ms, record %.2f ms, execute %.2f ms "
                        + "(prefilter %.2f%@, resample %.2f, overlay %.2f)\n",
                    t.planMilliseconds, t.uploadMilliseconds, t.recordMilliseconds, t.executeMilliseconds,
                    t.prefilterMilliseconds, t.prefilterOnHost ? " on the host" : "", t.resampleMilliseconds,
                    t.overlayMilliseconds).utf8))
            }
        }
        return RenderedCanvases(slot: slot, generation: ticket.generation)
    }

    private func passes(_ variant: PassVariant) throws -> PassPipelines {
        if let existing = pipelines[variant] { return existing }
        let shared = pipelines.values.first
        // The host prefilters in encoded values only (light needs the per-sample colour conversion).
        let hostPrefilters = prefiltersOnHost && !variant.linearLight
        let created = PassPipelines(
            prefilter: hostPrefilters ? nil : try PrefilterPass(layout: pipelineLayout, linearLight: variant.linearLight,
                                                                convertsColor: variant.convertsColor),
            horizontal: try shared?.horizontal ?? ResampleHorizontalPass(layout: pipelineLayout),
            vertical: try ResampleVerticalPass(layout: pipelineLayout, linearLight: variant.linearLight,
                                               convertsColor: variant.convertsColor),
            overlay: try shared?.overlay ?? OverlayPass(layout: pipelineLayout))
        pipelines[variant] = created
        return created
    }

    /// Fill canvases, prefilter (unless the host did), then per chunk horizontal and vertical, then overlays,
    /// then (canvases drawn on the device) one copy into the readback buffer; a barrier between dependent steps
    /// and one before the host reads.
    /// - Parameter ownCanvases: the slot's buffer the passes draw into (its background filled first); nil when
    ///   they draw into persistent canvases.
    private func record(_ plan: BatchPlan, passes: PassPipelines, into slot: RenderSlot, sets: [DescriptorSet],
                        ownCanvases: GPUBuffer?, strides: TableStrides) throws {
        let commands = slot.commands
        try commands.begin()
        commands.bind(sets, layout: pipelineLayout, strides: strides)
        if let ownCanvases {
            for fill in plan.backgroundFills {
                commands.fill(ownCanvases, offset: fill.pixels.lowerBound * 4, size: fill.pixels.count * 4,
                              value: fill.color)
            }
        }
        commands.barrier(from: .transfer, to: .compute)
        commands.timestamp()
        if let prefilter = passes.prefilter, !plan.images.isEmpty {
            prefilter.dispatches(for: plan.images).forEach(commands.record)
            commands.barrier(from: .compute, to: .compute)
        }
        commands.timestamp()
        for chunk in plan.chunks {
            passes.horizontal.dispatches(for: chunk.jobs, of: plan.jobs).forEach(commands.record)
            commands.barrier(from: .compute, to: .compute)
            passes.vertical.dispatches(for: chunk.jobs, of: plan.jobs, windows: plan.windows).forEach(commands.record)
            commands.barrier(from: .compute, to: .compute)
        }
        commands.timestamp()
        passes.overlay.dispatches(for: plan.overlayRanges, windows: plan.windows).forEach(commands.record)
        commands.timestamp()
        // The copy comes after the last timestamp: the execute time includes it, the per-pass split does not.
        if let ownCanvases, ownCanvases === slot.deviceCanvases, plan.canvasPixels > 0 {
            commands.barrier(from: .compute, to: .transfer)
            commands.copy(slot.deviceCanvases!, to: slot.readback!, size: plan.canvasPixels * 4)
            commands.barrier(from: .transfer, to: .host)
        } else {
            commands.barrier(from: .compute, to: .host)
        }
        try commands.end()
    }
}

extension Renderer {
    /// A renderer as `configuration` asks (prefilter, canvases, timings).
    public convenience init(context: GPUContext, configuration: GPUConfiguration) throws {
        try self.init(context: context, prefilter: configuration.prefilter,
                      canvasesOnDevice: configuration.canvasesOnDevice, printsTimings: configuration.printsTimings)
    }
}
