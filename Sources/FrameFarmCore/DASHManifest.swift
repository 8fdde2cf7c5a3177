import Foundation

/// A static DASH manifest (MPD) as FrameFarm reads it: the video representations of each period, each as the
/// addresses of its bytes. It gives their sizes before any is read (for `--rendition`), what a remote manifest
/// names (to refuse local files), and a one-file representation's file, which FrameFarm's own reader then reads.
///
/// What ISO/IEC 23009-1 allows for on-demand content is read: `BaseURL` at every level, each relative to the one
/// above (the first of several); `SegmentTemplate` (`$RepresentationID$`, `$Number$`, `$Time$`, `$Bandwidth$`,
/// with `%0Nd` widths) by `@duration` or by `SegmentTimeline` (including `@r="-1"`); `SegmentList` with
/// `SegmentURL`s and byte ranges; `SegmentBase` (one file, its index read by the demuxer); segment information
/// inherited from the period and adaptation set. Image (thumbnail) and trick-mode adaptation sets are not video.
public struct DASHManifest: Sendable, Equatable {
    /// Where some of a representation's bytes are: a file (a path or URL) and, when not all of it, a range.
    public struct Part: Sendable, Equatable {
        public var location: String
        public var byteRange: ClosedRange<Int>?

        public init(location: String, byteRange: ClosedRange<Int>? = nil) {
            self.location = location
            self.byteRange = byteRange
        }
    }

    /// A media segment and its duration.
    public struct Segment: Sendable, Equatable {
        public var part: Part
        public var seconds: Double

        public init(part: Part, seconds: Double) {
            self.part = part
            self.seconds = seconds
        }
    }

    /// How a representation's bytes are laid out.
    public enum Media: Sendable, Equatable {
        /// One file holding the whole representation (`SegmentBase`, or a `BaseURL` alone).
        case file(Part)
        /// An initialization segment (none for self-initializing segments) and the media segments in order.
        case segments(initialization: Part?, [Segment])
    }

    public struct Representation: Sendable, Equatable {
        public var id: String
        public var width: Int
        public var height: Int
        public var bandwidth: Int?
        public var media: Media
        /// Where its segments lie on the presentation's timeline.
        public var timing = PeriodTiming()
    }

    /// How a period's segments are placed on the presentation's timeline.
    public struct PeriodTiming: Sendable, Equatable {
        /// The media time, in seconds, at which the period starts (`@presentationTimeOffset`): the segments' own
        /// timestamps less this are times from the period's start.
        public var presentationTimeOffset = 0.0
        /// The seconds the period shows, where its segments were lengthened to reach the next period (`lasts`):
        /// its last picture holds for the rest.
        public var shownSeconds: Double?

        public init(presentationTimeOffset: Double = 0, shownSeconds: Double? = nil) {
            self.presentationTimeOffset = presentationTimeOffset
            self.shownSeconds = shownSeconds
        }
    }

    /// The video representations of the first period, in manifest order (the renditions `--rendition` picks among).
    public var representations: [Representation]
    /// The video representations of each later period (a manifest of several: advertisements or chapters joined).
    public var laterPeriods: [[Representation]] = []
    /// `@mediaPresentationDuration`, or the periods' durations; nil when the manifest gives neither.
    public var durationSeconds: Double?

    /// Reads the manifest `data`, found at `location` (a path or URL: relative addresses resolve against it).
    /// Throws, in words, for what is not a static manifest or names its segments in a way the standard does not
    /// allow; a manifest without video representations reads as none.
    /// The most `BaseURL`s one element lists: alternatives (several CDNs) that `baseURLChoice` picks among.
    public var baseURLAlternatives = 1

    /// `baseURLChoice` picks, where an element lists several `BaseURL`s, which one addresses resolve against
    /// (from 0; an element with fewer takes its last).
    public init(parsing data: Data, location: String, baseURLChoice: Int = 0) throws(DASHManifestError) {
        let root: MarkupNode
        do { root = try MarkupNode.parse(data) } catch { throw DASHManifestError(error.description) }
        guard root.name == "MPD" else { throw DASHManifestError("its root element is <\(root.name)>, not <MPD>") }
        if root.attributes["type"] == "dynamic" { throw DASHManifestError("a dynamic (live) manifest") }
        let periods = root.children("Period")
        guard !periods.isEmpty else { throw DASHManifestError("it has no Period") }
        let total = try root.attributes["mediaPresentationDuration"].map(Self.seconds(isoDuration:))
        // A period without `@start` follows the one before it (ISO/IEC 23009-1 5.3.2.1); one without `@duration`
        // lasts until the next starts, the last until the presentation ends.
        var starts: [Double?] = [], durations: [Double?] = []
        for period in periods {
            var previousEnd: Double? = starts.isEmpty ? 0 : nil
            if let start = starts.last ?? nil, let duration = durations.last ?? nil { previousEnd = start + duration }
            starts.append(try period.attributes["start"].map(Self.seconds(isoDuration:)) ?? previousEnd)
            durations.append(try period.attributes["duration"].map(Self.seconds(isoDuration:)))
        }
        for index in periods.indices where durations[index] == nil {
            let end = index + 1 < periods.count ? starts[index + 1] : total
            durations[index] = starts[index].flatMap { start in end.map { $0 - start } }
        }
        let base = Self.base(of: root, within: location, choice: baseURLChoice)
        baseURLAlternatives = Self.mostBaseURLs(under: root)
        var read: [[Representation]] = []
        for (index, (period, seconds)) in zip(periods, durations).enumerated() {
            var representations = try Self.videoRepresentations(of: period, within: base, manifest: location,
                                                                 periodSeconds: seconds, baseURLChoice: baseURLChoice)
            // A period's segments show until the next period starts: one that leaves a gap before the next, or
            // whose media ends early, holds its last picture, so that each period starts where the presentation
            // places it.
            if index + 1 < periods.count, let start = starts[index], let next = starts[index + 1] {
                for slot in representations.indices { representations[slot].lasts(next - start) }
            }
            read.append(representations)
        }
        representations = read[0]
        laterPeriods = Array(read.dropFirst())
        durationSeconds = total ?? durations.reduce(0 as Double?) { sum, seconds in sum.flatMap { sum in seconds.map { sum + $0 } } }
    }

    /// The video representations of `period`, whose addresses are relative to `base`.
    private static func videoRepresentations(of period: MarkupNode, within base: String, manifest location: String,
                                             periodSeconds: Double?, baseURLChoice choice: Int) throws(DASHManifestError) -> [Representation] {
        let periodBase = Self.base(of: period, within: base, choice: choice)
        var representations: [Representation] = []
        for adaptation in period.children("AdaptationSet") where Self.isVideo(adaptation) {
            let adaptationBase = Self.base(of: adaptation, within: periodBase, choice: choice)
            for node in adaptation.children("Representation") {
                let id = node.attributes["id"] ?? String(representations.count)
                let context = SegmentContext(
                    representationID: id, bandwidth: node.attributes["bandwidth"].flatMap { Int($0) },
                    base: Self.base(of: node, within: adaptationBase, choice: choice), manifest: location, periodSeconds: periodSeconds,
                    levels: [period, adaptation, node])
                let media: Media
                do { media = try context.media() } catch {
                    throw DASHManifestError("representation \(id): \(error.description)")
                }
                func size(_ name: String) -> Int { (node.attributes[name] ?? adaptation.attributes[name]).flatMap { Int($0) } ?? 0 }
                representations.append(Representation(id: id, width: size("width"), height: size("height"),
                                                      bandwidth: context.bandwidth, media: media,
                                                      timing: PeriodTiming(presentationTimeOffset: context.presentationTimeOffset)))
            }
        }
        return representations
    }

    /// Whether an adaptation set is the video itself: not audio, text, thumbnail images or a trick-mode track.
    private static func isVideo(_ set: MarkupNode) -> Bool {
        let properties = set.children("EssentialProperty") + set.children("SupplementalProperty")
        if properties.contains(where: { $0.attributes["schemeIdUri"]?.lowercased().contains("trickmode") == true }) { return false }
        let types = [set.attributes["contentType"], set.attributes["mimeType"]]
            + set.children("Representation").map { $0.attributes["mimeType"] }
        let declared = types.compactMap { $0?.lowercased() }
        if declared.contains(where: { $0.hasPrefix("video") }) { return true }
        return declared.isEmpty && set.children("Representation").contains { $0.attributes["width"] != nil }
    }

    /// The address `node`'s `BaseURL` gives (the `choice`th of several, else its last), relative to `base`;
    /// `base` when it has none.
    private static func base(of node: MarkupNode, within base: String, choice: Int) -> String {
        let alternatives = node.children("BaseURL")
        guard !alternatives.isEmpty,
              case let text = alternatives[min(choice, alternatives.count - 1)].text.trimmingCharacters(in: .whitespacesAndNewlines),
              !text.isEmpty else {
            return base
        }
        return resolve(text, against: base)
    }

    private static func mostBaseURLs(under node: MarkupNode) -> Int {
        node.children.reduce(max(1, node.children("BaseURL").count)) { max($0, mostBaseURLs(under: $1)) }
    }

    /// `reference` resolved against `base` (RFC 3986 for URLs; for a path, its folder), as a URL or a path.
    static func resolve(_ reference: String, against base: String) -> String {
        let lowered = base.lowercased()
        if lowered.hasPrefix("http://") || lowered.hasPrefix("https://") {
            // A reference with spaces or other characters a URL may not hold is taken as meant, escaped.
            let allowed = CharacterSet.urlFragmentAllowed.union(CharacterSet(charactersIn: "%#"))
            let escaped = URL(string: reference) != nil ? reference
                : reference.addingPercentEncoding(withAllowedCharacters: allowed) ?? reference
            return URL(string: escaped, relativeTo: URL(string: base))?.absoluteURL.absoluteString ?? reference
        }
        let referenceLowered = reference.lowercased()
        if referenceLowered.hasPrefix("http://") || referenceLowered.hasPrefix("https://") { return reference }
        if referenceLowered.hasPrefix("file:"), let path = URL(string: reference)?.path {
            return reference.hasSuffix("/") && !path.hasSuffix("/") ? path + "/" : path
        }
        if reference.hasPrefix("/") { return reference }
        let folder = base.hasSuffix("/") ? base : (base as NSString).deletingLastPathComponent
        let path = ((folder as NSString).appendingPathComponent(reference.removingPercentEncoding ?? reference) as NSString)
            .standardizingPath
        // A folder (`nest/`) keeps its slash: what is resolved against it goes inside it.
        return reference.hasSuffix("/") && !path.hasSuffix("/") ? path + "/" : path
    }

    /// Seconds of an ISO 8601 duration as MPDs write them (`PT1H2M3.5S`, `P1DT2H`); years and months, which have
    /// no fixed length, are refused.
    public static func seconds(isoDuration text: String) throws(DASHManifestError) -> Double {
        var total = 0.0, number = "", inTime = false, any = false
        guard text.hasPrefix("P") else { throw DASHManifestError("'\(text)' is not an ISO 8601 duration") }
        for character in text.dropFirst() {
            switch character {
            case "T": inTime = true
            case "0"..."9", ".": number.append(character)
            default:
                let unit: Double? = switch (character, inTime) {
                case ("W", false): 604_800
                case ("D", false): 86_400
                case ("H", true): 3600
                case ("M", true): 60
                case ("S", true): 1
                default: nil
                }
                guard let unit, let value = Double(number) else {
                    throw DASHManifestError("'\(text)' is not an ISO 8601 duration FrameFarm reads (days to seconds)")
                }
                total += value * unit
                number = ""
                any = true
            }
        }
        guard any, number.isEmpty else { throw DASHManifestError("'\(text)' is not an ISO 8601 duration") }
        return total
    }
}

/// Why a DASH manifest cannot be read.
public struct DASHManifestError: Error, Sendable, Equatable, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}

extension DASHManifest.Representation {
    /// Its segments made to last `seconds` in all, by lengthening the last one (never shortening).
    mutating func lasts(_ seconds: Double) {
        guard case .segments(let initialization, var segments) = media, let last = segments.indices.last else { return }
        let shown = segments.reduce(0) { $0 + $1.seconds }
        guard seconds - shown > 1e-3 else { return }
        segments[last].seconds += seconds - shown
        timing.shownSeconds = shown
        media = .segments(initialization: initialization, segments)
    }
}
