import Foundation

/// Writes that never leave a half-written file under the final name: data goes to a temporary file in the same
/// folder, is fsync'd, and is renamed over the destination.
public enum AtomicFile {
    private static let lock = NSLock()
    nonisolated(unsafe) private static var inProgress = Set<String>()
    /// Set when the process quits at once: no temporary is created after it.
    nonisolated(unsafe) private static var quitting = false

    /// Deletes the temporary files of writes not yet renamed (called when the process must quit at once). Other
    /// threads may be creating one, or writing into a temporary folder, at that moment: a second pass, once those
    /// steps are over, removes what they left (a staging folder of thumbnails was seen left behind).
    public static func removeTemporariesInProgress() {
        for pass in 0..<2 {
            if pass > 0 { usleep(20_000) }
            let paths = lock.withLock { quitting = true; return inProgress }
            for path in paths { removeFileOrFolder(path) }
        }
    }

    /// Throws once the process is quitting at once, so that no temporary is created behind the removal.
    private static func checkNotQuitting(_ temporary: String) throws {
        if lock.withLock({ quitting }) { throw CocoaError(.userCancelled, userInfo: [NSFilePathErrorKey: temporary]) }
    }

    /// Deletes temporary files in `folder` (not its subfolders) left by a process that no longer runs: one killed
    /// with SIGKILL, or by a crash or power loss before its rename. Temporaries of live processes (this one, or
    /// another batch writing to the same folder) are kept. On shared storage a process id means something only on
    /// its own host and in its own PID namespace (`hostTag`): another's temporaries are removed only once a day
    /// old. Returns how many were removed.
    @discardableResult
    public static func removeStaleTemporaries(inFolder folder: String) -> Int {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: folder) else { return 0 }
        var removed = 0
        for name in names {
            guard let writer = writer(ofTemporaryName: name), writer.pid != getpid() || writer.host != hostTag else { continue }
            if isGone(host: writer.host, pid: writer.pid, leftAt: folder + "/" + name),
               removeFileOrFolder(folder + "/" + name) { removed += 1 }
        }
        return removed
    }

    /// Whether the process `pid` of `host` (nil: this one) that left `path` no longer runs: on this host and in
    /// this PID namespace, asked; elsewhere, taken as gone once `path` is a day old.
    static func isGone(host: String?, pid: pid_t, leftAt path: String) -> Bool {
        host == nil || host == hostTag ? !isRunning(pid) : modifiedSecondsAgo(path) > 24 * 3600
    }

    /// The host tag and process id in a name made by `temporaryPath(for:)` (`.<name>.<host>-<pid>.<random>.tmp`;
    /// names without a host tag, from older versions, are taken as this host's), or nil for any other name.
    static func writer(ofTemporaryName name: String) -> (host: String?, pid: pid_t)? {
        guard name.hasPrefix("."), name.hasSuffix(".tmp") else { return nil }
        let parts = name.dropLast(4).split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count >= 4, UInt32(parts[parts.count - 1]) != nil else { return nil }
        let writer = parts[parts.count - 2].split(separator: "-")
        switch writer.count {
        case 1: return pid_t(writer[0]).map { (nil, $0) }
        case 2: return pid_t(writer[1]).map { (String(writer[0]), $0) }
        default: return nil
        }
    }

    /// This host, as temporary names carry it: 8 hex digits of a hash (FNV-1a) of its name and its PID namespace,
    /// so names stay short and free of dots. A process id means something only in its own namespace: containers
    /// count their ids apart (a batch in one often runs as process 1), and a Kubernetes pod's replacement takes
    /// its name, so the namespace keeps another container's temporaries from being judged by ids counted here.
    static let hostTag: String = {
        var name = [UInt8](repeating: 0, count: 256)
        gethostname(&name, name.count - 1)
        // "pid:[4026531836]": the namespace's inode; without /proc, the name alone.
        let namespace = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/ns/pid")) ?? ""
        var hash: UInt32 = 0x811c9dc5
        for byte in name.prefix(while: { $0 != 0 }) + Array(namespace.utf8) {
            hash ^= UInt32(byte)
            hash = hash &* 0x01000193
        }
        return String(format: "%08x", hash)
    }()

    private static func modifiedSecondsAgo(_ path: String) -> Double {
        var status = stat()
        guard stat(path, &status) == 0 else { return 0 }
        return Date().timeIntervalSince1970 - Double(status.st_mtim.tv_sec)
    }

    /// Whether a process with this id exists (EPERM: it exists but belongs to someone else).
    private static func isRunning(_ pid: pid_t) -> Bool {
        kill(pid, 0) == 0 || errno == EPERM
    }

    /// Runs `body` holding an exclusive lock on `folder` (flock on the folder itself, so no lock file is left),
    /// for a read-modify-write of a file in it that other processes may do at once. Where the file system has no
    /// such locks (some NFS setups), `body` runs unlocked.
    public static func withFolderLock<Result>(_ folder: String, _ body: () throws -> Result) rethrows -> Result {
        let descriptor = open(folder, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard descriptor >= 0 else { return try body() }
        defer { close(descriptor) }
        while flock(descriptor, LOCK_EX) != 0, errno == EINTR {}
        return try body()
    }

    /// A hidden temporary name next to `path`, unique per host, process and call.
    public static func temporaryPath(for path: String) -> String {
        let url = URL(fileURLWithPath: path)
        let name = ".\(url.lastPathComponent).\(hostTag)-\(getpid()).\(UInt32.random(in: 0...UInt32.max)).tmp"
        let temporary = url.deletingLastPathComponent().appendingPathComponent(name).path
        lock.withLock { _ = inProgress.insert(temporary) }
        return temporary
    }

    public static func write(_ data: Data, to path: String) throws {
        let temporary = temporaryPath(for: path)
        do {
            // Written with open/write rather than FileManager.createFile, which stages the data in a temporary
            // file of its own (`.dat.nosync…`) that a SIGKILL would leave behind under a name nobody sweeps.
            try writeAndSync(data, to: temporary)
            try moveIntoPlace(temporary, to: path)
        } catch {
            unlink(temporary)
            lock.withLock { _ = inProgress.remove(temporary) }
            throw error
        }
    }

    /// A new hidden folder next to `path`, named as `temporaryPath` names files, for a set of files (a thumbnail
    /// track) written into it and put in place at once by `replaceFolder`: a job that fails, or a process killed,
    /// midway never leaves part of a set under the final name, nor a mix of an earlier set and a new one. Like a
    /// temporary file, it is removed when the process must quit at once, or by the next run's sweep of stale ones.
    public static func makeTemporaryFolder(for path: String) throws -> String {
        let temporary = temporaryPath(for: path)
        try checkNotQuitting(temporary)
        guard mkdir(temporary, 0o777) == 0 else {
            let error = failure(temporary)
            lock.withLock { _ = inProgress.remove(temporary) }
            throw error
        }
        return temporary
    }

    /// Puts the folder `temporary` (from `makeTemporaryFolder`) in place of the folder `path`, then removes what
    /// `path` held. The two are swapped in one step where the file system can (renameat2's RENAME_EXCHANGE), so
    /// `path` always holds a whole set; elsewhere (NFS) the old folder is moved aside first. Returns where the old
    /// set is left when it could not be removed (a folder of it made read-only), for the caller to say so.
    @discardableResult
    public static func replaceFolder(at path: String, with temporary: String) throws -> String? {
        defer { lock.withLock { _ = inProgress.remove(temporary) } }
        if let exchange = renameExchange, exchange(AT_FDCWD, temporary, AT_FDCWD, path, 1 << 1) == 0 {  // RENAME_EXCHANGE
            return removeFileOrFolder(temporary) ? nil : temporary  // now the old set
        }
        if errno == ENOENT, rename(temporary, path) == 0 { return nil }
        return try replaceFolderMovingAside(at: path, with: temporary)
    }

    /// `replaceFolder` where the file system has no exchange (NFS): the old set is moved aside under a temporary
    /// name, the new one put in, and the old one removed; if the new one cannot be put in, the old one goes back.
    @discardableResult
    static func replaceFolderMovingAside(at path: String, with temporary: String) throws -> String? {
        let aside = temporaryPath(for: path)
        defer { lock.withLock { _ = inProgress.remove(aside) } }
        guard rename(path, aside) == 0 || errno == ENOENT else { throw failure(path) }
        guard rename(temporary, path) == 0 else {
            let error = failure(path)
            _ = rename(aside, path)
            throw error
        }
        return removeFileOrFolder(aside) || errno == ENOENT ? nil : aside
    }

    /// Runs `body` with a new temporary folder (`makeTemporaryFolder`) and, once it returns, puts that folder in
    /// place of `path` (`replaceFolder`); if `body` or the replacement throws, the folder is discarded and `path`
    /// keeps what it held. Also returns where the old set is left, if it could not be removed (`replaceFolder`).
    public static func replacingFolder<Result>(at path: String, _ body: (_ folder: String) throws -> Result) throws
        -> (result: Result, oldSetLeftAt: String?) {
        let temporary = try makeTemporaryFolder(for: path)
        do {
            let result = try body(temporary)
            return (result, try replaceFolder(at: path, with: temporary))
        } catch {
            discard(temporary)
            throw error
        }
    }

    /// glibc's renameat2 (2.28 on), looked up at run time: its header declares it only under _GNU_SOURCE, which
    /// Swift's Glibc module does not define.
    private typealias RenameAt2 = @convention(c) (Int32, UnsafePointer<CChar>, Int32, UnsafePointer<CChar>, UInt32) -> Int32
    private static let renameExchange: RenameAt2? = dlsym(nil, "renameat2").map { unsafeBitCast($0, to: RenameAt2.self) }

    /// Removes a temporary not to be used: a folder from `makeTemporaryFolder`, or a file `writeTemporary` wrote.
    public static func discard(_ temporary: String) {
        removeFileOrFolder(temporary)
        lock.withLock { _ = inProgress.remove(temporary) }
    }

    /// Removes a file, or a folder and everything in it; whether it is gone.
    @discardableResult
    private static func removeFileOrFolder(_ path: String) -> Bool {
        if unlink(path) == 0 { return true }
        guard errno == EISDIR else { return false }
        return (try? FileManager.default.removeItem(atPath: path)) != nil
    }

    /// fsyncs `temporary` and renames it to `path`.
    public static func commit(_ temporary: String, to path: String) throws {
        let descriptor = open(temporary, O_RDONLY | O_CLOEXEC)
        if descriptor >= 0 {
            fsync(descriptor)
            close(descriptor)
        }
        try moveIntoPlace(temporary, to: path)
    }

    /// Writes `data` to a new file at `temporary` (from `temporaryPath(for:)`), not fsync'd (what it says lasts no
    /// longer than the process), for the caller to put in place its own way (`link`, to fail where a file is
    /// there) and then `discard`.
    public static func writeTemporary(_ data: Data, at temporary: String) throws {
        do {
            try writeAndSync(data, to: temporary, sync: false)
        } catch {
            discard(temporary)
            throw error
        }
    }

    private static func writeAndSync(_ data: Data, to temporary: String, sync: Bool = true) throws {
        try checkNotQuitting(temporary)
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o666)
        guard descriptor >= 0 else { throw failure(temporary) }
        defer { close(descriptor) }
        try data.withUnsafeBytes { (bytes: UnsafeRawBufferPointer) in
            var offset = 0
            while offset < bytes.count {
                let written = Glibc.write(descriptor, bytes.baseAddress! + offset, bytes.count - offset)
                if written < 0 {
                    if errno == EINTR { continue }
                    throw failure(temporary)
                }
                offset += written
            }
        }
        guard !sync || fsync(descriptor) == 0 else { throw failure(temporary) }
    }

    private static func moveIntoPlace(_ temporary: String, to path: String) throws {
        defer { lock.withLock { _ = inProgress.remove(temporary) } }
        guard rename(temporary, path) == 0 else {
            let error = failure(path)
            unlink(temporary)
            throw error
        }
    }

    /// The failure of the call that just set `errno`, on `path`.
    private static func failure(_ path: String) -> FileWriteError {
        let code = errno
        return FileWriteError(path: finalPath(of: path), reason: String(cString: strerror(code)))
    }

    /// `path` as the user knows it: each temporary name in it (`.<name>.<tag>-<pid>.<n>.tmp`) read as the name it
    /// was to take.
    static func finalPath(of path: String) -> String {
        path.split(separator: "/", omittingEmptySubsequences: false).map { component in
            guard writer(ofTemporaryName: String(component)) != nil else { return String(component) }
            return component.dropFirst().dropLast(4).split(separator: ".", omittingEmptySubsequences: false)
                .dropLast(2).joined(separator: ".")
        }.joined(separator: "/")
    }
}

/// A file or folder that could not be written (a full disk, a read-only or vanished folder): the path as the
/// user knows it and the system's reason, in one line.
public struct FileWriteError: Error, CustomStringConvertible, Sendable {
    public let path: String
    public let reason: String

    public var description: String { "cannot write \(path): \(reason)" }
}
