import CVulkan

/// The one descriptor set layout every pass shares: `bindingCount` storage buffers, bindings 0..<bindingCount,
/// visible to compute. Sharing one layout lets a batch bind its buffers once for all passes.
///
/// Ownership: owns the `VkDescriptorSetLayout`. Thread-safety: immutable after init.
final class DescriptorSetLayout {
    let context: GPUContext
    let handle: VkDescriptorSetLayout
    let bindingCount: Int

    init(context: GPUContext, bindingCount: Int) throws {
        let limit = Int(context.limits.maxPerStageDescriptorStorageBuffers)
        guard bindingCount <= limit else {
            throw GPUError.unsupportedDevice("needs \(bindingCount) storage buffers per stage, device allows \(limit)")
        }
        let bindings = (0..<bindingCount).map { index in
            var binding = VkDescriptorSetLayoutBinding()
            binding.binding = UInt32(index)
            binding.descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER
            binding.descriptorCount = 1
            binding.stageFlags = VK_SHADER_STAGE_COMPUTE_BIT.rawValue
            return binding
        }
        var handle: VkDescriptorSetLayout?
        try bindings.withUnsafeBufferPointer { pointer in
            var info = VkDescriptorSetLayoutCreateInfo()
            info.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO
            info.bindingCount = UInt32(bindingCount)
            info.pBindings = pointer.baseAddress
            try vkCheck("vkCreateDescriptorSetLayout",
                        vkCreateDescriptorSetLayout(context.device, &info, nil, &handle))
        }
        self.context = context
        self.handle = handle!
        self.bindingCount = bindingCount
    }

    deinit { vkDestroyDescriptorSetLayout(context.device, handle, nil) }
}

/// A descriptor pool sized for `setCount` sets of one layout; the sets live as long as the pool.
///
/// Ownership: owns the `VkDescriptorPool` (and so every set allocated from it). Thread-safety: none.
final class DescriptorPool {
    let context: GPUContext
    let handle: VkDescriptorPool
    let layout: DescriptorSetLayout

    init(layout: DescriptorSetLayout, setCount: Int) throws {
        var size = VkDescriptorPoolSize()
        size.type = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER
        size.descriptorCount = UInt32(layout.bindingCount * setCount)
        var info = VkDescriptorPoolCreateInfo()
        info.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO
        info.maxSets = UInt32(setCount)
        info.poolSizeCount = 1
        var handle: VkDescriptorPool?
        try withUnsafePointer(to: &size) { sizePointer in
            info.pPoolSizes = sizePointer
            try vkCheck("vkCreateDescriptorPool", vkCreateDescriptorPool(layout.context.device, &info, nil, &handle))
        }
        self.context = layout.context
        self.handle = handle!
        self.layout = layout
    }

    deinit { vkDestroyDescriptorPool(context.device, handle, nil) }

    func allocateSet() throws -> DescriptorSet {
        var setLayout: VkDescriptorSetLayout? = layout.handle
        var set: VkDescriptorSet?
        try withUnsafePointer(to: &setLayout) { layoutPointer in
            var info = VkDescriptorSetAllocateInfo()
            info.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO
            info.descriptorPool = handle
            info.descriptorSetCount = 1
            info.pSetLayouts = layoutPointer
            try vkCheck("vkAllocateDescriptorSets", vkAllocateDescriptorSets(context.device, &info, &set))
        }
        return DescriptorSet(pool: self, handle: set!)
    }
}

/// A range of a buffer bound to one storage-buffer binding.
struct BufferRange {
    var buffer: GPUBuffer
    var offset: Int
    var size: Int
}

/// One descriptor set of the shared layout. Not an owner: its pool frees it. Thread-safety: none; update it only
/// while no submission that uses it is in flight.
struct DescriptorSet {
    let pool: DescriptorPool
    let handle: VkDescriptorSet

    /// Points binding i at `ranges[i]`.
    func update(_ ranges: [BufferRange]) {
        precondition(ranges.count == pool.layout.bindingCount)
        let infos = ranges.map { range in
            VkDescriptorBufferInfo(buffer: range.buffer.buffer, offset: VkDeviceSize(range.offset),
                                   range: VkDeviceSize(range.size))
        }
        infos.withUnsafeBufferPointer { infoPointer in
            let writes = infos.indices.map { index in
                var write = VkWriteDescriptorSet()
                write.sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET
                write.dstSet = handle
                write.dstBinding = UInt32(index)
                write.descriptorCount = 1
                write.descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER
                write.pBufferInfo = infoPointer.baseAddress! + index
                return write
            }
            vkUpdateDescriptorSets(pool.context.device, UInt32(writes.count), writes, 0, nil)
        }
    }
}
