import CVulkan
import Foundation

/// Collects the validation layer's warnings and errors (VK_EXT_debug_utils) and echoes them to stderr.
/// Thread-safe: the layer calls back from whichever thread made the offending Vulkan call.
// Unchecked: Vulkan calls back into it through a C pointer, from any thread; its messages are under a lock.
final class ValidationLog: @unchecked Sendable {
    private let lock = NSLock()
    private var collected: [String] = []

    var messages: [String] { lock.withLock { collected } }

    func record(_ message: String) {
        lock.withLock { collected.append(message) }
        FileHandle.standardError.write(Data("framefarm: vulkan validation: \(message)\n".utf8))
    }

    /// Create info for a messenger that reports warnings and errors of every type into `self`; the caller keeps
    /// `self` alive for as long as the messenger exists.
    func messengerCreateInfo() -> VkDebugUtilsMessengerCreateInfoEXT {
        var info = VkDebugUtilsMessengerCreateInfoEXT()
        info.sType = VK_STRUCTURE_TYPE_DEBUG_UTILS_MESSENGER_CREATE_INFO_EXT
        info.messageSeverity = VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT.rawValue
            | VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT.rawValue
        info.messageType = VK_DEBUG_UTILS_MESSAGE_TYPE_GENERAL_BIT_EXT.rawValue
            | VK_DEBUG_UTILS_MESSAGE_TYPE_VALIDATION_BIT_EXT.rawValue
            | VK_DEBUG_UTILS_MESSAGE_TYPE_PERFORMANCE_BIT_EXT.rawValue
        info.pfnUserCallback = { _, _, callbackData, userData in
            guard let userData else { return VkBool32(VK_FALSE) }
            let log = Unmanaged<ValidationLog>.fromOpaque(userData).takeUnretainedValue()
            let text = callbackData?.pointee.pMessage.map { String(cString: $0) } ?? "(no message)"
            log.record(text)
            return VkBool32(VK_FALSE)
        }
        info.pUserData = Unmanaged.passUnretained(self).toOpaque()
        return info
    }

    static let layerName = "VK_LAYER_KHRONOS_validation"

    static func layerIsInstalled() -> Bool {
        var count: UInt32 = 0
        guard vkEnumerateInstanceLayerProperties(&count, nil) == VK_SUCCESS, count > 0 else { return false }
        var layers = [VkLayerProperties](repeating: VkLayerProperties(), count: Int(count))
        guard vkEnumerateInstanceLayerProperties(&count, &layers) == VK_SUCCESS else { return false }
        return layers.prefix(Int(count)).contains { cString(fromTuple: $0.layerName) == layerName }
    }
}

/// A Swift string from a fixed-size C `char[N]` field imported as a tuple.
func cString<T>(fromTuple tuple: T) -> String {
    withUnsafeBytes(of: tuple) { raw in
        let bytes = raw.prefix { $0 != 0 }
        return String(decoding: bytes, as: UTF8.self)
    }
}
