import Foundation
import FrameFarmMedia

/// How each input's folder under OUT is named. Always a function of the input's path alone (and of the inputs
/// root for `.mirror`): the same whether the input runs alone, in a batch, or in any shard of any shard count.
public enum FolderLayout: Sendable, Hashable {
    /// `OUT/<stem>/`, the default. Two inputs of one batch with the same stem would share a folder: the batch
    /// refuses them (`FolderLayout.conflicts`) and names `.hashed` and `.mirror`.
    case stem
    /// `OUT/<stem>-<6 hex digits of a hash of the absolute path>/`: flat, and distinct for distinct paths.
    case hashed
    /// `OUT/<folders under root>/<stem>/`: `root/a/b/clip.mp4` goes to `OUT/a/b/clip/`.
    case mirror(inputsRoot: String)

    /// The input's folder, relative to OUT.
    public func folder(for input: String) throws(InputFailure) -> String {
        switch self {
        case .stem:
            return OutputLayout.stem(input)
        case .hashed:
            // A folder's name has 255 bytes at most: a long stem (a 251-byte file's) is cut to leave the hash room.
            var stem = OutputLayout.stem(input)
            while stem.utf8.count > 248 { stem.removeLast() }
            return stem + "-" + OutputLayout.shortHash(OutputLayout.absolutePath(input))
        case .mirror(let root):
            guard let relative = OutputLayout.relativePath(of: input, under: root) else {
                throw InputFailure(path: input, reason: "not under --inputs-root \(root)")
            }
            // A URL's folders are percent-decoded. Folders are named as stems are: hidden ones made visible (OUT's
            // walkers skip hidden names), and names that are not UTF-8 read as Latin-1.
            let names = RemoteInput.isRemote(input) ? RemoteInput.folders(in: relative)
                : relative.split(separator: "/").dropLast().map(String.init)
            let folders: [String] = names.map(ForeignNames.readable).map { name in
                name.hasPrefix(".") ? "_" + String(name.dropFirst()) : name
            }
            return (folders + [OutputLayout.stem(input)]).joined(separator: "/")
        }
    }

    /// Pairs of inputs whose folders would collide: the same folder (the first input of the list keeps it), or
    /// one inside another's (a mirrored `clip/preview.mp4` next to `clip.mp4`). Folders are compared by a 64-bit
    /// hash and made again only where hashes meet, so a list of a million inputs costs 16 bytes an input here.
    public func conflicts(_ inputs: [String]) -> [(first: String, second: String, folder: String)] {
        var keyed: [(hash: UInt64, index: Int)] = []
        keyed.reserveCapacity(inputs.count)
        for (index, input) in inputs.enumerated() {
            if let folder = try? folder(for: input) { keyed.append((OutputLayout.hash64(folder), index)) }
        }
        keyed.sort { $0.hash != $1.hash ? $0.hash < $1.hash : $0.index < $1.index }
        var conflicts: [(first: String, second: String, folder: String)] = []
        var start = 0
        while start < keyed.count {
            var end = start + 1
            while end < keyed.count, keyed[end].hash == keyed[start].hash { end += 1 }
            var owners: [String: String] = [:]
            for entry in keyed[start..<end] {
                let input = inputs[entry.index], folder = (try? folder(for: input)) ?? ""
                if let owner = owners[folder] { conflicts.append((owner, input, folder)) } else { owners[folder] = input }
            }
            start = end
        }
        guard case .mirror = self else { return conflicts }
        // The owner of `folder`, if an input has it: a binary search for its hash, then the folders compared.
        func owner(of folder: String) -> String? {
            let hash = OutputLayout.hash64(folder)
            var low = 0, high = keyed.count
            while low < high {
                let middle = (low + high) / 2
                if keyed[middle].hash < hash { low = middle + 1 } else { high = middle }
            }
            while low < keyed.count, keyed[low].hash == hash {
                if (try? self.folder(for: inputs[keyed[low].index])) == folder { return inputs[keyed[low].index] }
                low += 1
            }
            return nil
        }
        for entry in keyed {
            let input = inputs[entry.index]
            guard var parent = (try? folder(for: input)).map({ Substring($0) }) else { continue }
            while let slash = parent.lastIndex(of: "/") {
                parent = parent[..<slash]
                if let owner = owner(of: String(parent)) { conflicts.append((owner, input, String(parent))) }
            }
        }
        return conflicts
    }
}

extension OutputLayout {
    /// `input`'s path below `root`: as both are written, else with the links in their folders resolved (a library
    /// reached through a linked folder, `media/` for `/mnt/library/`), so that it is placed, reported and kept by
    /// `--prune` the same way by either path. Nil when it is not below `root` either way.
    static func relativePath(of input: String, under root: String) -> String? {
        func below(_ path: String, _ root: String) -> String? {
            let prefix = root.hasSuffix("/") ? root : root + "/"
            return path.hasPrefix(prefix) ? String(path.dropFirst(prefix.count)) : nil
        }
        let path = absolutePath(input), rootPath = absolutePath(root)
        if let written = below(path, rootPath) { return written }
        func resolved(_ path: String) -> String? {
            guard let real = realpath(path, nil) else { return nil }
            defer { free(real) }
            return String(cString: real)
        }
        // The file itself is left as it is: a link to a video elsewhere is placed where the link is.
        guard !RemoteInput.isRemote(path), let slash = path.lastIndex(of: "/"), let realRoot = resolved(rootPath),
              let folder = resolved(slash == path.startIndex ? "/" : String(path[..<slash])) else { return nil }
        return below((folder == "/" ? "" : folder) + path[slash...], realRoot)
    }
}
