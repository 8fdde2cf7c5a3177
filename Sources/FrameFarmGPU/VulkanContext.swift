import CVulkan
import Foundation

/// A Vulkan instance, the chosen device and its compute queue: everything a `Renderer` builds on.
///
/// Ownership: owns the `VkInstance`, the `VkDevice` and the validation messenger; destroys them in `deinit`,
/// after every object that holds a reference to the context (buffers, pipelines, renderers) is gone.
/// Thread-safety: immutable after init and shareable across threads; queue submissions are serialized inside.
// Unchecked: it owns Vulkan handles (instance, device, queue), immutable after init; submissions lock.
public final class GPUContext: @unchecked Sendable {
    /// The device's name as the driver reports it, e.g. "llvmpipe (LLVM 15.0.6, 256 bits)".
    public let deviceName: String
    /// "discrete-gpu", "integrated-gpu", "virtual-gpu", "cpu" or "other".
    public let deviceType: GPUDeviceType
    /// Whether the Khronos validation layer is on (`FRAMEFARM_VALIDATION=1`).
    public let validationEnabled: Bool

    let instance: VkInstance
    let physicalDevice: VkPhysicalDevice
    let device: VkDevice
    let queue: VkQueue
    let queueFamilyIndex: UInt32
    let limits: VkPhysicalDeviceLimits
    let memoryProperties: VkPhysicalDeviceMemoryProperties

    private let validationLog: ValidationLog?
    private let messenger: VkDebugUtilsMessengerEXT?
    private let queueLock = NSLock()
    private let memoryLock = NSLock()
    private var memoryInUse = 0
    private var memoryPeak = 0
    private var submitted = 0

    /// Every validation warning and error reported so far (empty when validation is off).
    public var validationMessages: [String] { validationLog?.messages ?? [] }

    /// Bytes of device memory this context's buffers hold now, and the most they have held at once.
    public var deviceMemory: (inUse: Int, peak: Int) { memoryLock.withLock { (memoryInUse, memoryPeak) } }

    /// Batches submitted by this context's renderers so far.
    public var submissions: Int { memoryLock.withLock { submitted } }

    /// Called by `Renderer` for each batch it submits.
    func countSubmission() { memoryLock.withLock { submitted += 1 } }

    /// Called by `GPUBuffer` for each allocation (positive) and free (negative).
    func account(deviceMemory bytes: Int) {
        memoryLock.withLock {
            memoryInUse += bytes
            memoryPeak = max(memoryPeak, memoryInUse)
        }
    }

    /// Opens the device `configuration` selects, with the validation layer if it asks.
    public convenience init(configuration: GPUConfiguration) throws {
        try self.init(selection: configuration.selection, validation: configuration.validation,
                      loaderPath: configuration.loaderPath)
    }

    /// Opens the device `selection` picks.
    public init(selection: GPUSelection = .automatic, validation: Bool = false, loaderPath: String? = nil) throws {
        try VulkanLoader.open(path: loaderPath)
        VulkanLoader.deepBindDrivers()
        let wantsValidation = validation
        if wantsValidation && !ValidationLog.layerIsInstalled() { throw GPUError.validationLayerMissing }
        let log = wantsValidation ? ValidationLog() : nil
        let instance = try Self.createInstance(validationLog: log)
        var messenger: VkDebugUtilsMessengerEXT?
        do {
            if let log { messenger = try Self.createMessenger(instance: instance, log: log) }
            let physicalDevice = try Self.choosePhysicalDevice(instance: instance, selection: selection)
            var properties = VkPhysicalDeviceProperties()
            vkGetPhysicalDeviceProperties(physicalDevice, &properties)
            var memoryProperties = VkPhysicalDeviceMemoryProperties()
            vkGetPhysicalDeviceMemoryProperties(physicalDevice, &memoryProperties)
            let family = try Self.computeQueueFamily(physicalDevice)
            let device = try Self.createDevice(physicalDevice, queueFamily: family)
            var queue: VkQueue?
            vkGetDeviceQueue(device, family, 0, &queue)
            self.instance = instance
            self.physicalDevice = physicalDevice
            self.device = device
            self.queue = queue!
            self.queueFamilyIndex = family
            self.limits = properties.limits
            self.memoryProperties = memoryProperties
            self.deviceName = cString(fromTuple: properties.deviceName)
            self.deviceType = Self.typeName(properties.deviceType)
            self.validationEnabled = wantsValidation
            self.validationLog = log
            self.messenger = messenger
        } catch {
            if let messenger { Self.destroyMessenger(messenger, instance: instance) }
            vkDestroyInstance(instance, nil)
            throw error
        }
    }

    deinit {
        _ = vkDeviceWaitIdle(device)  // nothing to do about a failure while tearing down
        vkDestroyDevice(device, nil)
        if let messenger { Self.destroyMessenger(messenger, instance: instance) }
        vkDestroyInstance(instance, nil)
    }

    /// Submits one command buffer; the queue needs external synchronization, so submissions take a lock.
    func submit(_ commandBuffer: VkCommandBuffer, signalling fence: VkFence) throws {
        var buffer: VkCommandBuffer? = commandBuffer
        var info = VkSubmitInfo()
        info.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO
        info.commandBufferCount = 1
        try withUnsafePointer(to: &buffer) { pointer in
            info.pCommandBuffers = pointer
            try queueLock.withLock { try vkCheck("vkQueueSubmit", vkQueueSubmit(queue, 1, &info, fence)) }
        }
    }

    // MARK: - Setup

    private static func createInstance(validationLog: ValidationLog?) throws -> VkInstance {
        var app = VkApplicationInfo()
        app.sType = VK_STRUCTURE_TYPE_APPLICATION_INFO
        app.apiVersion = (1 << 22) | (1 << 12)  // VK_API_VERSION_1_1: buffers and compute need nothing newer
        app.applicationVersion = 1
        app.engineVersion = 1
        let layers = validationLog == nil ? [] : [ValidationLog.layerName]
        let extensions = validationLog == nil ? [] : ["VK_EXT_debug_utils"]
        var messengerInfo = validationLog?.messengerCreateInfo() ?? VkDebugUtilsMessengerCreateInfoEXT()
        var instance: VkInstance?
        let result = "FrameFarm".withCString { appName in
            app.pApplicationName = appName
            app.pEngineName = appName
            return withCStringArray(layers) { layerNames in
                withCStringArray(extensions) { extensionNames in
                    withUnsafePointer(to: &app) { appPointer in
                        withUnsafePointer(to: &messengerInfo) { messengerPointer in
                            var info = VkInstanceCreateInfo()
                            info.sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO
                            info.pApplicationInfo = appPointer
                            info.enabledLayerCount = UInt32(layers.count)
                            info.ppEnabledLayerNames = layerNames
                            info.enabledExtensionCount = UInt32(extensions.count)
                            info.ppEnabledExtensionNames = extensionNames
                            // Chained so that messages from vkCreateInstance/vkDestroyInstance are caught too.
                            if validationLog != nil { info.pNext = UnsafeRawPointer(messengerPointer) }
                            return vkCreateInstance(&info, nil, &instance)
                        }
                    }
                }
            }
        }
        if result == VK_ERROR_INCOMPATIBLE_DRIVER || result == VK_ERROR_INITIALIZATION_FAILED {
            throw GPUError.noVulkanDevice(reason: "vkCreateInstance: \(VulkanError.name(of: result.rawValue))")
        }
        if result == VK_ERROR_LAYER_NOT_PRESENT { throw GPUError.validationLayerMissing }
        try vkCheck("vkCreateInstance", result)
        return instance!
    }

    private static func createMessenger(instance: VkInstance, log: ValidationLog) throws -> VkDebugUtilsMessengerEXT {
        guard let address = vkGetInstanceProcAddr(instance, "vkCreateDebugUtilsMessengerEXT") else {
            throw VulkanError(call: "vkGetInstanceProcAddr(vkCreateDebugUtilsMessengerEXT)",
                              result: VK_ERROR_EXTENSION_NOT_PRESENT)
        }
        let create = unsafeBitCast(address, to: PFN_vkCreateDebugUtilsMessengerEXT.self)
        var info = log.messengerCreateInfo()
        var messenger: VkDebugUtilsMessengerEXT?
        try vkCheck("vkCreateDebugUtilsMessengerEXT", create(instance, &info, nil, &messenger))
        return messenger!
    }

    private static func destroyMessenger(_ messenger: VkDebugUtilsMessengerEXT, instance: VkInstance) {
        guard let address = vkGetInstanceProcAddr(instance, "vkDestroyDebugUtilsMessengerEXT") else { return }
        let destroy = unsafeBitCast(address, to: PFN_vkDestroyDebugUtilsMessengerEXT.self)
        destroy(instance, messenger, nil)
    }

    private static func choosePhysicalDevice(instance: VkInstance, selection: GPUSelection) throws
        -> VkPhysicalDevice {
        var count: UInt32 = 0
        try vkCheck("vkEnumeratePhysicalDevices", vkEnumeratePhysicalDevices(instance, &count, nil))
        guard count > 0 else { throw GPUError.noVulkanDevice(reason: "the Vulkan loader found no device") }
        var handles = [VkPhysicalDevice?](repeating: nil, count: Int(count))
        try vkCheck("vkEnumeratePhysicalDevices", vkEnumeratePhysicalDevices(instance, &count, &handles))
        let devices = handles.prefix(Int(count)).compactMap { $0 }
        let described = devices.map { handle -> (name: String, rank: Int) in
            var properties = VkPhysicalDeviceProperties()
            vkGetPhysicalDeviceProperties(handle, &properties)
            let usable = properties.apiVersion >= (1 << 22) | (1 << 12) && (try? computeQueueFamily(handle)) != nil
            return (cString(fromTuple: properties.deviceName), usable ? rank(properties.deviceType) : Int.max)
        }
        guard let chosen = selection.choose(among: described) else {
            throw GPUError.deviceNotFound(selection: selection.description, available: described.map(\.name))
        }
        guard described[chosen].rank != Int.max else {
            throw GPUError.unsupportedDevice("\(described[chosen].name) lacks Vulkan 1.1 or a compute queue")
        }
        return devices[chosen]
    }

    private static func rank(_ type: VkPhysicalDeviceType) -> Int {
        switch type {
        case VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU: 0
        case VK_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU: 1
        case VK_PHYSICAL_DEVICE_TYPE_VIRTUAL_GPU: 2
        case VK_PHYSICAL_DEVICE_TYPE_CPU: 3
        default: 4
        }
    }

    private static func typeName(_ type: VkPhysicalDeviceType) -> GPUDeviceType {
        switch type {
        case VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU: .discreteGPU
        case VK_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU: .integratedGPU
        case VK_PHYSICAL_DEVICE_TYPE_VIRTUAL_GPU: .virtualGPU
        case VK_PHYSICAL_DEVICE_TYPE_CPU: .cpu
        default: .other
        }
    }

    private static func computeQueueFamily(_ physicalDevice: VkPhysicalDevice) throws -> UInt32 {
        var count: UInt32 = 0
        vkGetPhysicalDeviceQueueFamilyProperties(physicalDevice, &count, nil)
        var families = [VkQueueFamilyProperties](repeating: VkQueueFamilyProperties(), count: Int(count))
        vkGetPhysicalDeviceQueueFamilyProperties(physicalDevice, &count, &families)
        let compute = VK_QUEUE_COMPUTE_BIT.rawValue
        guard let index = families.firstIndex(where: { $0.queueFlags & compute != 0 && $0.queueCount > 0 }) else {
            throw GPUError.unsupportedDevice("no compute queue")
        }
        return UInt32(index)
    }

    private static func createDevice(_ physicalDevice: VkPhysicalDevice, queueFamily: UInt32) throws -> VkDevice {
        var priority: Float = 1
        var device: VkDevice?
        try withUnsafePointer(to: &priority) { priorityPointer in
            var queueInfo = VkDeviceQueueCreateInfo()
            queueInfo.sType = VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO
            queueInfo.queueFamilyIndex = queueFamily
            queueInfo.queueCount = 1
            queueInfo.pQueuePriorities = priorityPointer
            try withUnsafePointer(to: &queueInfo) { queuePointer in
                var info = VkDeviceCreateInfo()
                info.sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO
                info.queueCreateInfoCount = 1
                info.pQueueCreateInfos = queuePointer
                try vkCheck("vkCreateDevice", vkCreateDevice(physicalDevice, &info, nil, &device))
            }
        }
        return device!
    }
}

/// Calls `body` with a C array of C strings that lives for the duration of the call.
func withCStringArray<R>(_ strings: [String], _ body: (UnsafePointer<UnsafePointer<CChar>?>?) -> R) -> R {
    let duplicates = strings.map { UnsafePointer(strdup($0)) }
    defer { duplicates.forEach { free(UnsafeMutablePointer(mutating: $0)) } }
    return duplicates.withUnsafeBufferPointer { body(strings.isEmpty ? nil : $0.baseAddress) }
}
