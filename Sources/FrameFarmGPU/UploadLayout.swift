import Foundation

/// Where each host-written table of a batch goes in the slot's upload buffer (offsets aligned for storage
/// buffer binding), and the writing of it.
struct UploadLayout {
    private(set) var regions: [ShaderBinding: (offset: Int, size: Int)] = [:]
    private(set) var totalBytes = 0

    init(plan: BatchPlan, context: GPUContext) throws {
        let alignment = max(16, Int(context.limits.minStorageBufferOffsetAlignment))
        let maxRange = Int(context.limits.maxStorageBufferRange)
        let sizes: [(ShaderBinding, Int)] = [
            (.sourceWords, plan.sourceBytes),
            (.sources, plan.sources.count * MemoryLayout<SourceDescriptor>.stride),
            (.images, plan.images.count * MemoryLayout<PrefilterImage>.stride),
            (.jobs, plan.jobs.count * MemoryLayout<ResampleJob>.stride),
            (.filterTable, plan.filterWords.count * 4),
            (.workItems, plan.workItems.count * MemoryLayout<WorkItem>.stride),
            (.canvases, plan.canvases.count * MemoryLayout<CanvasDescriptor>.stride),
            (.overlays, plan.overlays.count * MemoryLayout<OverlayDescriptor>.stride),
        ]
        for (binding, size) in sizes {
            guard size <= maxRange else {
                throw GPUError.invalidBatch("\(binding) needs \(size) bytes, over the device's storage-buffer range "
                    + "of \(maxRange): split the batch")
            }
            regions[binding] = (totalBytes, max(size, 16))
            totalBytes = (totalBytes + max(size, 16) + alignment - 1) / alignment * alignment
        }
        for (what, floats) in [("prefilter images", plan.planeFloats), ("intermediate", plan.intermediateFloats),
                               ("canvases", plan.canvasPixels)] where floats * 4 > maxRange {
            throw GPUError.invalidBatch("\(what) need \(floats * 4) bytes, over the device's storage-buffer range "
                + "of \(maxRange): split the batch")
        }
    }

    func write(plan: BatchPlan, sources: [SourceFrame], into buffer: GPUBuffer) {
        let base = buffer.mapped!
        let sourceRegion = base + regions[.sourceWords]!.offset
        for (index, source) in sources.enumerated() {
            source.write(UnsafeMutableRawBufferPointer(start: sourceRegion + plan.sourceOffsets[index],
                                                       count: source.format.byteCount))
        }
        func copy<T>(_ array: [T], to binding: ShaderBinding) {
            array.withUnsafeBytes { bytes in
                guard let source = bytes.baseAddress else { return }
                (base + regions[binding]!.offset).copyMemory(from: source, byteCount: bytes.count)
            }
        }
        copy(plan.sources, to: .sources)
        copy(plan.images, to: .images)
        copy(plan.jobs, to: .jobs)
        copy(plan.filterWords, to: .filterTable)
        copy(plan.workItems, to: .workItems)
        copy(plan.canvases, to: .canvases)
        copy(plan.overlays, to: .overlays)
    }

    /// The descriptor ranges for every binding, in binding order.
    func bindings(slot: RenderSlot, plan: BatchPlan) -> [BufferRange] {
        ShaderBinding.allCases.map { binding in
            switch binding {
            case .planes: BufferRange(buffer: slot.planes!, offset: 0, size: max(plan.planeFloats * 4, 16))
            case .intermediate:
                BufferRange(buffer: slot.intermediate!, offset: 0, size: max(plan.intermediateFloats * 4, 16))
            case .canvasPixels: BufferRange(buffer: slot.readback!, offset: 0, size: max(plan.canvasPixels * 4, 16))
            default: BufferRange(buffer: slot.upload!, offset: regions[binding]!.offset, size: regions[binding]!.size)
            }
        }
    }
}
