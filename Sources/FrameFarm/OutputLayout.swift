import Foundation
import FrameFarmMedia

/// Where a batch's outputs go (the contract users script against, see README "Output layout"):
/// `OUT/index.html`, and per video `OUT/<folder>/manifest.json`, `preview/`, `thumbnails/`, `poster*.jpg`.
public struct OutputLayout: Sendable {
    public let root: String

    public init(root: String) { self.root = root }

    /// A folder name per input: the file's stem, or when two inputs of the batch share a stem, the stem plus a
    /// short stable hash of the absolute path, so neither overwrites the other and re-runs find the same folder.
    public static func folderNames(for inputs: [String]) -> [String] {
        let stems = inputs.map(stem)
        var counts: [String: Int] = [:]
        for stem in stems { counts[stem, default: 0] += 1 }
        return zip(inputs, stems).map { input, stem in
            counts[stem]! == 1 ? stem : "\(stem)-\(shortHash(absolutePath(input)))"
        }
    }

    /// The file name without folder and last extension; a name that would be hidden or empty is made safe.
    static func stem(_ path: String) -> String {
        let name = URL(fileURLWithPath: path).deletingPathExtension().lastPathComponent
        let cleaned = name.hasPrefix(".") ? "_" + name.dropFirst() : Substring(name)
        return cleaned.isEmpty ? "video" : String(cleaned)
    }

    static func absolutePath(_ path: String) -> String {
        URL(fileURLWithPath: path).standardizedFileURL.path
    }

    /// FNV-1a, 6 hex digits: stable across runs and machines (Swift's Hasher is seeded per process).
    static func shortHash(_ text: String) -> String {
        var hash: UInt64 = 0xcbf29ce484222325
        for byte in text.utf8 {
            hash ^= UInt64(byte)
            hash = hash &* 0x100000001b3
        }
        return String(String(hash, radix: 16).suffix(6))
    }

    public func videoFolder(_ folder: String) -> String { root + "/" + folder }
    public func manifestPath(_ folder: String) -> String { videoFolder(folder) + "/manifest.json" }
    public var indexPath: String { root + "/index.html" }

    /// Creates `OUT/<folder>/<subfolder>`; an unwritable OUT gives one clear error.
    public func makeFolder(_ path: String) throws {
        do {
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        } catch {
            throw InputFailure(path: path, reason: "cannot create output folder (\(Self.reason(of: error)))")
        }
        guard FileManager.default.isWritableFile(atPath: path) else {
            throw InputFailure(path: path, reason: "output folder is not writable")
        }
    }

    /// Removes temporary files a killed run left in OUT and in these videos' folders (see
    /// `AtomicFile.removeStaleTemporaries`), so a re-run after SIGKILL or a crash leaves none behind.
    public func removeStaleTemporaries(folders: [String]) {
        AtomicFile.removeStaleTemporaries(inFolder: root)
        for folder in Set(folders) {
            let video = videoFolder(folder)
            for path in [video, video + "/preview", video + "/thumbnails"] {
                AtomicFile.removeStaleTemporaries(inFolder: path)
            }
        }
    }

    static func reason(of error: Error) -> String {
        let nsError = error as NSError
        if let underlying = nsError.userInfo[NSUnderlyingErrorKey] as? NSError,
           let code = POSIXErrorCode(rawValue: Int32(underlying.code)) {
            return String(cString: strerror(code.rawValue))
        }
        return nsError.localizedDescription
    }
}

/// Reads and writes manifest.json (each command replaces only its own section) and rebuilds index.html from
/// every manifest under OUT, so the contact sheet always shows everything the batch folder holds.
public enum ManifestStore {
    public static func read(_ path: String) -> VideoManifest? {
        guard let data = FileManager.default.contents(atPath: path) else { return nil }
        return try? JSONDecoder().decode(VideoManifest.self, from: data)
    }

    public static func write(_ manifest: VideoManifest, to path: String) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        try AtomicFile.write(try encoder.encode(manifest), to: path)
    }

    /// The manifest at `path` when it describes the same file as `input` (size and modification time), else nil.
    public static func current(at path: String, for input: InputRecord) -> VideoManifest? {
        read(path).flatMap { $0.input.describesSameFile(as: input) ? $0 : nil }
    }

    /// Starts from `existing` (the input's `current` manifest, read once by the caller) or a fresh one, applies
    /// `update` and writes it atomically.
    public static func update(_ existing: VideoManifest?, at path: String, input: InputRecord, probe: ProbeReport,
                              _ update: (inout VideoManifest) -> Void) throws {
        var manifest = existing ?? VideoManifest(input: input, probe: probe)
        manifest.input = input
        manifest.probe = probe
        update(&manifest)
        try write(manifest, to: path)
    }

    /// Rewrites OUT/index.html from the manifests found in OUT's subfolders (sorted by folder name).
    public static func writeContactSheet(layout: OutputLayout) throws {
        let folders = (try? FileManager.default.contentsOfDirectory(atPath: layout.root)) ?? []
        let entries = folders.sorted().compactMap { folder -> ContactSheetWriter.Entry? in
            read(layout.manifestPath(folder)).map { ContactSheetWriter.Entry(folder: folder, manifest: $0) }
        }
        try AtomicFile.write(Data(ContactSheetWriter.html(for: entries).utf8), to: layout.indexPath)
    }

    /// Size and modification time of an input file.
    public static func inputRecord(for path: String) -> InputRecord {
        let attributes = (try? FileManager.default.attributesOfItem(atPath: path)) ?? [:]
        let size = (attributes[.size] as? NSNumber)?.intValue ?? 0
        let modified = (attributes[.modificationDate] as? Date)?.timeIntervalSince1970 ?? 0
        return InputRecord(path: path, sizeBytes: size, modifiedSeconds: modified)
    }
}
