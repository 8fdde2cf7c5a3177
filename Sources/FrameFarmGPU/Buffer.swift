import CVulkan

/// One `VkBuffer` bound to its own `VkDeviceMemory`, usable as a storage buffer, a uniform texel buffer and a
/// transfer target.
///
/// Ownership: owns both handles and frees them in `deinit`; keeps its `GPUContext` alive until then. Host-visible
/// roles are mapped once for the buffer's life (`mapped`). Thread-safety: none; a buffer belongs to one renderer
/// slot, and the host must not touch `mapped` while a submission that uses the buffer is in flight.
final class GPUBuffer {
    /// What the buffer is for; decides the memory type.
    enum Role {
        /// Host writes, device reads: device-local and host-visible (ReBAR, UMA) when the device has it.
        case upload
        /// Device writes, host reads: host-cached when available so the readback copy runs at memcpy speed.
        case readback
        /// Device only: intermediates between passes.
        case scratch
    }

    let context: GPUContext
    let buffer: VkBuffer
    let memory: VkDeviceMemory
    /// Usable bytes (the buffer's size; the allocation may be larger).
    let size: Int
    let allocationSize: Int
    /// The persistent mapping of host-visible roles; nil for scratch buffers on memory the host cannot see.
    let mapped: UnsafeMutableRawPointer?

    init(context: GPUContext, size: Int, role: Role) throws {
        let device = context.device
        var info = VkBufferCreateInfo()
        info.sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO
        info.size = VkDeviceSize(max(size, 16))
        info.usage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT.rawValue | VK_BUFFER_USAGE_TRANSFER_DST_BIT.rawValue
            | VK_BUFFER_USAGE_TRANSFER_SRC_BIT.rawValue | VK_BUFFER_USAGE_UNIFORM_TEXEL_BUFFER_BIT.rawValue
            | VK_BUFFER_USAGE_UNIFORM_BUFFER_BIT.rawValue
        info.sharingMode = VK_SHARING_MODE_EXCLUSIVE
        var buffer: VkBuffer?
        try vkCheck("vkCreateBuffer", vkCreateBuffer(device, &info, nil, &buffer))
        var requirements = VkMemoryRequirements()
        vkGetBufferMemoryRequirements(device, buffer, &requirements)
        do {
            let memory = try Self.allocate(context: context, requirements: requirements, role: role)
            do {
                try vkCheck("vkBindBufferMemory", vkBindBufferMemory(device, buffer, memory.handle, 0))
                var pointer: UnsafeMutableRawPointer?
                if memory.hostVisible && role != .scratch {
                    try vkCheck("vkMapMemory", vkMapMemory(device, memory.handle, 0, VkDeviceSize(VK_WHOLE_SIZE), 0,
                                                          &pointer))
                }
                self.mapped = pointer
                self.memory = memory.handle
            } catch {
                vkFreeMemory(device, memory.handle, nil)
                throw error
            }
        } catch {
            vkDestroyBuffer(device, buffer, nil)
            throw error
        }
        self.context = context
        self.buffer = buffer!
        self.size = max(size, 16)
        self.allocationSize = Int(requirements.size)
        context.account(deviceMemory: allocationSize)
    }

    deinit {
        if mapped != nil { vkUnmapMemory(context.device, memory) }
        vkDestroyBuffer(context.device, buffer, nil)
        vkFreeMemory(context.device, memory, nil)
        context.account(deviceMemory: -allocationSize)
    }

    /// Capacity to allocate when `required` bytes no longer fit in `current`: at least 1.5x the old size and
    /// rounded up to a power of two below 64 MiB, to 16 MiB steps above, so steady state allocates nothing.
    static func grownCapacity(required: Int, current: Int) -> Int {
        let wanted = max(required, current + current / 2, 64 * 1024)
        if wanted <= 64 << 20 { return 1 << (Int.bitWidth - (wanted - 1).leadingZeroBitCount) }
        return (wanted + (16 << 20) - 1) & ~((16 << 20) - 1)
    }

    private static func allocate(context: GPUContext, requirements: VkMemoryRequirements, role: Role) throws
        -> (handle: VkDeviceMemory, hostVisible: Bool) {
        let deviceLocal = VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT.rawValue
        let visible = VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT.rawValue | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT.rawValue
        let cached = VK_MEMORY_PROPERTY_HOST_CACHED_BIT.rawValue
        let preferences: [UInt32] = switch role {
        case .upload: [deviceLocal | visible, visible]
        case .readback: [visible | cached, visible]
        case .scratch: [deviceLocal, 0]
        }
        let properties = context.memoryProperties
        let types = withUnsafeBytes(of: properties.memoryTypes) { Array($0.bindMemory(to: VkMemoryType.self)) }
        var lastError: Error = GPUError.unsupportedDevice("no memory type for a \(role) buffer")
        for wanted in preferences {
            for index in 0..<Int(properties.memoryTypeCount)
            where requirements.memoryTypeBits & (1 << UInt32(index)) != 0
                && types[index].propertyFlags & wanted == wanted {
                var info = VkMemoryAllocateInfo()
                info.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO
                info.allocationSize = requirements.size
                info.memoryTypeIndex = UInt32(index)
                var memory: VkDeviceMemory?
                let result = vkAllocateMemory(context.device, &info, nil, &memory)
                if result == VK_SUCCESS {
                    return (memory!, types[index].propertyFlags & visible == visible)
                }
                // A small ReBAR heap runs out first: fall back to the next preference.
                lastError = VulkanError(call: "vkAllocateMemory", result: result)
            }
        }
        throw lastError
    }
}
