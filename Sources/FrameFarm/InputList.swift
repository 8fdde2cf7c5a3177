import Foundation
import FrameFarmMedia

/// Where a batch's inputs come from besides its arguments: a list file (`--inputs-from`) and folders walked for
/// video files (`--recursive`).
public enum InputList {
    /// File extensions `--recursive` takes as videos (lowercase, no dot), unless `--extensions` names others.
    public static let videoExtensions: Set<String> = [
        "3gp", "avi", "flv", "m2ts", "m4v", "mkv", "mov", "mp4", "mpeg", "mpg", "mts", "mxf", "ogv", "ts", "webm",
        "wmv", "y4m",
    ]

    /// The inputs a list names, one a line, in order: blank lines and lines starting with `#` (after spaces or tabs)
    /// are skipped, other lines are paths whole (spaces included), a
    /// trailing carriage return and a leading byte-order mark are dropped, and relative paths stay relative (to
    /// the current folder, where the batch opens them). `-` reads standard input. Read a line at a time: a list of a million paths costs about
    /// what the paths do.
    public static func read(_ path: String) throws -> [String] {
        // Standard input is opened again from its descriptor: the C library's `stdin` is shared mutable state.
        guard let file = path == "-" ? fdopen(dup(STDIN_FILENO), "r") : fopen(path, "r") else {
            throw InputListError("\(path): cannot read the input list (\(String(cString: strerror(errno))))")
        }
        defer { fclose(file) }
        var inputs: [String] = []
        var buffer: UnsafeMutablePointer<CChar>?
        var capacity = 0
        defer { free(buffer) }
        while true {
            let length = getline(&buffer, &capacity, file)
            guard length >= 0, let buffer else { break }
            var line = ForeignNames.decode(UnsafeRawBufferPointer(start: buffer, count: length))
            // "\r\n" is one Character: `isNewline` covers it, "\n" and "\r".
            while line.last?.isNewline == true { line.removeLast() }
            // The byte-order mark some editors put first in a UTF-8 file is not part of the first path.
            if inputs.isEmpty, line.first == "\u{FEFF}" { line.removeFirst() }
            let content = line.drop { $0 == " " || $0 == "\t" }
            if content.isEmpty || content.hasPrefix("#") { continue }
            inputs.append(line)
        }
        if ferror(file) != 0 {
            throw InputListError("\(path): reading the input list failed (\(String(cString: strerror(errno))))")
        }
        return inputs
    }

    /// The video files under `folder` (by extension, case-insensitive), sorted. Hidden files and folders are
    /// skipped, and so are FrameFarm's own output folders (a video's folder, holding `manifest.json`; an output
    /// root, holding `.framefarm`; and `skipping`, the batch's `--out`): outputs are never inputs.
    /// Symbolic links to folders are followed once: a link back to a folder already walked is not. A link named
    /// as a video whose target is gone is listed (the batch fails it, saying so).
    public static func videos(under folder: String, extensions: Set<String> = videoExtensions,
                              skipping outputRoot: String? = nil) throws -> [String] {
        var found: [String] = []
        var walked = Set<FileIdentity>()
        let skipped = outputRoot.map(FileIdentity.init(path:)) ?? nil
        func walk(_ path: String) {
            guard let identity = FileIdentity(path: path), walked.insert(identity).inserted, identity != skipped,
                  let names = ForeignNames.contents(of: path) else { return }
            if names.contains("manifest.json") || names.contains(".framefarm") { return }
            for name in names.sorted() where !name.hasPrefix(".") {
                let child = path == "/" ? "/" + name : path + "/" + name
                var isFolder: ObjCBool = false
                let isVideo = extensions.contains((name as NSString).pathExtension.lowercased())
                guard FileManager.default.fileExists(atPath: ForeignNames.openable(child), isDirectory: &isFolder) else {
                    // A link to a video that is gone is an input that fails with its line, not one left out unsaid.
                    var status = stat()
                    if isVideo, lstat(ForeignNames.openable(child), &status) == 0 { found.append(child) }
                    continue
                }
                if isFolder.boolValue {
                    walk(child)
                } else if isVideo {
                    found.append(child)
                }
            }
        }
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: folder, isDirectory: &isFolder), isFolder.boolValue else {
            throw InputListError("\(folder): not a folder")
        }
        walk(folder.count > 1 && folder.hasSuffix("/") ? String(folder.dropLast()) : folder)
        return found.sorted()
    }

    /// `--extensions mp4,MOV,.mkv` as a set of lowercase extensions without dots.
    public static func parseExtensions(_ text: String) throws -> Set<String> {
        let items = text.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
            .map { $0.hasPrefix(".") ? String($0.dropFirst()) : $0 }
        guard !items.isEmpty, items.allSatisfy({ !$0.isEmpty && !$0.contains("/") }) else {
            throw InputListError("--extensions \(text): expected a comma-separated list such as mp4,mov,mkv")
        }
        return Set(items)
    }

    /// Each input once (by absolute path), in first-seen order: a list that names a file twice, or a folder
    /// walked that also holds a listed file, must not give two workers one folder.
    public static func deduplicated(_ inputs: [String]) -> [String] {
        var seen = Set<String>()
        return inputs.filter { seen.insert(OutputLayout.absolutePath($0)).inserted }
    }
}

/// A list that cannot be read, or a folder that is not one.
public struct InputListError: Error, CustomStringConvertible, Sendable {
    public var description: String
    init(_ description: String) { self.description = description }
}

/// A file's device and inode: the same folder reached through two paths (a symbolic link) is one identity.
struct FileIdentity: Hashable {
    var device: UInt64
    var inode: UInt64

    init?(path: String) {
        var status = stat()
        guard stat(ForeignNames.openable(path), &status) == 0 else { return nil }
        device = UInt64(status.st_dev)
        inode = UInt64(status.st_ino)
    }
}
