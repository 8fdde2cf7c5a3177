import Foundation

/// Writes that never leave a half-written file under the final name: data goes to a temporary file in the same
/// folder, is fsync'd, and is renamed over the destination.
public enum AtomicFile {
    private static let lock = NSLock()
    nonisolated(unsafe) private static var inProgress = Set<String>()

    /// Deletes the temporary files of writes not yet renamed (called when the process must quit at once).
    public static func removeTemporariesInProgress() {
        let paths = lock.withLock { inProgress }
        for path in paths { unlink(path) }
    }

    /// A hidden temporary name next to `path`, unique per process and call.
    public static func temporaryPath(for path: String) -> String {
        let url = URL(fileURLWithPath: path)
        let name = ".\(url.lastPathComponent).\(getpid()).\(UInt32.random(in: 0...UInt32.max)).tmp"
        let temporary = url.deletingLastPathComponent().appendingPathComponent(name).path
        lock.withLock { _ = inProgress.insert(temporary) }
        return temporary
    }

    public static func write(_ data: Data, to path: String) throws {
        let temporary = temporaryPath(for: path)
        do {
            guard FileManager.default.createFile(atPath: temporary, contents: data) else {
                throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: path])
            }
            try commit(temporary, to: path)
        } catch {
            try? FileManager.default.removeItem(atPath: temporary)
            lock.withLock { _ = inProgress.remove(temporary) }
            throw error
        }
    }

    /// fsyncs `temporary` and renames it to `path`.
    public static func commit(_ temporary: String, to path: String) throws {
        let descriptor = open(temporary, O_RDONLY)
        if descriptor >= 0 {
            fsync(descriptor)
            close(descriptor)
        }
        defer { lock.withLock { _ = inProgress.remove(temporary) } }
        guard rename(temporary, path) == 0 else {
            unlink(temporary)
            throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: path,
                                                         NSLocalizedDescriptionKey: String(cString: strerror(errno))])
        }
    }
}
