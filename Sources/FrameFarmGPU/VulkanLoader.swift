import CVulkan

/// Opens the Vulkan loader once per process (Sources/CVulkan says why it is not linked); every Vulkan call
/// comes after this.
public enum VulkanLoader {
    private static let failure: String? = {
        var message = [CChar](repeating: 0, count: 512)
        guard framefarm_vulkan_open(&message, message.count) != 0 else { return nil }
        return String(decoding: message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }()

    static func open() throws {
        if let failure { throw GPUError.vulkanLoaderMissing(reason: failure) }
    }
}

extension VulkanLoader {
    /// The Vulkan instance version the loader offers, "1.3.239", or why there is none.
    public static var versionDescription: String {
        do {
            try open()
        } catch {
            return "no Vulkan loader (\(error))"
        }
        // vkEnumerateInstanceVersion is Vulkan 1.1; a 1.0 loader lacks it.
        guard let address = vkGetInstanceProcAddr(nil, "vkEnumerateInstanceVersion") else { return "Vulkan loader 1.0" }
        let enumerate = unsafeBitCast(address, to: PFN_vkEnumerateInstanceVersion.self)
        var version: UInt32 = 0
        guard enumerate(&version) == VK_SUCCESS else { return "Vulkan loader (version unknown)" }
        return "Vulkan loader \(version >> 22 & 0x7F).\(version >> 12 & 0x3FF).\(version & 0xFFF)"
    }
}
