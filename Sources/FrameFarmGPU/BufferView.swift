import CVulkan

/// A typed view of a whole buffer as 32-bit or four-float texels, read in shaders with `texelFetch` (uniform
/// texel buffer). Texel fetches take the driver's texture path: on lavapipe that is a call per 8 invocations
/// holding one AVX2 gather (`vpgatherdd`) for 32-bit texels, or eight 16-byte loads and shuffles for four-float
/// ones, where a storage-buffer load is a scalar loop over the invocations. Measured on Mesa 22.3
/// lavapipe (AMD EPYC, AVX2): the fetch calls are where the resampling passes spend their time, so fewer fetches
/// per output is what counts. A four-float texel is one call for four floats: the vertical pass reading its
/// intermediate that way took 40% less time than with one-float fetches. Storage-buffer loads indexed by the
/// workgroup ID cost like per-invocation loads (a block filter whose dense weights were read that way ran 2-3x
/// slower).
///
/// Ownership: owns the `VkBufferView` and keeps its buffer alive. Thread-safety: immutable after init.
final class BufferView {
    enum Format {
        case uint32, float32x4

        var vulkanFormat: VkFormat {
            switch self {
            case .uint32: VK_FORMAT_R32_UINT
            case .float32x4: VK_FORMAT_R32G32B32A32_SFLOAT
            }
        }

        var bytesPerTexel: Int { self == .float32x4 ? 16 : 4 }
    }

    let buffer: GPUBuffer
    let handle: VkBufferView
    let format: Format
    /// Texels in the view: the buffer's size, capped at the device's maxTexelBufferElements.
    let texelCount: Int

    init(buffer: GPUBuffer, format: Format) throws {
        let limit = Int(buffer.context.limits.maxTexelBufferElements)
        texelCount = min(buffer.size / format.bytesPerTexel, limit)
        var info = VkBufferViewCreateInfo()
        info.sType = VK_STRUCTURE_TYPE_BUFFER_VIEW_CREATE_INFO
        info.buffer = buffer.buffer
        info.format = format.vulkanFormat
        info.offset = 0
        info.range = VkDeviceSize(texelCount * format.bytesPerTexel)
        var handle: VkBufferView?
        try vkCheck("vkCreateBufferView", vkCreateBufferView(buffer.context.device, &info, nil, &handle))
        self.buffer = buffer
        self.handle = handle!
        self.format = format
    }

    deinit { vkDestroyBufferView(buffer.context.device, handle, nil) }
}
