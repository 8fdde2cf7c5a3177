import Foundation
import FrameFarmCore

/// Byte distance between consecutive entries of the tables bound as uniform blocks, one entry per dispatch at a
/// dynamic offset: each struct rounded up to the device's uniform-buffer offset alignment.
struct TableStrides {
    let source, image, job, canvas: Int

    init(context: GPUContext) {
        let alignment = max(16, Int(context.limits.minUniformBufferOffsetAlignment))
        func stride<T>(_: T.Type) -> Int { (MemoryLayout<T>.size + alignment - 1) / alignment * alignment }
        source = stride(SourceDescriptor.self)
        image = stride(PrefilterImage.self)
        job = stride(ResampleJob.self)
        canvas = stride(CanvasDescriptor.self)
    }

    private static let dynamicBindings = ShaderBinding.allCases.filter(\.isDynamic)

    /// The dynamic offsets of one dispatch, in binding order (as Vulkan takes them).
    func dynamicOffsets(for items: PassConstants, canvasWindow: Int) -> [UInt32] {
        Self.dynamicBindings.map { binding in
            switch binding {
            case .sources: UInt32(Int(items.source) * source)
            case .images: UInt32(Int(items.image) * image)
            case .jobs: UInt32(Int(items.job) * job)
            case .canvases: UInt32(Int(items.canvas) * canvas)
            case .canvasPixels: UInt32(canvasWindow)
            default: preconditionFailure("\(binding) is not dynamic")
            }
        }
    }
}

/// Where each host-written table of a batch goes in the slot's upload buffer (offsets aligned for binding), and
/// the writing of it. Source bytes and filter tables are read through texel views of the whole buffer (words,
/// and quads for the horizontal weights), so their offsets are made absolute (in bytes for sources, words for
/// tables; regions start on 16 bytes, so quad tables stay quad-aligned) as they are written.
struct UploadLayout {
    private enum Region: CaseIterable {
        case sourceBytes, filterTable, sources, images, jobs, overlayCells, canvases
    }

    private var regions: [Region: (offset: Int, size: Int)] = [:]
    private(set) var totalBytes = 0
    let copiesSources: Bool
    let strides: TableStrides
    /// The range the prefilter images are bound with as a storage buffer: all of them where the device's
    /// prefilter pass writes them; where the host does, no pass binds them so, and the binding (which the shared
    /// layout needs all the same) is kept within the device's limit.
    let planesStorageBytes: Int

    /// - Parameters:
    ///   - copiesSources: whether the sources' bytes go into the buffer; not when the host prefilters them in
    ///     place, since no device pass then reads them.
    ///   - prefiltersOnHost: whether the host writes the prefilter images, so that the passes only read them,
    ///     through a texel view: a larger limit than a storage buffer's (2 GiB against 128 MiB on lavapipe, so an
    ///     8K frame's unshrunk images, 199 MB, fit).
    init(plan: BatchPlan, context: GPUContext, copiesSources: Bool = true, prefiltersOnHost: Bool = false) throws {
        self.copiesSources = copiesSources
        let alignment = max(16, Int(context.limits.minStorageBufferOffsetAlignment),
                            Int(context.limits.minTexelBufferOffsetAlignment),
                            Int(context.limits.minUniformBufferOffsetAlignment))
        let strides = TableStrides(context: context)
        self.strides = strides
        let maxRange = Int(context.limits.maxStorageBufferRange)
        let sizes: [(Region, Int)] = [
            (.sourceBytes, copiesSources ? plan.sourceBytes : 0),
            (.filterTable, plan.filterWords.count * 4),
            // At least one entry each: every dispatch binds every block, at offset 0 where it reads none.
            (.sources, max(plan.sources.count, 1) * strides.source),
            (.images, max(plan.images.count, 1) * strides.image),
            (.jobs, max(plan.jobs.count, 1) * strides.job),
            (.overlayCells, plan.overlayCells.count * 4),
            (.canvases, max(plan.windows.count, 1) * strides.canvas),
        ]
        for (region, size) in sizes {
            regions[region] = (totalBytes, max(size, 16))
            totalBytes = (totalBytes + max(size, 16) + alignment - 1) / alignment * alignment
        }
        let texelLimit = Int(context.limits.maxTexelBufferElements) * 4
        let beyond = { (what: String, bytes: Int, limit: Int) in
            GPUError.beyondDeviceLimits("\(what): \(bytes) bytes, over the \(limit) the device binds at once")
        }
        guard regions[.filterTable]!.offset + regions[.filterTable]!.size <= texelLimit else {
            throw beyond("sources and filter tables", totalBytes, texelLimit)
        }
        for (region, size) in sizes where size > maxRange && region != .sourceBytes && region != .filterTable {
            throw beyond("\(region)", size, maxRange)
        }
        // Prefilter images and the intermediate are read as texel views of four floats; the intermediate and the
        // canvases are written as storage buffers, and the prefilter images too unless the host writes them.
        let quadsLimit = texelLimit * 4
        let planesLimit = prefiltersOnHost ? quadsLimit : min(maxRange, quadsLimit)
        for (what, floats, limit) in [("prefilter images", plan.planeFloats, planesLimit),
                                      ("intermediate", plan.intermediateFloats, min(maxRange, quadsLimit)),
                                      ("the largest canvas", plan.largestWindowPixels, maxRange)] where floats * 4 > limit {
            throw beyond(what, floats * 4, limit)
        }
        planesStorageBytes = min(max(plan.planeFloats * 4, 16), maxRange)
    }

    func write(plan: BatchPlan, sources: [SourceFrame], into buffer: GPUBuffer) {
        let base = buffer.mapped!
        let sourceRegion = regions[.sourceBytes]!.offset
        for (index, source) in sources.enumerated() where copiesSources {
            source.write(UnsafeMutableRawBufferPointer(start: base + sourceRegion + plan.sourceOffsets[index],
                                                       count: source.format.byteCount))
        }
        func copy<T>(_ array: [T], to region: Region) {
            array.withUnsafeBytes { bytes in
                guard let source = bytes.baseAddress else { return }
                (base + regions[region]!.offset).copyMemory(from: source, byteCount: bytes.count)
            }
        }
        func copy<T>(_ array: [T], to region: Region, stride: Int) {
            for (index, entry) in array.enumerated() {
                (base + regions[region]!.offset + index * stride).storeBytes(of: entry, as: T.self)
            }
        }
        let tableWord = UInt32(regions[.filterTable]!.offset / 4)
        copy(plan.filterWords, to: .filterTable)
        copy(plan.sources.map { source in
            var absolute = source
            absolute.byteOffset += UInt32(sourceRegion)
            return absolute
        }, to: .sources, stride: strides.source)
        copy(plan.images, to: .images, stride: strides.image)
        copy(plan.jobs.map { job in
            var absolute = job
            for group in [\ResampleJob.luma, \ResampleJob.chroma] {
                absolute[keyPath: group].horizontalTable += tableWord
                absolute[keyPath: group].verticalTable += tableWord
            }
            return absolute
        }, to: .jobs, stride: strides.job)
        copy(plan.overlayCells, to: .overlayCells)
        copy(plan.windows, to: .canvases, stride: strides.canvas)
    }

    /// The planes of source `index` as written into `buffer`, in `FrameFormat.packedPlanes` order.
    func copiedPlanes(of index: Int, plan: BatchPlan, in buffer: GPUBuffer) -> [PlaneMemory] {
        precondition(copiesSources, "the sources were not copied")
        let frame = UnsafeRawPointer(buffer.mapped! + regions[.sourceBytes]!.offset + plan.sourceOffsets[index])
        let source = plan.sources[index]
        let luma = PlaneMemory(firstRow: frame + Int(source.lumaOffset), bytesPerRow: Int(source.lumaStride))
        func chroma(_ offset: UInt32) -> PlaneMemory {
            PlaneMemory(firstRow: frame + Int(offset), bytesPerRow: Int(source.chromaStride))
        }
        return switch source.planeLayout {
        case 0: [luma, chroma(source.cbOffset), chroma(source.crOffset)]
        case 1: [luma, chroma(source.cbOffset)]
        default: [luma]
        }
    }

    /// What each binding points at, in binding order.
    /// - Parameters:
    ///   - canvasBuffer: where the passes draw: the slot's readback buffer, its device canvases, or a persistent
    ///     canvas.
    ///   - canvasBytes: the range each dispatch sees of it: the largest window (every window is bound with
    ///     it), or the persistent canvas.
    func bindings(slot: RenderSlot, plan: BatchPlan, canvasBuffer: GPUBuffer,
                  canvasBytes: Int) throws -> [DescriptorResource] {
        func storage(_ region: Region) -> DescriptorResource {
            .storage(BufferRange(buffer: slot.upload!, offset: regions[region]!.offset, size: regions[region]!.size))
        }
        func entry<T>(_ region: Region, _: T.Type) -> DescriptorResource {
            .uniform(BufferRange(buffer: slot.upload!, offset: regions[region]!.offset, size: MemoryLayout<T>.size))
        }
        return try ShaderBinding.allCases.map { binding in
            switch binding {
            case .uploadTexels: .texels(try slot.texelView(of: slot.upload!, format: .uint32))
            case .uploadQuads: .texels(try slot.texelView(of: slot.upload!, format: .float32x4))
            case .planeTexels: .texels(try slot.texelView(of: slot.planes!, format: .float32x4))
            case .intermediateTexels: .texels(try slot.texelView(of: slot.intermediate!, format: .float32x4))
            case .sources: entry(.sources, SourceDescriptor.self)
            case .images: entry(.images, PrefilterImage.self)
            case .jobs: entry(.jobs, ResampleJob.self)
            case .overlayCells: storage(.overlayCells)
            case .canvases: entry(.canvases, CanvasDescriptor.self)
            case .planes: .storage(BufferRange(buffer: slot.planes!, offset: 0, size: planesStorageBytes))
            case .intermediate:
                .storage(BufferRange(buffer: slot.intermediate!, offset: 0, size: max(plan.intermediateFloats * 4, 16)))
            case .canvasPixels:
                .storage(BufferRange(buffer: canvasBuffer, offset: 0, size: max(canvasBytes, 16)))
            }
        }
    }
}
