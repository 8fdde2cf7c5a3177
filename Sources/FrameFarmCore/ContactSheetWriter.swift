import Foundation

/// `OUT/index.html`: the review page of a batch. One self-contained page (inline CSS, one small inline script,
/// relative links, nothing fetched from outside OUT): a summary bar whose entries filter the videos, the failures
/// first, then a section per video with its facts and warnings, a timeline that scrubs the video's own
/// thumbnail track and plays the source from the time clicked, the device renders grouped by device with the
/// default mode marked and safe-area and crop overlays, the sprite sheets and the poster.
public enum ContactSheetWriter {
    /// One video: its folder name under OUT, its manifest, and what the page needs besides.
    public struct Entry: Sendable {
        public var folder: String
        public var manifest: VideoManifest
        /// The cues of the video's WebVTT thumbnail track, images relative to the video's folder; empty when it
        /// has none (the page then has no timeline).
        public var thumbnailCues: [ThumbnailCue]
        /// Where the page finds the source video to play; nil when it cannot.
        public var source: Source?
        /// Why the latest run of a command on this input failed, when one did: the outputs shown are an earlier run's.
        public var lastRunFailure: String?
        /// The input changed or is gone since these outputs were made.
        public var changedSinceMade = false
        /// `report` was given a list that no longer names this input: its outputs stay until `report --prune`.
        public var unlisted = false

        public init(folder: String, manifest: VideoManifest, thumbnailCues: [ThumbnailCue] = [], source: Source? = nil) {
            self.folder = folder
            self.manifest = manifest
            self.thumbnailCues = thumbnailCues
            self.source = source
        }
    }

    /// A source video the page can play.
    public enum Source: Sendable, Equatable {
        /// A local file, as a path relative to OUT (`../videos/clip.mp4`).
        case relativePath(String)
        /// A remote input's URL, without query or fragment: a signature never reaches the page.
        case url(String)
    }

    /// Something to look at first: an input that failed (no entry), or a warning about one that has outputs, or
    /// something not done that did not fail (an input missing, stale or no longer listed; a shard not run).
    public struct Problem: Sendable {
        public var path: String
        public var text: String
        /// The entry's folder, when it has one, to link to.
        public var folder: String?
        /// The summary bar's filter that shows the line with the videos (nil: only the unfiltered page does);
        /// `.failed` ones are counted there as failed inputs.
        public var flag: Flag?

        public init(path: String, text: String, folder: String? = nil, flag: Flag? = nil) {
            self.path = path
            self.text = text
            self.folder = folder
            self.flag = flag
        }

        /// An input's failure: no entry to link to, or one of an earlier run's outputs.
        public static func failure(path: String, text: String) -> Problem { Problem(path: path, text: text, flag: .failed) }

        var failed: Bool { flag == .failed }
    }

    /// What the summary bar counts and filters by. A video's flags are its `data-flags`; the script filters on them.
    public enum Flag: String, CaseIterable, Sendable {
        case failed
        /// Inputs with no outputs that did not fail (never run, or their run stopped) and shards never run: lines
        /// of the problem list only.
        case notDone = "not-done"
        /// What the runs warned of the outputs (a lowered grid, a cut-short file, a poster that shows little).
        case warnings
        /// Lint's warnings and errors on the video itself: kept apart, since a whole library may share one (clips
        /// without colour tags), and it would hide the few outputs worth a look.
        case lint
        /// The input changed or is gone since its outputs were made (`report`'s stale).
        case changed
        /// Outputs of an input the list given to `report` no longer names.
        case unlisted
        case padding
        case ultraWide = "ultra-wide"
        case damaged

        var label: String {
            switch self {
            case .failed: "failed"
            case .notDone: "not done"
            case .warnings: "with warnings"
            case .lint: "with lint findings"
            case .changed: "changed or gone"
            case .unlisted: "not in the list"
            case .padding: "padding found"
            case .ultraWide: "ultra-wide"
            case .damaged: "damaged data"
            }
        }
    }

    /// Videos per page: a page of a 100,000-video batch opens as fast as a small batch's.
    public static let videosPerPage = 100

    /// The contact sheet's pages, by file name under OUT: `index.html` alone when the batch fits one page; else
    /// `index.html` as a front page (the problems first, then a link per page) and `page-0001.html`, ... of
    /// `videosPerPage` videos each, in folder order. The problems also head a single page.
    public static func pages(for entries: [Entry], problems: [Problem] = [],
                             perPage: Int = videosPerPage) -> [(file: String, html: String)] {
        let sorted = entries.sorted { $0.folder < $1.folder }
        guard sorted.count > perPage else {
            return [("index.html", html(for: sorted, problems: problems, pageFile: "index.html"))]
        }
        let chunks = stride(from: 0, to: sorted.count, by: perPage).map { Array(sorted[$0..<min($0 + perPage, sorted.count)]) }
        let names = chunks.indices.map { String(format: "page-%04d.html", $0 + 1) }
        var pageOfFolder: [String: String] = [:]
        for (name, chunk) in zip(names, chunks) { for entry in chunk { pageOfFolder[entry.folder] = name } }
        var front = head(title: "FrameFarm contact sheet") + "<p>\(sorted.count) videos on \(chunks.count) pages</p>\n"
        front += problemList(problems) { folder in pageOfFolder[folder] }
        front += "<h2>Pages</h2>\n<ol class=\"pages\">\n"
        for (name, chunk) in zip(names, chunks) {
            front += "<li><a href=\"\(name)\">\(escape(chunk.first!.folder)) … \(escape(chunk.last!.folder))</a></li>\n"
        }
        front += "</ol>\n" + tail
        var pages = [("index.html", front)]
        for (index, (name, chunk)) in zip(names, chunks).enumerated() {
            var page = head(title: "FrameFarm contact sheet, page \(index + 1) of \(chunks.count)")
            page += "<p><a href=\"index.html\">All pages and problems</a>"
            if index > 0 { page += " · <a href=\"\(names[index - 1])\">previous</a>" }
            if index + 1 < names.count { page += " · <a href=\"\(names[index + 1])\">next</a>" }
            page += "</p>\n" + summaryBar(chunk, failures: 0)
            for entry in chunk { page += section(entry) }
            pages.append((name, page + tail))
        }
        return pages
    }

    /// One page holding every entry (and the problems first).
    public static func html(for entries: [Entry], problems: [Problem] = [], pageFile: String = "index.html",
                            title: String = "FrameFarm contact sheet") -> String {
        var page = head(title: title) + "<p>\(entries.count) video\(entries.count == 1 ? "" : "s")</p>\n"
        // Inputs that failed, not failures: one failing in three commands is one failed video (and so for not done).
        func inputs(_ flag: Flag) -> Int { Set(problems.filter { $0.flag == flag }.map(\.path)).count }
        page += summaryBar(entries, failures: inputs(.failed), notDone: inputs(.notDone))
        page += problemList(problems) { _ in pageFile }
        for entry in entries { page += section(entry) }
        return page + tail
    }

    /// The empty icon keeps the browser from asking the server for /favicon.ico, outside OUT.
    private static func head(title: String) -> String {
        """
        <!DOCTYPE html>
        <html lang="en">
        <head>
        <meta charset="utf-8">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <title>\(escape(title))</title>
        <link rel="icon" href="data:,">
        <style>
        \(ReviewPageAssets.style)
        </style>
        </head>
        <body>
        <h1>\(escape(title))</h1>

        """
    }

    /// The one script, after every section it works on.
    private static let tail = "<script>\n\(ReviewPageAssets.script)\n</script>\n</body>\n</html>\n"

    /// The counts of the page's videos (and failed inputs) by flag, each a button that shows only those; the name
    /// filter; the keys.
    private static func summaryBar(_ entries: [Entry], failures: Int, notDone: Int = 0) -> String {
        var counts: [Flag: Int] = [.failed: failures, .notDone: notDone]
        // A failed input with a section of earlier outputs is among `failures` already (pages of many videos,
        // which list no failures, count their failed sections).
        for entry in entries {
            for flag in flags(of: entry) where flag != .failed || failures == 0 { counts[flag, default: 0] += 1 }
        }
        var html = "<nav class=\"summary\" aria-label=\"Filter the videos\">\n"
        html += "<button type=\"button\" data-filter=\"\" aria-pressed=\"true\">\(entries.count) video\(entries.count == 1 ? "" : "s")</button>\n"
        for flag in Flag.allCases {
            let count = counts[flag] ?? 0
            html += "<button type=\"button\" data-filter=\"\(flag.rawValue)\" aria-pressed=\"false\"\(count == 0 ? " disabled" : "")>"
            html += "\(count) \(flag.label)</button>\n"
        }
        html += "<input type=\"search\" class=\"name-filter\" placeholder=\"Filter by name\" aria-label=\"Filter videos by name\">\n"
        html += "<span class=\"keys\"><kbd>j</kbd>/<kbd>k</kbd> next/previous video · on a timeline <kbd>←</kbd>/<kbd>→</kbd> "
        html += "a thumbnail, <kbd>Enter</kbd> plays</span>\n"
        return html + "</nav>\n"
    }

    /// What to say of sections made from an earlier version of the input (`VideoManifest.staleSections`): a
    /// problem line, or (`sentence`) the paragraph in the video's section.
    public static func staleText(_ commands: [String], sentence: Bool = false) -> String {
        "\(sentence ? "The" : "the") \(commands.joined(separator: " and ")) outputs were made from an earlier version "
            + "of the input\(sentence ? "." : "")"
    }

    /// What the summary bar counts for `entry`.
    static func flags(of entry: Entry) -> [Flag] {
        let manifest = entry.manifest, probe = manifest.probe
        var flags: [Flag] = []
        // Shown by the failed filter with its problem line; counted there once, as a failed input.
        if entry.lastRunFailure != nil { flags.append(.failed) }
        if entry.changedSinceMade || manifest.staleSections != nil { flags.append(.changed) }
        if entry.unlisted { flags.append(.unlisted) }
        if !manifest.warnings.isEmpty { flags.append(.warnings) }
        if (manifest.lint ?? []).contains(where: { $0.severity >= .warning }) { flags.append(.lint) }
        if probe.paddingDetected || probe.partialPadding != nil { flags.append(.padding) }
        if probe.aspectClass == .ultraWide { flags.append(.ultraWide) }
        if (probe.damagedData?.count ?? 0) > 0 { flags.append(.damaged) }
        return flags
    }

    /// The problems as a list, failures first, each linked to its entry on `page(folder)` when it has one. Each
    /// line is an item the filters, the name filter and `j`/`k` take as they take a video.
    private static func problemList(_ problems: [Problem], page: (String) -> String?) -> String {
        guard !problems.isEmpty else { return "" }
        var html = "<section class=\"problems\">\n<h2>\(problems.count) problem\(problems.count == 1 ? "" : "s")</h2>\n<ul>\n"
        for problem in problems.filter(\.failed) + problems.filter({ !$0.failed }) {
            html += "<li class=\"item\" tabindex=\"-1\" data-flags=\"\(problem.flag?.rawValue ?? "")\" "
            html += "data-name=\"\(escape(((problem.folder.map { $0 + " " } ?? "") + problem.path).lowercased()))\">"
            let name = problem.failed ? "<bdi class=\"failed\">\(escape(problem.path))</bdi>"
                : problem.folder.flatMap { folder in
                    page(folder).map { "<a href=\"\($0)#\(anchor(folder))\"><bdi>\(escape(problem.path))</bdi></a>" }
                } ?? "<bdi>\(escape(problem.path))</bdi>"
            html += "\(name): \(escape(problem.text))</li>\n"
        }
        return html + "</ul>\n</section>\n"
    }

    static func percent(_ fraction: Double) -> String { String(format: "%.1f%%", fraction * 100) }

    static func escape(_ text: String) -> String { MarkupEscaping.escaped(text) }

    /// A video's section id, and the fragment that links to it: its folder percent-escaped, as an id must have no
    /// spaces (HTML) and a fragment is matched against ids as written.
    static func anchor(_ folder: String) -> String { pathComponentEscaped(folder) }

    /// Percent-escapes each path component for use in href/src, keeping the slashes.
    static func pathComponentEscaped(_ path: String) -> String {
        var allowed = CharacterSet.urlPathAllowed
        allowed.remove(charactersIn: "?#")
        return path.split(separator: "/", omittingEmptySubsequences: false)
            .map { escape(ForeignNames.percentEscaped(String($0))
                          ?? String($0).addingPercentEncoding(withAllowedCharacters: allowed) ?? String($0)) }
            .joined(separator: "/")
    }
}
