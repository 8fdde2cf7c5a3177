import CVulkan

/// The one descriptor set layout every pass shares: binding i has descriptor type `types[i]`, visible to compute.
/// Sharing one layout lets a batch bind its buffers once for all passes.
///
/// Ownership: owns the `VkDescriptorSetLayout`. Thread-safety: immutable after init.
final class DescriptorSetLayout {
    let context: GPUContext
    let handle: VkDescriptorSetLayout
    let types: [VkDescriptorType]

    var bindingCount: Int { types.count }

    init(context: GPUContext, types: [VkDescriptorType]) throws {
        let limits = context.limits
        let storageTypes = [VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER_DYNAMIC]
        let storageCount = types.filter(storageTypes.contains).count
        let uniformCount = types.filter { $0 == VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER_DYNAMIC }.count
        let needs = [(storageCount, limits.maxPerStageDescriptorStorageBuffers, "storage buffers per stage"),
                     (uniformCount, limits.maxDescriptorSetUniformBuffersDynamic, "dynamic uniform buffers")]
        for (count, limit, what) in needs where count > Int(limit) {
            throw GPUError.unsupportedDevice("needs \(count) \(what), device allows \(limit)")
        }
        let bindings = types.indices.map { index in
            var binding = VkDescriptorSetLayoutBinding()
            binding.binding = UInt32(index)
            binding.descriptorType = types[index]
            binding.descriptorCount = 1
            binding.stageFlags = VK_SHADER_STAGE_COMPUTE_BIT.rawValue
            return binding
        }
        var handle: VkDescriptorSetLayout?
        try bindings.withUnsafeBufferPointer { pointer in
            var info = VkDescriptorSetLayoutCreateInfo()
            info.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO
            info.bindingCount = UInt32(bindings.count)
            info.pBindings = pointer.baseAddress
            try vkCheck("vkCreateDescriptorSetLayout",
                        vkCreateDescriptorSetLayout(context.device, &info, nil, &handle))
        }
        self.context = context
        self.handle = handle!
        self.types = types
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
        let sizes = Set(layout.types.map(\.rawValue)).sorted().map { type in
            VkDescriptorPoolSize(type: VkDescriptorType(type),
                                 descriptorCount: UInt32(layout.types.filter { $0.rawValue == type }.count * setCount))
        }
        var info = VkDescriptorPoolCreateInfo()
        info.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO
        info.maxSets = UInt32(setCount)
        info.poolSizeCount = UInt32(sizes.count)
        var handle: VkDescriptorPool?
        try sizes.withUnsafeBufferPointer { sizePointer in
            info.pPoolSizes = sizePointer.baseAddress
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

/// A range of a buffer bound to one storage- or uniform-buffer binding.
struct BufferRange {
    var buffer: GPUBuffer
    var offset: Int
    var size: Int
}

/// What one binding points at.
enum DescriptorResource {
    case storage(BufferRange)
    case uniform(BufferRange)
    case texels(BufferView)
}

/// One descriptor set of the shared layout. Not an owner: its pool frees it. Thread-safety: none; update it only
/// while no submission that uses it is in flight.
struct DescriptorSet {
    let pool: DescriptorPool
    let handle: VkDescriptorSet

    /// Points binding i at `resources[i]`.
    func update(_ resources: [DescriptorResource]) {
        let layout = pool.layout
        precondition(resources.count == layout.bindingCount)
        let infos = resources.map { resource -> VkDescriptorBufferInfo in
            let range: BufferRange
            switch resource {
            case .storage(let bound), .uniform(let bound): range = bound
            case .texels: return VkDescriptorBufferInfo()
            }
            return VkDescriptorBufferInfo(buffer: range.buffer.buffer, offset: VkDeviceSize(range.offset),
                                          range: VkDeviceSize(range.size))
        }
        let views = resources.map { resource -> VkBufferView? in
            guard case .texels(let view) = resource else { return nil }
            return view.handle
        }
        infos.withUnsafeBufferPointer { infoPointer in
            views.withUnsafeBufferPointer { viewPointer in
                let writes = resources.indices.map { index in
                    var write = VkWriteDescriptorSet()
                    write.sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET
                    write.dstSet = handle
                    write.dstBinding = UInt32(index)
                    write.descriptorCount = 1
                    write.descriptorType = layout.types[index]
                    if case .texels = resources[index] {
                        write.pTexelBufferView = viewPointer.baseAddress! + index
                    } else {
                        write.pBufferInfo = infoPointer.baseAddress! + index
                    }
                    return write
                }
                vkUpdateDescriptorSets(pool.context.device, UInt32(writes.count), writes, 0, nil)
            }
        }
    }
}
