import Foundation
import FrameFarmCore
import Synchronization

/// Where a file whose name is not UTF-8 is opened: through a symbolic link with a UTF-8 name to the real bytes, made
/// on first use in a folder of its own under the temporary folder and removed with it when the process exits.
extension ForeignNames {
    /// The name to open `path` by: itself, or for a name `decode` made from bytes that are not UTF-8, a link to the
    /// file. A file whose real name has `\x` in it is opened by that name.
    public static func openable(_ path: String) -> String {
        guard let bytes = foreignBytes(path), access(path, F_OK) != 0 else { return path }
        return links.withLock { links in
            if let link = links.made[path] { return link }
            guard let folder = links.folder ?? makeFolder() else { return path }
            links.folder = folder
            let pathExtension = (path as NSString).pathExtension
            let link = folder + "/\(links.made.count)" + (pathExtension.isEmpty ? "" : "." + pathExtension)
            let target = bytes.first == UInt8(ascii: "/") ? bytes : Array(FileManager.default.currentDirectoryPath.utf8) + [UInt8(ascii: "/")] + bytes
            let made = (target + [0]).withUnsafeBufferPointer { target in
                target.withMemoryRebound(to: CChar.self) { symlink($0.baseAddress!, link) == 0 }
            }
            guard made else { return path }
            links.made[path] = link
            return link
        }
    }

    /// The names in `folder` (`openable`), decoded; nil when it cannot be listed.
    public static func contents(of folder: String) -> [String]? {
        guard let stream = opendir(openable(folder)) else { return nil }
        defer { closedir(stream) }
        var names: [String] = []
        while let entry = readdir(stream) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in decode(raw.prefix { $0 != 0 }) }
            if name != ".", name != ".." { names.append(name) }
        }
        return names
    }

    private struct Links {
        var folder: String?
        var made: [String: String] = [:]
    }

    private static let links = Mutex(Links())

    private static func makeFolder() -> String? {
        var template = Array((NSTemporaryDirectory() + "/framefarm-names.XXXXXX").utf8CString)
        let made = template.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!) != nil }
        guard made else { return nil }
        let folder = String(decoding: template.dropLast().map { UInt8(bitPattern: $0) }, as: UTF8.self)
        atexit { ForeignNames.removeLinks() }
        return folder
    }

    private static func removeLinks() {
        guard let folder = links.withLock({ $0.folder }) else { return }
        try? FileManager.default.removeItem(atPath: folder)
    }
}
