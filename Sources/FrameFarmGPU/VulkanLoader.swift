import CVulkan
import FrameFarmCore

/// Opens the Vulkan loader once per process (Sources/CVulkan says why it is not linked); every Vulkan call
/// comes after this.
public enum VulkanLoader {
    /// Opens the loader at `path` (nil: libvulkan.so.1); only the process's first call chooses the path.
    static func open(path: String? = nil) throws {
        var message = [CChar](repeating: 0, count: 512)
        let status = path.withOptionalCString { framefarm_vulkan_open($0, &message, message.count) }
        if status != 0 {
            let reason = String(decoding: message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            throw GPUError.vulkanLoaderMissing(reason: reason)
        }
    }
}

extension VulkanLoader {
    /// Names the driver libraries to open deep-bound before the process's first Vulkan instance
    /// (`VulkanDrivers.lavapipeLibraries`); the executables call it at start, as they choose the loader's drivers.
    public static func deepBindBeforeTheFirstInstance(_ libraries: [String]) {
        driversToDeepBind.withLock { $0 = libraries }
    }

    /// Opens the libraries `deepBindBeforeTheFirstInstance` named, once; called before making an instance, which
    /// is when the loader opens its drivers (a version query opens none).
    static func deepBindDrivers() {
        for library in driversToDeepBind.withLock({ libraries in defer { libraries = [] }; return libraries }) {
            _ = framefarm_vulkan_deep_bind_driver(library)
        }
    }

    private static let driversToDeepBind = Locked<[String]>([])

    /// The Vulkan instance version the loader at `path` offers, "1.3.239", or why there is none.
    public static func versionDescription(path: String? = nil) -> String {
        do {
            try open(path: path)
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

fileprivate extension Optional where Wrapped == String {
    func withOptionalCString<Result>(_ body: (UnsafePointer<CChar>?) -> Result) -> Result {
        guard let self else { return body(nil) }
        return self.withCString(body)
    }
}
