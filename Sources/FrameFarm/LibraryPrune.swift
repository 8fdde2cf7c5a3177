import Foundation
import FrameFarmCore
import FrameFarmMedia

extension LibraryReport {
    /// Why `prune` refuses to remove anything: a list that names nothing under OUT is more likely a mistake (a
    /// list read from the wrong folder, another layout) than a library emptied.
    public struct PruneRefusal: Error, CustomStringConvertible {
        public var description: String
    }

    /// Removes the unlisted folders (`unlisted`) but those holding a listed video's only outputs (`onlyOutputsOf`),
    /// and records their removal, so that a report without a list no longer names their inputs. Each folder is
    /// first renamed under `OUT/.framefarm/` (atomic: it is there whole or gone), then deleted, then any parent
    /// folder it leaves empty (mirror layout). Refused where `pruneRefusal` says.
    public mutating func prune() throws {
        if let pruneRefusal { throw PruneRefusal(description: pruneRefusal) }
        let removable = unlisted.filter { $0.onlyOutputsOf == nil }
        guard !removable.isEmpty else { return }
        let trash = outputRoot + "/.framefarm/pruning-\(getpid())"
        try FileManager.default.createDirectory(atPath: trash, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: trash) }
        var failure: PruneRefusal?
        for (index, entry) in removable.enumerated() {
            let folder = outputRoot + "/" + entry.folder
            guard rename(folder, trash + "/\(index)") == 0 else {
                failure = PruneRefusal(description: "\(folder): cannot remove (\(String(cString: strerror(errno))))")
                break
            }
            try? FileManager.default.removeItem(atPath: trash + "/\(index)")
            removeEmptyParents(of: entry.folder)
            pruned.append(entry)
        }
        unlisted.removeAll { pruned.contains($0) }
        // What was removed is recorded even when a folder could not be.
        if !pruned.isEmpty {
            try RunRecord(pruned: pruned.map(\.path)).write(outputRoot: outputRoot)
            RunRecord.removeRedundant(outputRoot: outputRoot)
        }
        if let failure { throw failure }
    }

    /// Why `prune` would remove nothing, if it would refuse: no list was given, some listed inputs map to no folder
    /// (their outputs could be among the unlisted folders), or no listed input has outputs here while some folders
    /// are unlisted.
    public var pruneRefusal: String? {
        guard listGiven else { return "--prune needs the list of the library's inputs (--inputs-from)" }
        if let first = unmapped.first, !unlisted.isEmpty {
            return "\(unmapped.count) listed input\(unmapped.count == 1 ? "" : "s") (\(first)\(unmapped.count > 1 ? ", ..." : "")) "
                + "map\(unmapped.count == 1 ? "s" : "") to no folder under \(outputRoot), so \(unmapped.count == 1 ? "its" : "their") "
                + "outputs may be among the \(unlisted.count) unlisted folders --prune would remove: give --layout and "
                + "--inputs-root as their batch had them, or leave them out of the list; nothing was removed"
        }
        let listedWithOutputs = commands.values.contains { $0.done > 0 || !$0.stale.isEmpty }
        guard listedWithOutputs || unlisted.isEmpty else {
            return "none of the \(inputs) listed inputs has outputs under \(outputRoot), so --prune would remove all "
                + "\(unlisted.count) of its video folders: check the list and --layout; nothing was removed"
        }
        return nil
    }

    /// Removes the folders above `folder` (relative to OUT) that hold nothing now, up to OUT.
    private func removeEmptyParents(of folder: String) {
        var parts = folder.split(separator: "/").dropLast()
        while !parts.isEmpty {
            let path = outputRoot + "/" + parts.joined(separator: "/")
            guard rmdir(path) == 0 else { return }
            parts = parts.dropLast()
        }
    }
}
