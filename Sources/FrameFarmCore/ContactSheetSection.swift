import Foundation

/// One video's section of the review page.
extension ContactSheetWriter {
    static func section(_ entry: Entry) -> String {
        let manifest = entry.manifest
        let flags = flags(of: entry).map(\.rawValue).joined(separator: " ")
        let searchable = (entry.folder + " " + manifest.input.path).lowercased()
        var html = "<section id=\"\(anchor(entry.folder))\" class=\"item video\" tabindex=\"-1\" data-flags=\"\(flags)\" "
        html += "data-name=\"\(escape(searchable))\">\n<h2><bdi>\(escape(entry.folder))</bdi></h2>\n"
        html += "<div class=\"path\"><bdi>\(escape(manifest.input.path))</bdi></div>\n"
        if let failure = entry.lastRunFailure {
            html += "<p class=\"warning\">The last run failed (\(escape(failure))): what follows is an earlier run's.</p>\n"
        }
        if entry.unlisted {
            html += "<p class=\"warning\">Not in the list given to <code>report</code>: these outputs stay until "
            html += "<code>report --prune</code>.</p>\n"
        }
        if entry.changedSinceMade {
            html += "<p class=\"warning\">The input changed or is gone since these outputs were made.</p>\n"
        } else if let stale = manifest.staleSections {
            html += "<p class=\"warning\">\(escape(staleText(stale, sentence: true)))</p>\n"
        }
        html += facts(manifest.probe, barsKept: manifest.preview?.settings["removePadding"] == "off") + warnings(manifest)
        html += timeline(entry)
        if let preview = manifest.preview { html += renders(preview, folder: entry.folder, probe: manifest.probe) }
        if let thumbnails = manifest.thumbnails { html += sheets(thumbnails, folder: entry.folder) }
        if let poster = manifest.poster, let first = poster.files.first {
            let link = link(first.file, in: entry.folder)
            // The smallest copy at least `PreviewRender.reviewSide` wide on the page (a 4K poster weighs megabytes).
            let shown = poster.files.filter { $0.width >= PreviewRender.reviewSide }.min { $0.width < $1.width } ?? first
            html += "<h3>Poster at \(String(format: "%.3f", poster.timeSeconds)) s</h3>\n"
            html += "<div class=\"poster\"><a href=\"\(link)\"><img src=\"\(Self.link(shown.file, in: entry.folder))\" loading=\"lazy\" "
            html += "alt=\"Poster of \(escape(entry.folder)), the frame at \(String(format: "%.3f", poster.timeSeconds)) s\"></a></div>\n"
        }
        return html + "</section>\n"
    }

    /// `barsKept`: the renders keep the baked-in bars (`--remove-padding off`), so they place the whole frame,
    /// whose default mode may differ from the picture's.
    private static func facts(_ probe: ProbeReport, barsKept: Bool) -> String {
        var html = "<div class=\"facts\">\(probe.displayWidth)x\(probe.displayHeight) display "
        html += "(coded \(probe.codedWidth)x\(probe.codedHeight), SAR \(escape(probe.sampleAspectRatio)), rotation \(probe.rotation)), "
        html += "\(escape(probe.codec)), \(String(format: "%.2f", probe.durationSeconds)) s, "
        html += "\(probe.aspectClass.rawValue) \(String(format: "%.2f", probe.contentAspectRatio)):1, default mode \(probe.defaultMode.rawValue)"
        if barsKept, probe.paddingDetected {
            let frame = PixelSize(width: probe.displayWidth, height: probe.displayHeight)
            html += " (the renders keep the bars: the whole \(String(format: "%.2f", probe.aspectRatio)):1 frame, default mode "
                + "\(ProbeReport.defaultMode(of: frame, policy: probe.policy).rawValue))"
        }
        if probe.interlaced == true { html += ", interlaced (shown from its first field)" }
        // The renders are SDR: say so, or an HDR master looks different here than on an HDR screen.
        if probe.isHDR {
            html += ", HDR (\(probe.colorTransfer.rawValue.uppercased())), shown tone-mapped to SDR"
        }
        return html + "</div>\n"
    }

    private static func warnings(_ manifest: VideoManifest) -> String {
        let probe = manifest.probe
        var html = ""
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
        for warning in manifest.warnings { html += "<p class=\"warning\">\(escape(warning))</p>\n" }
        // Padding has its paragraph above; infos are facts the line above gives.
        let findings = (manifest.lint ?? []).filter { $0.severity >= .warning && $0.rule != .bakedInPadding }
        guard !findings.isEmpty else { return html }
        html += "<ul class=\"lint\">\n"
        for finding in findings {
            html += "<li class=\"\(finding.severity.rawValue)\">\(finding.severity.rawValue) "
            html += "<code>\(finding.rule.rawValue)</code>: \(escape(finding.message))</li>\n"
        }
        return html + "</ul>\n"
    }

    /// The scrub bar: the track's cues as data, read by the page's script, so it works from `file://` too. Every
    /// tile of a track is `data-tile` in size. `data-cues` holds runs of cues, each `start ms, duration ms, sheet
    /// index, x, y, count`: `count` cues of that duration one after another, each the tile right of the one
    /// before (a row of a sheet). A 2-hour track at one tile every 10 s then takes 2 KB of page, not 18.
    private static func timeline(_ entry: Entry) -> String {
        guard let first = entry.thumbnailCues.first else { return "" }
        var sheets: [String] = []
        var sheetIndex: [String: Int] = [:]
        var runs: [[Int]] = []
        for cue in entry.thumbnailCues {
            let index = sheetIndex[cue.image] ?? {
                sheets.append(link(cue.image, in: entry.folder))
                sheetIndex[cue.image] = sheets.count - 1
                return sheets.count - 1
            }()
            let duration = cue.endMilliseconds - cue.startMilliseconds
            if let run = runs.last, run[0] + run[1] * run[5] == cue.startMilliseconds, run[1] == duration,
               run[2] == index, run[3] + first.tileRect.width * run[5] == cue.tileRect.x, run[4] == cue.tileRect.y {
                runs[runs.count - 1][5] += 1
            } else {
                runs.append([cue.startMilliseconds, duration, index, cue.tileRect.x, cue.tileRect.y, 1])
            }
        }
        let numbers = runs.joined()
        let name = escape(entry.folder)
        var html = "<h3>Timeline</h3>\n<div class=\"scrub\" data-tile=\"\(first.tileRect.width)x\(first.tileRect.height)\" "
        html += "data-sheets=\"\(sheets.joined(separator: " "))\" data-cues=\"\(numbers.map(String.init).joined(separator: ","))\""
        switch entry.source {
        case .relativePath(let path): html += " data-source=\"\(pathComponentEscaped(path))\""
        case .url(let url): html += " data-source=\"\(escape(url))\""
        case nil: break
        }
        html += ">\n<div class=\"tile\" role=\"img\" aria-label=\"Thumbnail of \(name)\" "
        html += "style=\"width:\(first.tileRect.width)px;height:\(first.tileRect.height)px\"></div>\n"
        html += "<div class=\"bar\"><div class=\"timeline\" tabindex=\"0\" role=\"slider\" aria-label=\"Timeline of \(name)\" "
        html += "aria-valuemin=\"0\" aria-valuenow=\"0\"><div class=\"cursor\"></div></div>\n"
        html += "<output class=\"time\">0:00.000</output> <span class=\"hint\">click to play from there</span></div>\n"
        html += "<p class=\"player-status\" role=\"status\"></p>\n<video controls preload=\"none\" hidden></video>\n</div>\n"
        return html
    }

    /// The renders grouped by device, fit next to fill in each orientation, with the safe area and what fill
    /// crops as overlays the section's toggles show.
    private static func renders(_ preview: PreviewSection, folder: String, probe: ProbeReport) -> String {
        var html = "<h3>Preview at \(String(format: "%.3f", preview.frameTimeSeconds)) s (\(escape(preview.frameChoice)))"
        html += preview.paddingRemoved ? ", padding removed" : ""
        html += "</h3>\n<div class=\"toggles\"><label><input type=\"checkbox\" class=\"show-safe-area\"> safe area</label> "
        html += "<label><input type=\"checkbox\" class=\"show-crop\"> what fill crops</label>"
        if preview.paddingDetected {
            html += " <label><input type=\"checkbox\" class=\"show-picture\"> "
            html += preview.paddingRemoved ? "the picture had its padding been kept</label>" : "the picture inside the padding</label>"
        }
        html += "</div>\n<div class=\"devices\">\n"
        var devices: [String] = []
        var rendersOfDevice: [String: [PreviewRender]] = [:]
        for render in preview.renders {
            if rendersOfDevice[render.device] == nil { devices.append(render.device) }
            rendersOfDevice[render.device, default: []].append(render)
        }
        for device in devices {
            // Each orientation's modes side by side, fit first (the order of `ViewingMode.allCases`).
            let order = { (render: PreviewRender) in (render.orientation.rawValue, ViewingMode.allCases.firstIndex(of: render.mode)!) }
            let renders = rendersOfDevice[device]!.sorted { order($0) < order($1) }
            html += "<div class=\"device\"><h4>\(escape(renders[0].deviceName))</h4>\n<div class=\"modes\">\n"
            for render in renders { html += figure(render, preview: preview, folder: folder, probe: probe) }
            html += "</div></div>\n"
        }
        return html + "</div>\n"
    }

    private static func figure(_ render: PreviewRender, preview: PreviewSection, folder: String, probe: ProbeReport) -> String {
        let link = link(render.file, in: folder)
        let screen = (width: Double(render.screenWidth), height: Double(render.screenHeight))
        var html = "<figure><div class=\"screen\" style=\"aspect-ratio:\(render.screenWidth)/\(render.screenHeight)\">"
        // The review copy on the page, the render itself a click away.
        html += "<a href=\"\(link)\"><img src=\"\(Self.link(render.reviewFile ?? render.file, in: folder))\" loading=\"lazy\" "
        html += "alt=\"\(escape(render.deviceName)) "
        html += "\(render.orientation.rawValue), \(render.mode.rawValue)\(render.isDefault ? " (default)" : "")\"></a>"
        html += overlay("safe-area", render.safeArea.pixelRect, on: screen)
        // The whole picture where the screen would show it: what lies outside the screen is what fill crops.
        let crop = render.sourceCrop
        if crop.width > 0, crop.height > 0, render.croppedFraction.area > 0 {
            let scaleX = Double(render.destination.width) / crop.width, scaleY = Double(render.destination.height) / crop.height
            let whole = SourceRect(x: Double(render.destination.x) - crop.x * scaleX, y: Double(render.destination.y) - crop.y * scaleY,
                                   width: Double(preview.contentRect.width) * scaleX, height: Double(preview.contentRect.height) * scaleY)
            html += overlay("crop", whole, on: screen)
        }
        // With padding found: the picture inside the bars the render kept, or where the picture would have been
        // had the render kept its bars.
        if preview.paddingDetected {
            html += overlay("picture", pictureRect(render, preview: preview, probe: probe), on: screen)
        }
        html += "</div><figcaption>\(render.orientation.rawValue), <b>\(render.mode.rawValue)</b>"
        if render.isDefault { html += " <span class=\"default\">default</span>" }
        html += "<br>crops \(percent(render.croppedFraction.area)) of the picture, "
        html += "\(percent(render.fractionOutsideSafeArea)) outside the safe area</figcaption></figure>\n"
        return html
    }

    /// Where the picture without its baked-in padding (the probe's content rect, in display pixels) lies on the
    /// render's screen: in a render that kept the padding, inside what it drew; in one that removed it, where the
    /// whole frame, placed by the same rule on the same screen, would have shown it.
    static func pictureRect(_ render: PreviewRender, preview: PreviewSection, probe: ProbeReport) -> SourceRect {
        var origin = (x: Double(preview.contentRect.x), y: Double(preview.contentRect.y))
        var crop = render.sourceCrop, destination = SourceRect(render.destination.pixelRect)
        if preview.paddingRemoved {
            let screen = PixelSize(width: render.screenWidth, height: render.screenHeight), safe = render.safeArea
            let insets = PixelInsets(top: safe.y, left: safe.x, bottom: screen.height - safe.y - safe.height,
                                     right: screen.width - safe.x - safe.width)
            let whole = Placement(content: PixelSize(width: probe.displayWidth, height: probe.displayHeight), screen: screen,
                                  safeAreaInsets: insets, mode: render.mode,
                                  region: preview.settings["fitWithin"].flatMap(FitRegion.init(rawValue:)) ?? .screen)
            (origin, crop, destination) = ((0, 0), whole.sourceCrop, SourceRect(whole.destination))
        }
        let content = probe.contentRect
        let scaleX = destination.width / max(crop.width, 1), scaleY = destination.height / max(crop.height, 1)
        return SourceRect(x: destination.x + (Double(content.x) - origin.x - crop.x) * scaleX,
                          y: destination.y + (Double(content.y) - origin.y - crop.y) * scaleY,
                          width: Double(content.width) * scaleX, height: Double(content.height) * scaleY)
    }

    /// A box over the screen at `rect` (screen pixels), in percent so it scales with the image.
    private static func overlay(_ kind: String, _ rect: SourceRect, on screen: (width: Double, height: Double)) -> String {
        // Two decimals at most, trailing zeros dropped: the page stays small with many renders.
        func share(_ value: Double, _ of: Double) -> String {
            var text = String(format: "%.2f", value / of * 100)
            while text.hasSuffix("0") { text.removeLast() }
            if text.hasSuffix(".") { text.removeLast() }
            return (text == "-0" ? "0" : text) + "%"
        }
        return "<i class=\"\(kind)\" style=\"left:\(share(rect.x, screen.width));top:\(share(rect.y, screen.height));"
            + "width:\(share(rect.width, screen.width));height:\(share(rect.height, screen.height))\"></i>"
    }

    private static func overlay(_ kind: String, _ rect: PixelRect, on screen: (width: Double, height: Double)) -> String {
        overlay(kind, SourceRect(rect), on: screen)
    }

    private static func sheets(_ thumbnails: ThumbnailsSection, folder: String) -> String {
        var html = "<h3>Thumbnails: \(thumbnails.count) of \(thumbnails.tileWidth)x\(thumbnails.tileHeight), "
        html += "every \(String(format: "%.3f", thumbnails.intervalSeconds)) s</h3>\n<p>"
        html += thumbnails.manifests.map { "<a href=\"\(link($0, in: folder))\">\(escape($0))</a>" }.joined(separator: " · ")
        for track in thumbnails.moreWidths ?? [] {
            html += "</p>\n<p>Also \(track.tileWidth)x\(track.tileHeight): "
            html += (track.manifests + track.sheets).map { "<a href=\"\(link($0, in: folder))\">\(escape($0))</a>" }
                .joined(separator: " · ")
        }
        html += "</p>\n<details class=\"sheets\"><summary>\(thumbnails.sheets.count) sprite sheet\(thumbnails.sheets.count == 1 ? "" : "s")</summary>\n"
        for (number, sheet) in thumbnails.sheets.enumerated() {
            html += "<a href=\"\(link(sheet, in: folder))\"><img src=\"\(link(sheet, in: folder))\" loading=\"lazy\" "
            html += "alt=\"Sprite sheet \(number + 1) of \(escape(folder))\"></a>\n"
        }
        return html + "</details>\n"
    }

    /// A file of the video's folder, as a link from OUT.
    private static func link(_ file: String, in folder: String) -> String {
        pathComponentEscaped(folder) + "/" + pathComponentEscaped(file)
    }
}
