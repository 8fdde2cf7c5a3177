/// How FrameFarm uses Vulkan, as the executables decide it from flags and `FRAMEFARM_*` variables (the library
/// reads no environment). Values, so two runs compare as values.
public struct GPUConfiguration: Sendable, Hashable {
    /// Which device (`--gpu`, `FRAMEFARM_GPU`).
    public var selection = GPUSelection.automatic
    /// What named `selection`, for the message when no device matches it: `--gpu` or `FRAMEFARM_GPU`.
    public var selectionNamedBy: String?
    /// The Khronos validation layer, every message recorded (`FRAMEFARM_VALIDATION=1`; tests turn it on).
    public var validation = false
    /// Where the prefilter of large reductions runs (`FRAMEFARM_PREFILTER`).
    public var prefilter = PrefilterPlacement.automatic
    /// Draw canvases in device memory and copy them to the host once (`FRAMEFARM_CANVASES=device`), instead of
    /// straight into host-visible memory.
    public var canvasesOnDevice = false
    /// Print each submission's upload and compute times on stderr (`FRAMEFARM_GPU_TIMING=1`).
    public var printsTimings = false
    /// The Vulkan loader to open (`FRAMEFARM_VULKAN_LOADER`); nil: `libvulkan.so.1`. The first context of a
    /// process opens it; later ones use the same.
    public var loaderPath: String?

    public init() {}
}

/// Where the prefilter runs (see `HostPrefilter`).
public enum PrefilterPlacement: String, Sendable, Hashable, CaseIterable {
    /// On the host when the device is a CPU (lavapipe), else on the device.
    case automatic = "auto"
    case host
    case device
}

/// The kind of Vulkan device, as `VkPhysicalDeviceType` says.
public enum GPUDeviceType: String, Sendable, Hashable {
    case discreteGPU = "discrete-gpu"
    case integratedGPU = "integrated-gpu"
    case virtualGPU = "virtual-gpu"
    case cpu
    case other
}
