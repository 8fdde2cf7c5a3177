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

    public static func html(for entries: [Entry], title: String = "FrameFarm contact sheet") -> String {
        var page = """
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
            .grid { display: grid; grid-template-columns: repeat(auto-fill, minmax(220px, 1fr)); gap: 16px; margin-top: 12px; }
            figure { margin: 0; } figure img { width: 100%; height: auto; background: #000; border-radius: 6px; }
            figcaption { font-size: 12px; color: #3a3a3c; } .default { color: #0a7d32; font-weight: 600; }
            .sheets img { max-width: 100%; margin: 4px 0; } .poster img { max-width: 480px; width: 100%; }
            </style>
            </head>
            <body>
            <h1>\(escape(title))</h1>
            <p>\(entries.count) video\(entries.count == 1 ? "" : "s")</p>

            """
        for entry in entries { page += section(entry) }
        page += "</body>\n</html>\n"
        return page
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
