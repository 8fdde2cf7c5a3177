import CVulkan

/// A typed view of a whole buffer as 32-bit texels, read in shaders with `texelFetch` (uniform texel buffer).
/// Texel fetches take the driver's texture path: on lavapipe that is one AVX2 gather per 8 invocations, where a
/// storage-buffer load is a scalar loop over the invocations. Measured on Mesa 22.3 lavapipe (AMD EPYC, AVX2):
/// the gather is where the resampling passes spend their time, a four-float (R32G32B32A32) texel costs about as
/// much as four one-float fetches (the vertical pass read through one was no faster), and storage-buffer loads
/// indexed by the workgroup ID cost like per-invocation loads (a block filter whose dense weights were read that
/// way ran 2-3x slower): fewer 32-bit elements fetched per output is what counts.
///
/// Ownership: owns the `VkBufferView` and keeps its buffer alive. Thread-safety: immutable after init.
final class BufferView {
    enum Format {
        case uint32, float32

        var vulkanFormat: VkFormat {
            switch self {
            case .uint32: VK_FORMAT_R32_UINT
            case .float32: VK_FORMAT_R32_SFLOAT
            }
        }
    }

    let buffer: GPUBuffer
    let handle: VkBufferView
    let format: Format
    /// Texels in the view: the buffer's size, capped at the device's maxTexelBufferElements.
    let texelCount: Int

    init(buffer: GPUBuffer, format: Format) throws {
        let limit = Int(buffer.context.limits.maxTexelBufferElements)
        texelCount = min(buffer.size / 4, limit)
        var info = VkBufferViewCreateInfo()
        info.sType = VK_STRUCTURE_TYPE_BUFFER_VIEW_CREATE_INFO
        info.buffer = buffer.buffer
        info.format = format.vulkanFormat
        info.offset = 0
        info.range = VkDeviceSize(texelCount * 4)
        var handle: VkBufferView?
        try vkCheck("vkCreateBufferView", vkCreateBufferView(buffer.context.device, &info, nil, &handle))
        self.buffer = buffer
        self.handle = handle!
        self.format = format
    }

    deinit { vkDestroyBufferView(buffer.context.device, handle, nil) }
}
