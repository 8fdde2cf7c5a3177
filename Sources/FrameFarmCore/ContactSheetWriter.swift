import Foundation

/// `OUT/index.html`: one self-contained page for the whole batch (inline CSS, no scripts, no network, relative
/// links), a section per video with its probe facts, a padding warning, the device x mode grid with the default
/// marked and the crop under each image, the thumbnail sheets and the poster.
public enum ContactSheetWriter {
    /// One video: its folder name under OUT and its manifest.
    public struct Entry: Sendable {
        public var folder: String
        public var manifest: VideoManifest

        public init(folder: String, manifest: VideoManifest) {
            self.folder = folder
            self.manifest = manifest
        }
    }

    /// Something to look at first: an input that failed (no entry), or a warning about one that has outputs.
    public struct Problem: Sendable {
        public var path: String
        public var text: String
        /// The entry's folder, when it has one, to link to.
        public var folder: String?

        public init(path: String, text: String, folder: String? = nil) {
            self.path = path
            self.text = text
            self.folder = folder
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
        front += "</ol>\n</body>\n</html>\n"
        var pages = [("index.html", front)]
        for (index, (name, chunk)) in zip(names, chunks).enumerated() {
            var page = head(title: "FrameFarm contact sheet, page \(index + 1) of \(chunks.count)")
            page += "<p><a href=\"index.html\">All pages and problems</a>"
            if index > 0 { page += " · <a href=\"\(names[index - 1])\">previous</a>" }
            if index + 1 < names.count { page += " · <a href=\"\(names[index + 1])\">next</a>" }
            page += "</p>\n"
            for entry in chunk { page += section(entry) }
            pages.append((name, page + "</body>\n</html>\n"))
        }
        return pages
    }

    /// One page holding every entry (and the problems first).
    public static func html(for entries: [Entry], problems: [Problem] = [], pageFile: String = "index.html",
                            title: String = "FrameFarm contact sheet") -> String {
        var page = head(title: title) + "<p>\(entries.count) video\(entries.count == 1 ? "" : "s")</p>\n"
        page += problemList(problems) { _ in pageFile }
        for entry in entries { page += section(entry) }
        return page + "</body>\n</html>\n"
    }

    private static func head(title: String) -> String {
        """
        <!DOCTYPE html>
        <html lang="en">
        <head>
        <meta charset="utf-8">
        <title>\(escape(title))</title>
        <style>
        body { font: 14px/1.4 system-ui, sans-serif; margin: 24px; background: #f4f4f6; color: #1d1d1f; }
        section { background: #fff; border-radius: 12px; padding: 16px 20px; margin-bottom: 24px; }
        h2 { margin: 0 0 4px; font-size: 20px; } .path { color: #6e6e73; word-break: break-all; }
        .facts { color: #3a3a3c; margin: 8px 0; } .warning { background: #fff4ce; border-radius: 8px; padding: 8px 12px; }
        .lint { list-style: none; padding: 0; } .lint li { margin: 4px 0; } .lint li.error { background: #fde2e1; border-radius: 8px; padding: 8px 12px; }
        .problems li { margin: 2px 0; } .failed { color: #b3261e; font-weight: 600; }
        .grid { display: grid; grid-template-columns: repeat(auto-fill, minmax(220px, 1fr)); gap: 16px; margin-top: 12px; }
        figure { margin: 0; } figure img { width: 100%; height: auto; background: #000; border-radius: 6px; }
        figcaption { font-size: 12px; color: #3a3a3c; } .default { color: #0a7d32; font-weight: 600; }
        .sheets img { max-width: 100%; margin: 4px 0; } .poster img { max-width: 480px; width: 100%; }
        </style>
        </head>
        <body>
        <h1>\(escape(title))</h1>

        """
    }

    /// The problems as a list, each linked to its entry on `page(folder)` when it has one.
    private static func problemList(_ problems: [Problem], page: (String) -> String?) -> String {
        guard !problems.isEmpty else { return "" }
        var html = "<section class=\"problems\">\n<h2>\(problems.count) problem\(problems.count == 1 ? "" : "s")</h2>\n<ul>\n"
        for problem in problems {
            let name = problem.folder.flatMap { folder in
                page(folder).map { "<a href=\"\($0)#\(pathComponentEscaped(folder))\">\(escape(problem.path))</a>" }
            } ?? "<span class=\"failed\">\(escape(problem.path))</span>"
            html += "<li>\(name): \(escape(problem.text))</li>\n"
        }
        return html + "</ul>\n</section>\n"
    }

    private static func section(_ entry: Entry) -> String {
        let probe = entry.manifest.probe
        let base = pathComponentEscaped(entry.folder)
        var html = "<section id=\"\(escape(entry.folder))\">\n<h2>\(escape(entry.folder))</h2>\n"
        html += "<div class=\"path\">\(escape(entry.manifest.input.path))</div>\n"
        html += "<div class=\"facts\">\(probe.displayWidth)x\(probe.displayHeight) display "
        html += "(coded \(probe.codedWidth)x\(probe.codedHeight), SAR \(escape(probe.sampleAspectRatio)), rotation \(probe.rotation)), "
        html += "\(escape(probe.codec)), \(String(format: "%.2f", probe.durationSeconds)) s, "
        html += "\(probe.aspectClass.rawValue) \(String(format: "%.2f", probe.contentAspectRatio)):1, default mode \(probe.defaultMode.rawValue)"
        if probe.interlaced == true { html += ", interlaced (shown from its first field)" }
        // The renders are SDR: say so, or an HDR master looks different here than on an HDR screen.
        if probe.isHDR {
            html += ", HDR (\(probe.colorTransfer.rawValue.uppercased())), shown tone-mapped to SDR"
        }
        html += "</div>\n"
        if probe.paddingDetected {
            let rect = probe.contentRect
            html += "<p class=\"warning\">Baked-in padding: the picture is \(rect.width)x\(rect.height) of the "
            html += "\(probe.displayWidth)x\(probe.displayHeight) frame. Deliver video at its original aspect ratio; "
            html += "padding makes the picture smaller in both modes and breaks edge-to-edge contexts such as Picture in Picture.</p>\n"
        }
        if let partial = probe.partialPadding {
            let rect = partial.contentRect
            html += "<p class=\"warning\">Bars in part of the video (about \(Int((partial.share * 100).rounded()))% of it): "
            html += "the picture is \(rect.width)x\(rect.height) there. Not removed, since the rest of the video fills the frame.</p>\n"
        }
        // Padding has its paragraph above; infos are facts the line above gives.
        let findings = (entry.manifest.lint ?? []).filter { $0.severity >= .warning && $0.rule != .bakedInPadding }
        if !findings.isEmpty {
            html += "<ul class=\"lint\">\n"
            for finding in findings {
                html += "<li class=\"\(finding.severity.rawValue)\">\(finding.severity.rawValue) "
                html += "<code>\(finding.rule.rawValue)</code>: \(escape(finding.message))</li>\n"
            }
            html += "</ul>\n"
        }
        if let preview = entry.manifest.preview {
            html += "<h3>Preview at \(String(format: "%.3f", preview.frameTimeSeconds)) s (\(escape(preview.frameChoice)))"
            html += preview.paddingRemoved ? ", padding removed" : ""
            html += "</h3>\n<div class=\"grid\">\n"
            for render in preview.renders {
                let link = "\(base)/\(pathComponentEscaped(render.file))"
                html += "<figure><a href=\"\(link)\"><img src=\"\(link)\" loading=\"lazy\" alt=\"\(escape(render.deviceName)) \(render.orientation.rawValue) \(render.mode.rawValue)\"></a>"
                html += "<figcaption>\(escape(render.deviceName)), \(render.orientation.rawValue), <b>\(render.mode.rawValue)</b>"
                if render.isDefault { html += " <span class=\"default\">default</span>" }
                html += "<br>crops \(percent(render.croppedFraction.area)) of the picture, "
                html += "\(percent(render.fractionOutsideSafeArea)) outside the safe area</figcaption></figure>\n"
            }
            html += "</div>\n"
        }
        if let thumbnails = entry.manifest.thumbnails {
            html += "<h3>Thumbnails: \(thumbnails.count) of \(thumbnails.tileWidth)x\(thumbnails.tileHeight), "
            html += "every \(String(format: "%.3f", thumbnails.intervalSeconds)) s</h3>\n<p>"
            html += thumbnails.manifests.map { "<a href=\"\(base)/\(pathComponentEscaped($0))\">\(escape($0))</a>" }.joined(separator: " · ")
            for track in thumbnails.moreWidths ?? [] {
                html += "</p>\n<p>Also \(track.tileWidth)x\(track.tileHeight): "
                html += (track.manifests + track.sheets).map { "<a href=\"\(base)/\(pathComponentEscaped($0))\">\(escape($0))</a>" }
                    .joined(separator: " · ")
            }
            html += "</p>\n<div class=\"sheets\">\n"
            for sheet in thumbnails.sheets {
                html += "<a href=\"\(base)/\(pathComponentEscaped(sheet))\"><img src=\"\(base)/\(pathComponentEscaped(sheet))\" loading=\"lazy\" alt=\"\(escape(sheet))\"></a>\n"
            }
            html += "</div>\n"
        }
        if let poster = entry.manifest.poster, let first = poster.files.first {
            html += "<h3>Poster at \(String(format: "%.3f", poster.timeSeconds)) s</h3>\n"
            html += "<div class=\"poster\"><a href=\"\(base)/\(pathComponentEscaped(first.file))\"><img src=\"\(base)/\(pathComponentEscaped(first.file))\" alt=\"poster\"></a></div>\n"
        }
        return html + "</section>\n"
    }

    private static func percent(_ fraction: Double) -> String { String(format: "%.1f%%", fraction * 100) }

    static func escape(_ text: String) -> String { MarkupEscaping.escaped(text) }

    /// Percent-escapes each path component for use in href/src, keeping the slashes.
    static func pathComponentEscaped(_ path: String) -> String {
        var allowed = CharacterSet.urlPathAllowed
        allowed.remove(charactersIn: "?#")
        return path.split(separator: "/", omittingEmptySubsequences: false)
            .map { escape(String($0).addingPercentEncoding(withAllowedCharacters: allowed) ?? String($0)) }
            .joined(separator: "/")
    }
}
