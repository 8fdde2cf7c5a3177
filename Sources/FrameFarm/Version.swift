import FrameFarmGPU
import FrameFarmMedia

/// FrameFarm's version and the libraries it runs with, for `framefarm --version` and bug reports.
public enum FrameFarmVersion {
    /// The one place the version is written (`make image` reads it here too).
    public static let current = "0.20.0"

    /// Three lines: FrameFarm, the FFmpeg libraries and the Vulkan loader this process runs with.
    public static var report: String {
        """
        framefarm \(current)
        \(MediaLibraries.description)
        \(VulkanLoader.versionDescription)
        """
    }
}
