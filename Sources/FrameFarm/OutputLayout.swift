import Foundation
import FrameFarmMedia

/// Where a batch's outputs go (the contract users script against, see README "Output layout"):
/// `OUT/index.html`, and per video `OUT/<folder>/manifest.json`, `preview/`, `thumbnails/`, `poster*.jpg`,
/// with `<folder>` named by the batch's `FolderLayout`.
public struct OutputLayout: Sendable {
    public let root: String

    /// `root` as given, less trailing slashes (`--out review/` would name `review//index.html`).
    public init(root: String) {
        var root = root
        while root.count > 1, root.hasSuffix("/") { root.removeLast() }
        self.root = root
    }

    /// The file name without folder and last extension; a name that would be hidden or empty is made safe.
    public static func stem(_ path: String) -> String {
        let name = RemoteInput.isRemote(path) ? RemoteInput.stem(of: path)
            : ForeignNames.readable(plainStem(path) ?? URL(fileURLWithPath: path).deletingPathExtension().lastPathComponent)
        let cleaned = name.hasPrefix(".") ? "_" + name.dropFirst() : Substring(name)
        return cleaned.isEmpty ? "video" : String(cleaned)
    }

    /// The stem of a path whose name ends in a plain extension (`clip.mp4`), without Foundation's URL (slow for a
    /// million paths); nil for any other name, which Foundation then reads.
    private static func plainStem(_ path: String) -> String? {
        // Searched as bytes: ASCII `.` and `/` never fall inside a multi-byte character.
        let bytes = path.utf8, slash = UInt8(ascii: "/")
        guard bytes.last != slash, let dot = bytes.lastIndex(of: UInt8(ascii: ".")) else { return nil }
        let nameStart = bytes.lastIndex(of: slash).map { bytes.index(after: $0) } ?? bytes.startIndex
        let pathExtension = path.utf8[bytes.index(after: dot)...]
        guard dot > nameStart, !pathExtension.isEmpty,
              pathExtension.allSatisfy({ (48...57).contains($0) || (65...90).contains($0) || (97...122).contains($0) })
        else { return nil }
        return String(path[nameStart..<dot])
    }

    /// The path from `/`, without `.` and `..` steps (links are not resolved). Plain absolute paths, what lists of
    /// a million inputs hold, skip Foundation's URL round trip.
    static func absolutePath(_ path: String) -> String {
        if RemoteInput.isRemote(path) { return path }
        let full = path.hasPrefix("/") ? path : FileManager.default.currentDirectoryPath + "/" + path
        return isPlain(full) ? full : URL(fileURLWithPath: full).standardizedFileURL.path
    }

    /// No empty, `.` or `..` component after the leading `/`, and no trailing `/`.
    private static func isPlain(_ path: String) -> Bool {
        var path = path
        return path.withUTF8 { bytes in
            var component = 0, dots = 0
            for byte in bytes.dropFirst() {
                if byte == UInt8(ascii: "/") {
                    if component == 0 || component == dots && dots <= 2 { return false }
                    component = 0
                    dots = 0
                } else {
                    component += 1
                    if byte == UInt8(ascii: ".") { dots += 1 }
                }
            }
            return bytes.count == 1 || !(component == 0 || component == dots && dots <= 2)
        }
    }

    /// FNV-1a, 6 hex digits: stable across runs and machines (Swift's Hasher is seeded per process).
    static func shortHash(_ text: String) -> String {
        String(String(hash64(text), radix: 16).suffix(6))
    }

    /// FNV-1a over the UTF-8 bytes.
    static func hash64(_ text: String) -> UInt64 {
        var text = text
        return text.withUTF8 { bytes in
            var hash: UInt64 = 0xcbf29ce484222325
            for byte in bytes {
                hash ^= UInt64(byte)
                hash = hash &* 0x100000001b3
            }
            return hash
        }
    }

    public func videoFolder(_ folder: String) -> String { root + "/" + folder }

    /// Whether `path` is a file with something in it: an output a run can trust.
    static func isNonEmptyFile(_ path: String) -> Bool {
        ((try? FileManager.default.attributesOfItem(atPath: path)[.size]) as? NSNumber)?.intValue ?? 0 > 0
    }
    public func manifestPath(_ folder: String) -> String { videoFolder(folder) + "/manifest.json" }
    public var indexPath: String { root + "/index.html" }

    /// Every video folder under OUT (relative, sorted), in any layout: the folders holding a `manifest.json`,
    /// found without looking inside them or inside hidden folders.
    public func videoFolders() -> [String] {
        var found: [String] = []
        func walk(_ relative: String) {
            let path = relative.isEmpty ? root : root + "/" + relative
            guard let names = try? FileManager.default.contentsOfDirectory(atPath: path) else { return }
            if !relative.isEmpty, names.contains("manifest.json") {
                found.append(relative)
                return
            }
            for name in names where !name.hasPrefix(".") {
                var isFolder: ObjCBool = false
                if FileManager.default.fileExists(atPath: path + "/" + name, isDirectory: &isFolder), isFolder.boolValue {
                    walk(relative.isEmpty ? name : relative + "/" + name)
                }
            }
        }
        walk("")
        return found.sorted()
    }

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

    /// Whether `manifest` (and so its folder) holds the outputs of another input than `input`: another path and
    /// another file (a video of the same name elsewhere, under the stem layout); not the same input moved or
    /// changed since.
    static func isOfAnotherInput(_ manifest: VideoManifest, than input: InputRecord) -> Bool {
        OutputLayout.absolutePath(manifest.input.path) != OutputLayout.absolutePath(input.path)
            && !manifest.input.describesSameFile(as: input)
    }

    /// Whether the local input `manifest` was made from is gone, as the runs recorded its path: its folder is
    /// free for another input of the same name (`show.mkv` in place of `show.mp4`). False where that cannot be
    /// told (a remote input, a relative path no run recorded).
    static func isGone(_ manifest: VideoManifest, folder: String, outputRoot: String) -> Bool {
        let recorded = manifest.input.path
        guard !RemoteInput.isRemote(recorded) else { return false }
        // A relative path was relative to where its run ran, which the run's record has resolved.
        let absolute = recorded.hasPrefix("/") ? recorded : RunRecord.all(outputRoot: outputRoot).lazy
            .flatMap(\.inputs).first { $0.folder == folder && $0.path.hasSuffix("/" + recorded) }?.path
        guard let absolute else { return false }
        return !FileManager.default.fileExists(atPath: ForeignNames.openable(absolute))
    }

    /// The manifest at `path` when it describes the same file as `input` (size and modification time), else nil.
    public static func current(at path: String, for input: InputRecord) -> VideoManifest? {
        current(read(path), for: input)
    }

    /// `manifest` when it describes the same file as `input`, else nil.
    static func current(_ manifest: VideoManifest?, for input: InputRecord) -> VideoManifest? {
        manifest.flatMap { $0.input.describesSameFile(as: input) ? $0 : nil }
    }

    /// Whether the input at `path` is still the one `manifest` was made from.
    private static func isCurrent(_ manifest: VideoManifest, path: String) -> Bool {
        guard let input = try? inputRecord(for: path), input.sizeBytes > 0 else { return false }
        return manifest.input.describesSameFile(as: input)
    }

    /// Starts from the input's `current` manifest or a fresh one, applies `update` and writes it atomically. The
    /// manifest is read again under a lock on its folder: another command's batch on the same OUT (`thumbnails`
    /// while `poster` runs) may have written its section since this one began, and must not lose it.
    /// `remade`: the commands whose sections `update` writes. When the input changed since the manifest was made,
    /// the other commands' sections stay, marked stale (`VideoManifest.staleSections`): their files are still there.
    public static func update(at path: String, input: InputRecord, probe: ProbeReport, remade: Set<String>,
                              _ update: (inout VideoManifest) -> Void) throws {
        try AtomicFile.withFolderLock(URL(fileURLWithPath: path).deletingLastPathComponent().path) {
            try updateLocked(at: path, input: input, probe: probe, remade: remade, update)
        }
    }

    private static func updateLocked(at path: String, input: InputRecord, probe: ProbeReport, remade: Set<String>,
                                     _ update: (inout VideoManifest) -> Void) throws {
        let recorded = read(path)
        // Another input's (one gone, whose folder this input takes; or any, with --force) as a changed one's: its
        // files stand until each command makes them again.
        var manifest = current(recorded, for: input) ?? recorded?.changed(to: input) ?? VideoManifest(input: input, probe: probe)
        manifest.input = input
        manifest.probe = probe
        update(&manifest)
        let stale = (manifest.staleSections ?? []).filter { !remade.contains($0) }
        manifest.staleSections = stale.isEmpty ? nil : stale
        // Of the track the manifest lists: a 4-s clip cut every second has no short track, and a folder without
        // one (a poster's, a preview's) has none at all.
        var settings = LintSettings()
        if let interval = manifest.thumbnails?.intervalSeconds {
            settings.trackIntervalSeconds = interval
        } else {
            settings.disabled.insert(.tooShortForTrack)
        }
        manifest.lint = Lint.findings(for: probe, settings: settings)
        try write(manifest, to: path)
    }

    /// Rewrites the contact sheet (OUT/index.html, and its pages when there are many videos) from the manifests
    /// found under OUT, with `failures`, `notices` (not done, not failed: `report`'s missing, stale and unlisted
    /// inputs, which mark their videos too) and the manifests' warnings listed first. `inputs` (folder to absolute
    /// path, as the runs recorded) are the local inputs to check: one changed or gone since its folder was made is
    /// listed too, as `report` lists it. Remote inputs are not asked (a request each).
    public static func writeContactSheet(layout: OutputLayout, failures: [InputFailure] = [],
                                         notices: [ContactSheetWriter.Problem] = [], inputs: [String: String] = [:]) throws {
        typealias Problem = ContactSheetWriter.Problem
        var problems = failures.map { Problem.failure(path: $0.path, text: $0.reason) }
        let failed = Dictionary(failures.map { ($0.path, $0.reason) }, uniquingKeysWith: { first, _ in first })
        // Notices name inputs by path: each is linked to, and marks, the video made from it.
        var notices = notices
        let noticesByPath = Dictionary(grouping: notices.indices.filter { notices[$0].folder == nil }) {
            OutputLayout.absolutePath(notices[$0].path)
        }
        let noticesByFolder = Dictionary(grouping: notices.indices.filter { notices[$0].folder != nil }) { notices[$0].folder! }
        let entries = layout.videoFolders().compactMap { folder -> ContactSheetWriter.Entry? in
            guard let manifest = read(layout.manifestPath(folder)) else { return nil }
            var entry = ContactSheetEntries.entry(folder: folder, manifest: manifest, layout: layout)
            let path = inputs[folder] ?? OutputLayout.absolutePath(manifest.input.path)
            entry.lastRunFailure = failed[path]
            for index in noticesByPath[path] ?? [] { notices[index].folder = folder }
            let marks = Set(((noticesByPath[path] ?? []) + (noticesByFolder[folder] ?? [])).compactMap { notices[$0].flag })
            entry.unlisted = marks.contains(.unlisted)
            if marks.contains(.changed) {
                // `report`'s notices name the commands; a section remade since names the stale ones itself.
                entry.changedSinceMade = manifest.staleSections == nil
            } else if let path = inputs[folder], !RemoteInput.isRemote(path), !isCurrent(manifest, path: path) {
                entry.changedSinceMade = true
                problems.append(Problem(path: manifest.input.path, text: "the input changed or is gone since its outputs were made",
                                        folder: folder, flag: .changed))
            } else if inputs[folder] != nil, let stale = manifest.staleSections {
                problems.append(Problem(path: manifest.input.path, text: ContactSheetWriter.staleText(stale), folder: folder,
                                        flag: .changed))
            }
            for warning in manifest.warnings {
                problems.append(Problem(path: manifest.input.path, text: warning, folder: folder, flag: .warnings))
            }
            return entry
        }
        let pages = ContactSheetWriter.pages(for: entries, problems: problems + notices)
        for (file, html) in pages { try AtomicFile.write(Data(html.utf8), to: layout.root + "/" + file) }
        // Pages a larger batch wrote before.
        let written = Set(pages.map(\.file))
        for name in (try? FileManager.default.contentsOfDirectory(atPath: layout.root)) ?? []
        where name.hasPrefix("page-") && name.hasSuffix(".html") && !written.contains(name) {
            try? FileManager.default.removeItem(atPath: layout.root + "/" + name)
        }
    }

    /// Size and modification time of an input file (with its parts', a local playlist), or what an http(s) input's server says of it (a request:
    /// `RemoteIdentity`, whose failure is the input's).
    /// A symbolic link is followed: the video is the file it names, and a re-run must notice when that changes.
    public static func inputRecord(for path: String) throws(InputError) -> InputRecord {
        if RemoteInput.isRemote(path) {
            let identity = try RemoteIdentity.fetch(path)
            return InputRecord(path: path, sizeBytes: identity.sizeBytes,
                               modifiedSeconds: identity.lastModifiedSeconds ?? 0, etag: identity.etag)
        }
        var status = stat()
        guard stat(ForeignNames.openable(path), &status) == 0 else { return InputRecord(path: path, sizeBytes: 0, modifiedSeconds: 0) }
        let modified = Double(status.st_mtim.tv_sec) + Double(status.st_mtim.tv_nsec) / 1e9
        return InputRecord(path: path, sizeBytes: Int(status.st_size), modifiedSeconds: modified,
                           partsDigest: PlaylistParts.listing(path).map { String(OutputLayout.hash64($0), radix: 16) })
    }

    /// An input file's size, to order and share out work; 0 for an http(s) input (asking its server would cost
    /// every worker a request per input of the whole list) and for a file that is not there.
    public static func sizeBytes(of path: String) -> Int {
        var status = stat()
        guard !RemoteInput.isRemote(path), stat(ForeignNames.openable(path), &status) == 0 else { return 0 }
        return Int(status.st_size)
    }
}
