import CVulkan

/// What one compute pass asks for: a pipeline, the item it works on and a grid of workgroups. Passes describe
/// work this way and never call Vulkan; `CommandContext.record(_:)` turns it into commands.
struct ComputeDispatch {
    var pipeline: ComputePipeline
    /// Pushed as constants, and turned into the dynamic offsets of the item's uniform blocks.
    var items: PassConstants
    var groupCountX: Int
    var groupCountY: Int = 1
    var groupCountZ: Int = 1
    /// Byte offset of the canvas-pixel window (a dynamic storage binding) for this dispatch.
    var canvasWindow: Int = 0
}

/// Where in the pipeline a memory dependency starts or ends.
enum PipelineStage {
    case host, transfer, compute

    var stageMask: VkPipelineStageFlags {
        switch self {
        case .host: VK_PIPELINE_STAGE_HOST_BIT.rawValue
        case .transfer: VK_PIPELINE_STAGE_TRANSFER_BIT.rawValue
        case .compute: VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT.rawValue
        }
    }

    var writeAccess: VkAccessFlags {
        switch self {
        case .host: VK_ACCESS_HOST_WRITE_BIT.rawValue
        case .transfer: VK_ACCESS_TRANSFER_WRITE_BIT.rawValue
        case .compute: VK_ACCESS_SHADER_WRITE_BIT.rawValue
        }
    }

    var accessForReadAndWrite: VkAccessFlags {
        switch self {
        case .host: VK_ACCESS_HOST_READ_BIT.rawValue
        case .transfer: VK_ACCESS_TRANSFER_READ_BIT.rawValue | VK_ACCESS_TRANSFER_WRITE_BIT.rawValue
        case .compute: VK_ACCESS_SHADER_READ_BIT.rawValue | VK_ACCESS_SHADER_WRITE_BIT.rawValue
        }
    }
}

/// A command pool with one primary command buffer, re-recorded for every submission; the generic plumbing
/// (fill, barrier, bind, dispatch) every pass shares lives here once.
///
/// Ownership: owns the `VkCommandPool` and its buffer. Thread-safety: none; one per renderer slot, and it must
/// not be re-recorded while its last submission is in flight.
final class CommandContext {
    let context: GPUContext
    let pool: VkCommandPool
    let commandBuffer: VkCommandBuffer
    private var boundPipeline: VkPipeline?
    private var boundSet: (sets: [DescriptorSet], index: Int, layout: PipelineLayout, strides: TableStrides,
                           offsets: [UInt32])?
    /// Timestamps written between passes, when the device supports them on compute queues.
    private let timestamps: VkQueryPool?
    private var timestampCount = 0
    static let maximumTimestamps = 8

    init(context: GPUContext) throws {
        var poolInfo = VkCommandPoolCreateInfo()
        poolInfo.sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO
        poolInfo.flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT.rawValue
        poolInfo.queueFamilyIndex = context.queueFamilyIndex
        var pool: VkCommandPool?
        try vkCheck("vkCreateCommandPool", vkCreateCommandPool(context.device, &poolInfo, nil, &pool))
        var allocateInfo = VkCommandBufferAllocateInfo()
        allocateInfo.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO
        allocateInfo.commandPool = pool
        allocateInfo.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY
        allocateInfo.commandBufferCount = 1
        var buffer: VkCommandBuffer?
        let result = vkAllocateCommandBuffers(context.device, &allocateInfo, &buffer)
        if result != VK_SUCCESS {
            vkDestroyCommandPool(context.device, pool, nil)
            throw VulkanError(call: "vkAllocateCommandBuffers", result: result)
        }
        self.context = context
        self.pool = pool!
        self.commandBuffer = buffer!
        timestamps = context.limits.timestampComputeAndGraphics == VkBool32(VK_TRUE) ? Self.makeQueryPool(context) : nil
    }

    deinit {
        if let timestamps { vkDestroyQueryPool(context.device, timestamps, nil) }
        vkDestroyCommandPool(context.device, pool, nil)
    }

    private static func makeQueryPool(_ context: GPUContext) -> VkQueryPool? {
        var info = VkQueryPoolCreateInfo()
        info.sType = VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO
        info.queryType = VK_QUERY_TYPE_TIMESTAMP
        info.queryCount = UInt32(maximumTimestamps)
        var pool: VkQueryPool?
        // Timings are diagnostics: without a pool the renderer just reports none.
        return vkCreateQueryPool(context.device, &info, nil, &pool) == VK_SUCCESS ? pool : nil
    }

    /// Records a timestamp once the commands before it have finished (up to `maximumTimestamps` per recording).
    func timestamp() {
        guard let timestamps, timestampCount < Self.maximumTimestamps else { return }
        vkCmdWriteTimestamp(commandBuffer, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, timestamps, UInt32(timestampCount))
        timestampCount += 1
    }

    /// Milliseconds between consecutive timestamps of the last recording; call after its submission finished.
    func timestampIntervals() -> [Double] {
        guard let timestamps, timestampCount > 1 else { return [] }
        var ticks = [UInt64](repeating: 0, count: timestampCount)
        let result = ticks.withUnsafeMutableBytes { bytes in
            vkGetQueryPoolResults(context.device, timestamps, 0, UInt32(timestampCount), bytes.count, bytes.baseAddress,
                                  8, VkQueryResultFlags(VK_QUERY_RESULT_64_BIT.rawValue))
        }
        guard result == VK_SUCCESS else { return [] }
        let period = Double(context.limits.timestampPeriod)
        return zip(ticks, ticks.dropFirst()).map { Double($1 &- $0) * period / 1e6 }
    }

    func begin() throws {
        try vkCheck("vkResetCommandBuffer", vkResetCommandBuffer(commandBuffer, 0))
        var info = VkCommandBufferBeginInfo()
        info.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO
        info.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT.rawValue
        try vkCheck("vkBeginCommandBuffer", vkBeginCommandBuffer(commandBuffer, &info))
        boundPipeline = nil
        boundSet = nil
        timestampCount = 0
        if let timestamps { vkCmdResetQueryPool(commandBuffer, timestamps, 0, UInt32(Self.maximumTimestamps)) }
    }

    func end() throws {
        try vkCheck("vkEndCommandBuffer", vkEndCommandBuffer(commandBuffer))
    }

    /// Fills `size` bytes (a multiple of 4) at `offset` with the 32-bit `value`.
    func fill(_ buffer: GPUBuffer, offset: Int, size: Int, value: UInt32) {
        vkCmdFillBuffer(commandBuffer, buffer.buffer, VkDeviceSize(offset), VkDeviceSize(size), value)
    }

    /// Copies the first `size` bytes of `source` to the start of `destination`.
    func copy(_ source: GPUBuffer, to destination: GPUBuffer, size: Int) {
        var region = VkBufferCopy(srcOffset: 0, dstOffset: 0, size: VkDeviceSize(size))
        vkCmdCopyBuffer(commandBuffer, source.buffer, destination.buffer, 1, &region)
    }

    /// Makes the writes of `source` visible to the reads and writes of `destination` (a global memory barrier:
    /// every buffer of a batch is involved, so per-buffer barriers would buy nothing).
    func barrier(from source: PipelineStage, to destination: PipelineStage) {
        var barrier = VkMemoryBarrier()
        barrier.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER
        barrier.srcAccessMask = source.writeAccess
        barrier.dstAccessMask = destination.accessForReadAndWrite
        vkCmdPipelineBarrier(commandBuffer, source.stageMask, destination.stageMask, 0, 1, &barrier, 0, nil, 0, nil)
    }

    /// Binds the descriptor sets the dispatches use: one, or one per persistent canvas a batch draws into (alike
    /// but for the canvas pixels), chosen by each dispatch's canvas; `record` rebinds when a dispatch's set or
    /// dynamic offsets differ.
    func bind(_ sets: [DescriptorSet], layout: PipelineLayout, strides: TableStrides) {
        precondition(!sets.isEmpty)
        boundSet = nil
        bind(sets, index: 0, layout: layout, strides: strides,
             offsets: strides.dynamicOffsets(for: PassConstants(), canvasWindow: 0))
    }

    private func bind(_ sets: [DescriptorSet], index: Int, layout: PipelineLayout, strides: TableStrides,
                      offsets: [UInt32]) {
        var handle: VkDescriptorSet? = sets[index].handle
        vkCmdBindDescriptorSets(commandBuffer, VK_PIPELINE_BIND_POINT_COMPUTE, layout.handle, 0, 1, &handle,
                                UInt32(offsets.count), offsets)
        boundSet = (sets, index, layout, strides, offsets)
    }

    func record(_ dispatch: ComputeDispatch) {
        guard dispatch.groupCountX > 0, dispatch.groupCountY > 0, dispatch.groupCountZ > 0 else { return }
        let pipeline = dispatch.pipeline
        if let bound = boundSet {
            let offsets = bound.strides.dynamicOffsets(for: dispatch.items, canvasWindow: dispatch.canvasWindow)
            let index = bound.sets.count == 1 ? 0 : Int(dispatch.items.canvas)
            if offsets != bound.offsets || index != bound.index {
                bind(bound.sets, index: index, layout: bound.layout, strides: bound.strides, offsets: offsets)
            }
        }
        if boundPipeline != pipeline.handle {
            vkCmdBindPipeline(commandBuffer, VK_PIPELINE_BIND_POINT_COMPUTE, pipeline.handle)
            boundPipeline = pipeline.handle
        }
        precondition(MemoryLayout<PassConstants>.size <= pipeline.layout.pushConstantSize)
        withUnsafeBytes(of: dispatch.items) { bytes in
            vkCmdPushConstants(commandBuffer, pipeline.layout.handle, VK_SHADER_STAGE_COMPUTE_BIT.rawValue, 0,
                               UInt32(bytes.count), bytes.baseAddress)
        }
        vkCmdDispatch(commandBuffer, UInt32(dispatch.groupCountX), UInt32(dispatch.groupCountY),
                      UInt32(dispatch.groupCountZ))
    }
}
