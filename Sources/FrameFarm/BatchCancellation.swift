import Foundation
import FrameFarmMedia

/// Stops a batch between inputs (SIGINT/SIGTERM): inputs in progress finish, their files are renamed into place
/// as usual, and inputs not yet started are reported as not done. Thread-safe.
public enum BatchCancellation {
    private static let lock = NSLock()
    nonisolated(unsafe) private static var stopRequested = false

    public static func requestStop() { lock.withLock { stopRequested = true } }
    public static var isStopRequested: Bool { lock.withLock { stopRequested } }

    /// For a second signal: deletes the temporary files of writes still in progress, so quitting at once leaves
    /// nothing half-written behind.
    public static func removeTemporaryFiles() { AtomicFile.removeTemporariesInProgress() }

    static let notStartedReason = "not started: the batch was interrupted"
}
