import CVulkan

/// Opens the Vulkan loader once per process (Sources/CVulkan says why it is not linked); every Vulkan call
/// comes after this.
enum VulkanLoader {
    private static let failure: String? = {
        var message = [CChar](repeating: 0, count: 512)
        guard framefarm_vulkan_open(&message, message.count) != 0 else { return nil }
        return String(decoding: message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }()

    static func open() throws {
        if let failure { throw GPUError.vulkanLoaderMissing(reason: failure) }
    }
}
