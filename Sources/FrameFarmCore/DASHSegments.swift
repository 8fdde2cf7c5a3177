import Foundation

/// One representation's segment information as DASH inherits it (period, adaptation set, representation: lower
/// levels override attributes and replace timelines and lists), turned into the addresses of its segments.
struct SegmentContext {
    var representationID: String
    var bandwidth: Int?
    /// The representation's BaseURL, resolved: what its segment addresses are relative to.
    var base: String
    var manifest: String
    var periodSeconds: Double?
    /// Period, adaptation set, representation.
    var levels: [MarkupNode]

    /// A manifest listing more segments than this (a `@r` or an `@endNumber` gone wrong) is refused.
    static let mostSegments = 1_000_000

    private struct Information {
        var attributes: [String: String] = [:]
        var timeline: [MarkupNode]?
        var initialization: MarkupNode?
        var urls: [MarkupNode] = []
    }

    func media() throws(DASHManifestError) -> DASHManifest.Media {
        if let template = merged("SegmentTemplate") { return try templated(template) }
        if let list = merged("SegmentList") { return try listed(list) }
        guard base != manifest else {
            throw DASHManifestError("it names no media (no BaseURL, SegmentTemplate or SegmentList)")
        }
        // SegmentBase, or a BaseURL alone: one file, whose index (sidx, Cues) the demuxer reads itself.
        return .file(DASHManifest.Part(location: base))
    }

    private func merged(_ kind: String) -> Information? {
        var information: Information?
        for level in levels {
            guard let node = level.child(kind) else { continue }
            var merged = information ?? Information()
            merged.attributes.merge(node.attributes) { $1 }
            if let timeline = node.child("SegmentTimeline") { merged.timeline = timeline.children("S") }
            if let initialization = node.child("Initialization") { merged.initialization = initialization }
            if !node.children("SegmentURL").isEmpty { merged.urls = node.children("SegmentURL") }
            information = merged
        }
        return information
    }

    private func templated(_ information: Information) throws(DASHManifestError) -> DASHManifest.Media {
        let attributes = information.attributes
        let timescale = try Self.integer(attributes, "timescale") ?? 1
        let startNumber = try Self.integer(attributes, "startNumber") ?? 1
        let offset = try Self.integer(attributes, "presentationTimeOffset") ?? 0
        guard timescale > 0 else { throw DASHManifestError("@timescale=\"\(timescale)\" is not positive") }
        guard let media = attributes["media"] else { throw DASHManifestError("its SegmentTemplate has no @media") }
        let initialization = try (attributes["initialization"] ?? information.initialization?.attributes["sourceURL"])
            .map { template throws(DASHManifestError) in DASHManifest.Part(location: try address(template, number: nil, time: nil)) }
        let entries: [(time: Int, duration: Int)]
        if let timeline = information.timeline {
            entries = try self.timeline(timeline, timescale: timescale, offset: offset)
        } else if let duration = try Self.integer(attributes, "duration") {
            guard duration > 0 else { throw DASHManifestError("@duration=\"\(duration)\" is not positive") }
            let count: Int
            if let endNumber = try Self.integer(attributes, "endNumber") {
                count = endNumber - startNumber + 1
            } else if let periodSeconds {
                count = Int((periodSeconds * Double(timescale) / Double(duration) - 1e-6).rounded(.up))
            } else {
                throw DASHManifestError("neither the manifest nor its period says how long it is, so its segments cannot be counted")
            }
            try Self.check(count: count)
            entries = (0..<count).map { (offset + $0 * duration, duration) }
        } else {
            throw DASHManifestError("its SegmentTemplate has neither @duration nor a SegmentTimeline")
        }
        var segments: [DASHManifest.Segment] = []
        for (index, entry) in entries.enumerated() {
            guard let seconds = presented(entry, timescale: timescale, offset: offset) else { continue }
            let location = try address(media, number: startNumber + index, time: entry.time)
            segments.append(DASHManifest.Segment(part: DASHManifest.Part(location: location), seconds: seconds))
        }
        try Self.check(count: segments.count)
        return .segments(initialization: initialization, segments)
    }

    /// The seconds of a segment (`entry`, in `timescale` units of media time) that its period shows: media time less
    /// `@presentationTimeOffset` (`offset`) is the time from the period's start, and the period shows from its start
    /// for its duration (ISO/IEC 23009-1 7.2.1). A segment that begins before the offset (a period cut out of a
    /// programme mid-segment, as ad insertion cuts it) or ends after the period is shown in part; nil for one
    /// wholly outside.
    private func presented(_ entry: (time: Int, duration: Int), timescale: Int, offset: Int) -> Double? {
        let scale = Double(timescale), start = entry.time - offset, end = start + entry.duration
        let periodEnd = periodSeconds.map { $0 * scale } ?? .infinity
        // In whole units where nothing is cut, so that durations stay exact.
        if start >= 0, Double(end) <= periodEnd + 1e-6 { return Double(entry.duration) / scale }
        let seconds = (min(Double(end), periodEnd) - Double(max(start, 0))) / scale
        return seconds > 1e-6 ? seconds : nil
    }

    /// `@presentationTimeOffset` in seconds: the media time at which the period starts.
    var presentationTimeOffset: Double {
        guard let attributes = (merged("SegmentTemplate") ?? merged("SegmentList"))?.attributes,
              let offset = try? Self.integer(attributes, "presentationTimeOffset"),
              let timescale = try? Self.integer(attributes, "timescale") ?? 1, timescale > 0 else { return 0 }
        return Double(offset) / Double(timescale)
    }

    private func listed(_ information: Information) throws(DASHManifestError) -> DASHManifest.Media {
        let attributes = information.attributes
        var timescale = try Self.integer(attributes, "timescale") ?? 1
        guard timescale > 0 else { throw DASHManifestError("@timescale=\"\(timescale)\" is not positive") }
        guard !information.urls.isEmpty else { throw DASHManifestError("its SegmentList lists no SegmentURL") }
        let initialization = try information.initialization.map { node throws(DASHManifestError) in
            DASHManifest.Part(location: node.attributes["sourceURL"].map { DASHManifest.resolve($0, against: base) } ?? base,
                              byteRange: try Self.byteRange(node.attributes["range"]))
        }
        let count = information.urls.count
        var offset = try Self.integer(attributes, "presentationTimeOffset") ?? 0
        var entries: [(time: Int, duration: Int)]
        if let timeline = information.timeline {
            entries = try self.timeline(timeline, timescale: timescale, offset: offset)
        } else if let duration = try Self.integer(attributes, "duration"), duration > 0 {
            entries = (0..<count).map { (offset + $0 * duration, duration) }
        } else if let periodSeconds {
            // Equal shares of the period, in microseconds.
            let share = Int((periodSeconds / Double(count) * 1_000_000).rounded())
            (timescale, offset, entries) = (1_000_000, 0, (0..<count).map { ($0 * share, share) })
        } else {
            throw DASHManifestError("its SegmentList gives no segment durations")
        }
        guard entries.count >= count else {
            throw DASHManifestError("its SegmentTimeline has \(entries.count) segments for \(count) SegmentURLs")
        }
        var segments: [DASHManifest.Segment] = []
        for (index, node) in information.urls.enumerated() {
            guard let seconds = presented(entries[index], timescale: timescale, offset: offset) else { continue }
            let location = node.attributes["media"].map { DASHManifest.resolve($0, against: base) } ?? base
            let part = DASHManifest.Part(location: location, byteRange: try Self.byteRange(node.attributes["mediaRange"]))
            segments.append(DASHManifest.Segment(part: part, seconds: seconds))
        }
        try Self.check(count: segments.count)
        return .segments(initialization: initialization, segments)
    }

    /// A SegmentTimeline's segments as (start, duration) in timescale units. `@t` defaults to where the previous
    /// one ended (the first to 0, as ISO/IEC 23009-1 5.3.9.6 says); `@r="-1"` repeats up to the next `S`, or to the
    /// period's end (the presentation time offset plus the period's duration).
    private func timeline(_ entries: [MarkupNode], timescale: Int, offset: Int) throws(DASHManifestError) -> [(time: Int, duration: Int)] {
        var result: [(time: Int, duration: Int)] = []
        var next = 0
        for (index, entry) in entries.enumerated() {
            let time = try Self.integer(entry.attributes, "t") ?? next
            guard let duration = try Self.integer(entry.attributes, "d"), duration > 0 else {
                throw DASHManifestError("a SegmentTimeline S has no positive @d")
            }
            var repeats = try Self.integer(entry.attributes, "r") ?? 0
            if repeats < 0 {
                let end: Int
                if index + 1 < entries.count, let following = try Self.integer(entries[index + 1].attributes, "t") {
                    end = following
                } else if let periodSeconds {
                    end = offset + Int((periodSeconds * Double(timescale)).rounded())
                } else {
                    throw DASHManifestError("a SegmentTimeline repeats to the period's end, which the manifest does not give")
                }
                repeats = Int((Double(end - time) / Double(duration) - 1e-6).rounded(.up)) - 1
            }
            try Self.check(count: result.count + repeats + 1)
            for step in 0...max(0, repeats) { result.append((time + step * duration, duration)) }
            next = time + (max(0, repeats) + 1) * duration
        }
        return result
    }

    /// A template expanded for one segment and resolved against the representation's base.
    private func address(_ template: String, number: Int?, time: Int?) throws(DASHManifestError) -> String {
        DASHManifest.resolve(try Self.expand(template, representationID: representationID, bandwidth: bandwidth,
                                             number: number, time: time), against: base)
    }

    /// A SegmentTemplate's `@media` or `@initialization` with its identifiers replaced: `$RepresentationID$`,
    /// `$Number$`, `$Time$`, `$Bandwidth$` (the last three with an optional `%0Nd` width) and `$$`.
    static func expand(_ template: String, representationID: String, bandwidth: Int?, number: Int?,
                       time: Int?) throws(DASHManifestError) -> String {
        var result = ""
        var rest = Substring(template)
        while let dollar = rest.firstIndex(of: "$") {
            result += rest[..<dollar]
            let after = rest[rest.index(after: dollar)...]
            guard let close = after.firstIndex(of: "$") else { throw DASHManifestError("template '\(template)' has an unclosed $") }
            let identifier = after[..<close]
            rest = after[after.index(after: close)...]
            if identifier.isEmpty {
                result += "$"
                continue
            }
            let pieces = identifier.split(separator: "%", maxSplits: 1, omittingEmptySubsequences: false)
            let value: Int?
            switch pieces[0] {
            case "RepresentationID" where pieces.count == 1:
                result += representationID
                continue
            case "Number": value = number
            case "Time": value = time
            case "Bandwidth": value = bandwidth
            default: throw DASHManifestError("template '\(template)' has an identifier DASH does not define: $\(identifier)$")
            }
            guard let value else { throw DASHManifestError("template '\(template)' uses $\(pieces[0])$ where it has no value") }
            var width = 1
            if pieces.count == 2 {
                let format = pieces[1]
                guard format.hasSuffix("d"), let digits = Int(format.dropLast().isEmpty ? "1" : format.dropLast()), digits > 0,
                      digits <= 32 else {
                    throw DASHManifestError("template '\(template)' has a width DASH does not define: %\(format)")
                }
                width = digits
            }
            let digits = String(value)
            result += String(repeating: "0", count: max(0, width - digits.count)) + digits
        }
        return result + rest
    }

    private static func integer(_ attributes: [String: String], _ name: String) throws(DASHManifestError) -> Int? {
        guard let text = attributes[name] else { return nil }
        guard let value = Int(text.trimmingCharacters(in: .whitespaces)) else {
            throw DASHManifestError("@\(name)=\"\(text)\" is not a whole number")
        }
        return value
    }

    /// `first-last`, as `@range` and `@mediaRange` write a byte range.
    private static func byteRange(_ text: String?) throws(DASHManifestError) -> ClosedRange<Int>? {
        guard let text else { return nil }
        let bounds = text.split(separator: "-").compactMap { Int($0.trimmingCharacters(in: .whitespaces)) }
        guard bounds.count == 2, bounds[0] >= 0, bounds[0] <= bounds[1] else {
            throw DASHManifestError("byte range '\(text)' is not first-last")
        }
        return bounds[0]...bounds[1]
    }

    private static func check(count: Int) throws(DASHManifestError) {
        guard count <= mostSegments else { throw DASHManifestError("it lists more than \(mostSegments) segments") }
        guard count > 0 else { throw DASHManifestError("it lists no segments") }
    }
}

extension DASHManifest.Representation {
    /// The representation as an HLS media playlist (RFC 8216): its segments with their durations and byte ranges,
    /// its initialization segment as `EXT-X-MAP`; nil for a one-file representation. Addresses are written as they
    /// are, with `"`, and what a line break could break, percent-escaped.
    public var hlsMediaPlaylist: String? { Self.hlsMediaPlaylist(joining: [self]) }

    /// Representations of consecutive periods as one HLS media playlist, each after the first behind
    /// `#EXT-X-DISCONTINUITY` (its timestamps and codec parameters are its own), with its own `#EXT-X-MAP`;
    /// nil when one of them is one file.
    public static func hlsMediaPlaylist(joining periods: [Self]) -> String? {
        func uri(_ location: String) -> String {
            location.unicodeScalars.map { $0 == "\"" || $0.value < 0x20 || $0.value == 0x7F ? String(format: "%%%02X", $0.value) : String($0) }
                .joined()
        }
        func range(_ range: ClosedRange<Int>) -> String { "\(range.count)@\(range.lowerBound)" }
        var longest = 0.0, lines: [String] = []
        for (index, representation) in periods.enumerated() {
            guard case .segments(let initialization, let segments) = representation.media else { return nil }
            if index > 0 { lines.append("#EXT-X-DISCONTINUITY") }
            if let initialization {
                lines.append("#EXT-X-MAP:URI=\"\(uri(initialization.location))\""
                             + (initialization.byteRange.map { ",BYTERANGE=\"\(range($0))\"" } ?? ""))
            }
            for segment in segments {
                lines.append(String(format: "#EXTINF:%.6f,", segment.seconds))
                if let byteRange = segment.part.byteRange { lines.append("#EXT-X-BYTERANGE:\(range(byteRange))") }
                lines.append(uri(segment.part.location))
            }
            longest = max(longest, segments.map(\.seconds).max() ?? 0)
        }
        lines.insert(contentsOf: ["#EXTM3U", "#EXT-X-VERSION:7", "#EXT-X-TARGETDURATION:\(max(1, Int(longest.rounded(.up))))",
                                  "#EXT-X-MEDIA-SEQUENCE:0", "#EXT-X-PLAYLIST-TYPE:VOD"], at: 0)
        lines.append("#EXT-X-ENDLIST")
        return lines.joined(separator: "\n") + "\n"
    }
}
