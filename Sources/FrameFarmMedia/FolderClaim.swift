import Foundation

/// A batch's claim on a video folder while it writes an input's outputs there: `OUT/.framefarm/claims/<hash>`, made
/// whole at once (a complete file hard-linked into place, which fails if one is there) and naming the host, process,
/// folder and input. Two batches sharing OUT whose inputs map to one folder (two `clip.mp4` of other folders, run
/// at once) each found the folder free and wrote into it: one input's outputs were lost while both said done. The
/// second now fails that input, naming the first. A claim left by a process that no longer runs is taken over.
public struct FolderClaim: Sendable {
    /// The claim file; nil when another batch of this same input holds the folder (the outputs are the same).
    private let path: String?

    /// Why a folder could not be claimed: the input another running batch is writing there.
    public struct Held: Error, Sendable {
        public let input: String
        public let host: String
        public let pid: pid_t
        public let onThisHost: Bool
    }

    /// Claims `folder` (relative to `outputRoot`) for `input`, an absolute path or URL; throws `Held`.
    public static func take(folder: String, for input: String, outputRoot: String) throws -> FolderClaim {
        let claims = outputRoot + "/.framefarm/claims"
        try FileManager.default.createDirectory(atPath: claims, withIntermediateDirectories: true)
        let path = claims + "/" + hash(folder)
        let mine = Holder(host: AtomicFile.hostTag, pid: getpid(), folder: folder, input: input)
        let staged = AtomicFile.temporaryPath(for: path)
        try AtomicFile.writeTemporary(try JSONEncoder().encode(mine), at: staged)
        defer { AtomicFile.discard(staged) }
        for _ in 0..<3 {
            if link(staged, path) == 0 { return FolderClaim(path: path) }
            guard errno == EEXIST else { throw FileWriteError(path: path, reason: String(cString: strerror(errno))) }
            guard let holder = holder(of: path) else {
                // Gone since (retry), or not a claim: a file is put in place whole, so it is nobody's.
                if FileManager.default.fileExists(atPath: path) { unlink(path) }
                continue
            }
            if holder.folder != folder { return FolderClaim(path: nil) }  // another folder of the same hash
            if AtomicFile.isGone(host: holder.host, pid: holder.pid, leftAt: path) {
                unlink(path)
                continue
            }
            if holder.input == input { return FolderClaim(path: nil) }
            throw Held(input: holder.input, host: holder.host, pid: holder.pid, onThisHost: holder.host == AtomicFile.hostTag)
        }
        throw FileWriteError(path: path, reason: "taken and released again and again by other batches")
    }

    /// Gives the folder up.
    public func release() {
        if let path { unlink(path) }
    }

    /// What a claim file says (JSON: names may hold any character but NUL).
    private struct Holder: Codable {
        var host: String
        var pid: pid_t
        var folder: String
        var input: String
    }

    /// The claim at `path`; nil when it is gone, or unreadable (then taken over as a dead process's).
    private static func holder(of path: String) -> Holder? {
        FileManager.default.contents(atPath: path).flatMap { try? JSONDecoder().decode(Holder.self, from: $0) }
    }

    /// 16 hex digits of FNV-1a over the folder's name: a file name whatever the folder's depth and characters.
    private static func hash(_ folder: String) -> String {
        var hash: UInt64 = 0xcbf29ce484222325
        for byte in folder.utf8 {
            hash ^= UInt64(byte)
            hash = hash &* 0x100000001b3
        }
        return String(format: "%016llx", hash)
    }
}
