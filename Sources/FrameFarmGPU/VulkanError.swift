import CVulkan

/// A Vulkan call that returned an error: names the call and the `VkResult`, the way it reads in the spec.
public struct VulkanError: Error, CustomStringConvertible, Equatable, Sendable {
    public let call: String
    public let result: Int32

    public init(call: String, result: VkResult) {
        self.call = call
        self.result = result.rawValue
    }

    /// The `VkResult`'s spec name, e.g. `VK_ERROR_OUT_OF_DEVICE_MEMORY`.
    public var resultName: String { Self.name(of: result) }
    public var description: String { "\(call) failed: \(resultName)" }

    /// `VK_ERROR_DEVICE_LOST`: the device and everything made on it are unusable; a new context is needed.
    public var isDeviceLost: Bool { result == VK_ERROR_DEVICE_LOST.rawValue }
    /// Host or device memory ran out (`VK_ERROR_OUT_OF_HOST_MEMORY`, `VK_ERROR_OUT_OF_DEVICE_MEMORY`).
    public var isOutOfMemory: Bool {
        result == VK_ERROR_OUT_OF_HOST_MEMORY.rawValue || result == VK_ERROR_OUT_OF_DEVICE_MEMORY.rawValue
    }

    static func name(of result: Int32) -> String {
        switch result {
        case 0: "VK_SUCCESS"
        case 1: "VK_NOT_READY"
        case 2: "VK_TIMEOUT"
        case 3: "VK_EVENT_SET"
        case 4: "VK_EVENT_RESET"
        case 5: "VK_INCOMPLETE"
        case -1: "VK_ERROR_OUT_OF_HOST_MEMORY"
        case -2: "VK_ERROR_OUT_OF_DEVICE_MEMORY"
        case -3: "VK_ERROR_INITIALIZATION_FAILED"
        case -4: "VK_ERROR_DEVICE_LOST"
        case -5: "VK_ERROR_MEMORY_MAP_FAILED"
        case -6: "VK_ERROR_LAYER_NOT_PRESENT"
        case -7: "VK_ERROR_EXTENSION_NOT_PRESENT"
        case -8: "VK_ERROR_FEATURE_NOT_PRESENT"
        case -9: "VK_ERROR_INCOMPATIBLE_DRIVER"
        case -10: "VK_ERROR_TOO_MANY_OBJECTS"
        case -11: "VK_ERROR_FORMAT_NOT_SUPPORTED"
        case -12: "VK_ERROR_FRAGMENTED_POOL"
        case -13: "VK_ERROR_UNKNOWN"
        case -1_000_069_000: "VK_ERROR_OUT_OF_POOL_MEMORY"
        case -1_000_072_003: "VK_ERROR_INVALID_EXTERNAL_HANDLE"
        case -1_000_161_000: "VK_ERROR_FRAGMENTATION"
        case -1_000_257_000: "VK_ERROR_INVALID_OPAQUE_CAPTURE_ADDRESS"
        case 1_000_297_000: "VK_PIPELINE_COMPILE_REQUIRED"
        case -1_000_011_001: "VK_ERROR_VALIDATION_FAILED_EXT"
        default: "VkResult(\(result))"
        }
    }
}

/// Turns a `VkResult` into a thrown `VulkanError`; every Vulkan call that returns one goes through here.
@inline(__always)
func vkCheck(_ call: String, _ result: VkResult) throws {
    if result != VK_SUCCESS { throw VulkanError(call: call, result: result) }
}

/// Errors FrameFarmGPU raises before or around Vulkan calls: environment problems and invalid batches.
public enum GPUError: Error, CustomStringConvertible, Equatable, Sendable {
    /// The Vulkan loader (libvulkan.so.1) cannot be opened or lacks a function.
    case vulkanLoaderMissing(reason: String)
    /// No Vulkan driver or no usable device.
    case noVulkanDevice(reason: String)
    /// `--gpu` / `FRAMEFARM_GPU` named a device that is not there.
    case deviceNotFound(selection: String, available: [String])
    /// `FRAMEFARM_VALIDATION=1` but the Khronos validation layer is not installed.
    case validationLayerMissing
    /// The device lacks a limit or feature the renderer needs.
    case unsupportedDevice(String)
    /// A batch that cannot be rendered as described (bad index, empty rect, wrong byte count, ...).
    case invalidBatch(String)
    /// A batch whose buffers need more than the device binds at once (`maxStorageBufferRange`,
    /// `maxTexelBufferElements`; 128 MiB on lavapipe): fewer sources per batch would fit.
    case beyondDeviceLimits(String)
    /// `wait(_:)` on a ticket whose slot was already reused by a later submission.
    case staleTicket

    public var description: String {
        switch self {
        case .vulkanLoaderMissing(let reason):
            "cannot open the Vulkan loader (\(reason)): install Debian's libvulkan1 and mesa-vulkan-drivers "
                + "(lavapipe, the CPU Vulkan driver)"
        case .noVulkanDevice(let reason):
            // Seen on an NVIDIA host whose driver was installed but missing libglvnd: the loader found the driver
            // and could not load it, which says INCOMPATIBLE_DRIVER, so the hint names both kinds of driver.
            "no Vulkan device (\(reason)): install your GPU's Vulkan driver (NVIDIA's also needs libglvnd: Debian's "
                + "libglx0 and libegl1) or Debian's mesa-vulkan-drivers (lavapipe, the CPU Vulkan driver); "
                + "VK_LOADER_DEBUG=error,driver shows why a driver did not load"
        case .deviceNotFound(let selection, let available):
            "no Vulkan device matches '\(selection)'; available: \(available.enumerated().map { "\($0) \($1)" }.joined(separator: ", "))"
        case .validationLayerMissing:
            "FRAMEFARM_VALIDATION=1 but VK_LAYER_KHRONOS_validation is not installed: install Debian's vulkan-validationlayers"
        case .unsupportedDevice(let what):
            "the Vulkan device is not supported: \(what)"
        case .invalidBatch(let what):
            "invalid render batch: \(what)"
        case .beyondDeviceLimits(let what):
            "render batch too large for the device: \(what)"
        case .staleTicket:
            "render ticket is stale: its buffers were reused by a later submission"
        }
    }
}
