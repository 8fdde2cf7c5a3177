import CFFmpeg
import Foundation
import FrameFarmCore

/// A DASH manifest, read here rather than by FFmpeg's dash demuxer (`DASHManifest`), which opens what it names with its
/// own http client (`avio_open2`, not the format context's `io_open`): without `--header`, retries, `--io-timeout` or
/// bounded range requests, and it skips a segment it cannot read. One video representation is picked as
/// `--rendition` asks, and FFmpeg reads either its one file (SegmentBase) like any input, or an HLS media playlist of
/// its segments (SegmentTemplate, SegmentList), which its hls demuxer opens through `RemoteReader`'s nested opener
/// like the segments of any playlist, and which is sought like any playlist (`SegmentedPlaylist`).
enum DASHInput {
    /// What FFmpeg opens for the representation picked.
    enum Source {
        /// One file: a local path, or a remote input's name.
        case file(String)
        /// An HLS media playlist of the representation's segments, given to FFmpeg from memory, and for
        /// each period, how it is placed (see `SegmentedPlaylist.periods`).
        case playlist(String, periods: [DASHManifest.PeriodTiming]?)
    }

    struct Opening {
        var source: Source
        /// The representation read, when the manifest has several.
        var rendition: Rendition?
        /// The representations left out, each as why (`unreadable`).
        var skipped: [InputError] = []
    }

    /// Per manifest (by the input's path or name), its video representations that cannot be read (a missing
    /// initialization section or first segment), by their place in the manifest, each with why: left out as players
    /// leave them, and as a ladder's renditions are (`LadderRepair`). Found by `leaveOutUnreadable`.
    private static let unreadable = Locked<[String: [Int: InputError]]>([:])

    /// Notes the video representations of the manifest at `path` whose first parts (initialization section and
    /// first segment, or its one file) cannot be had; true when some can and some cannot (the manifest is then read
    /// without them), false otherwise. Only the first parts: a representation that fails later fails its input, as a
    /// playlist's missing middle segment does.
    static func leaveOutUnreadable(_ path: String) -> Bool {
        guard unreadable.withLock({ $0[path] }) == nil, let (text, base) = PlaylistScan.text(path),
              let manifest = try? DASHManifest(parsing: Data(text.utf8), location: RemoteInput.isRemote(base) ? base
                                                : URL(fileURLWithPath: base).standardizedFileURL.path, baseURLChoice: 0),
              manifest.representations.count > 1 else { return false }
        var failed: [Int: InputError] = [:]
        for (index, representation) in manifest.representations.enumerated() {
            let firstParts: Int = if case .segments = representation.media { 2 } else { 1 }
            for location in locations(of: representation).prefix(firstParts) {
                guard let why = missing(location, within: base) else { continue }
                failed[index] = .renditionFailed(rendition: "representation \(representation.id) (\(representation.width)x"
                                                 + "\(representation.height))",
                                                 reason: InputError.segmentFailed(segment: location, reason: why.description,
                                                                                  inManifest: true).description)
                break
            }
        }
        guard !failed.isEmpty, failed.count < manifest.representations.count else { return false }
        unreadable.withLock { $0[path] = failed }
        return true
    }

    /// Why the part at `location` (of the manifest at `base`) cannot be had, or nil when it can.
    private static func missing(_ location: String, within base: String) -> InputError? {
        if RemoteInput.isRemote(location) {
            guard case .failure(let failure) = RangeClient.answers(RemoteInput.registerNested(location, within: base)) else {
                return nil
            }
            return failure
        }
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: ForeignNames.openable(location), isDirectory: &isFolder) else { return .notFound }
        return isFolder.boolValue ? .isDirectory : nil
    }

    /// Whether `path` (a file, or a remote input's name read through `reader`) is a DASH manifest: by its
    /// extension, else by an `<MPD` in its first bytes (manifest URLs often have none,
    /// `.../manifest(format=mpd-time-csf)`).
    static func isManifest(_ path: String, reader: RemoteReader?) -> Bool {
        if path.lowercased().hasSuffix(".mpd") { return true }
        let head: Data?
        if let reader {
            head = reader.peek(4096)
        } else {
            head = FileHandle(forReadingAtPath: ForeignNames.openable(path)).flatMap { handle in
                defer { try? handle.close() }
                return try? handle.read(upToCount: 4096)
            }
        }
        return head.map { String(decoding: $0, as: UTF8.self).contains("<MPD") } ?? false
    }

    /// Reads the manifest at `path` and picks its representation: the one an earlier open of the input picked
    /// (`known`), else as `request` asks (the highest when nil).
    /// A remote manifest that lists several `BaseURL`s (CDNs) is read through the first whose copy of the
    /// representation's first part answers, as players fail over; each is asked once, and when none answers, the
    /// first is read and fails as it fails.
    static func open(_ path: String, reader: RemoteReader?, request: RenditionRequest?,
                     known: Rendition?) throws(InputError) -> Opening {
        let data = try text(of: path, reader: reader)
        // Addresses are relative to where the manifest URL's redirects led.
        let base = reader?.base ?? path
        let location = reader != nil ? base : URL(fileURLWithPath: path).standardizedFileURL.path
        func parsed(choice: Int) throws(InputError) -> DASHManifest {
            do {
                // DRM and live as for any playlist (a manifest known by its content was not scanned for them).
                if let refusal = PlaylistScan.refusal(inText: String(decoding: data, as: UTF8.self)) { throw refusal }
                return try DASHManifest(parsing: data, location: location, baseURLChoice: choice)
            } catch let error as DASHManifestError {
                throw .unreadableManifest(error.description)
            } catch {
                throw error as? InputError ?? .unreadableManifest("\(error)")
            }
        }
        // Every open of the input (analysis, seeks, parallel readers) reads through the copy the first one found.
        let left = unreadable.withLock { $0[path] } ?? [:]
        if let chosen = chosenBaseURL.withLock({ $0[base] }) {
            return try open(try parsed(choice: chosen), base: base, remote: true, request: request, known: known,
                            leftOut: left).opening
        }
        let first = try parsed(choice: 0)
        let opening = try open(first, base: base, remote: reader != nil, request: request, known: known, leftOut: left)
        guard reader != nil, first.baseURLAlternatives > 1 else { return opening.opening }
        for choice in 0..<first.baseURLAlternatives {
            let alternative = choice == 0 ? opening : try open(try parsed(choice: choice), base: base, remote: true,
                                                               request: request, known: known, leftOut: left)
            guard let part = alternative.firstPart,
                  case .failure = RangeClient.answers(RemoteInput.registerNested(part, within: base))
            else {
                chosenBaseURL.withLock { $0[base] = choice }
                return alternative.opening
            }
        }
        return opening.opening
    }

    /// Per remote manifest (by name), the `BaseURL` alternative that answered.
    private static let chosenBaseURL = Locked<[String: Int]>([:])

    /// The representation of `manifest` to read, and the address of its first part (initialization segment,
    /// first segment or the one file).
    /// `leftOut`: the representations not to read (`unreadable`); an index (`--rendition N`, `known`) counts the others.
    private static func open(_ manifest: DASHManifest, base: String, remote: Bool, request: RenditionRequest?,
                             known: Rendition?, leftOut: [Int: InputError]) throws(InputError) -> (opening: Opening, firstPart: String?) {
        let videos = manifest.representations
        let usable = videos.indices.filter { leftOut[$0] == nil }
        guard !usable.isEmpty else { throw .noVideoStream }
        let skipped = leftOut.sorted { $0.key < $1.key }.map(\.value)
        var index = usable[0], rendition: Rendition?
        if usable.count > 1 {
            let candidates = usable.map { Rendition.Candidate(width: videos[$0].width, height: videos[$0].height,
                                                              bandwidth: videos[$0].bandwidth) }
            if let known, known.index < usable.count {
                (index, rendition) = (usable[known.index], known)
            } else {
                let choice: (index: Int, reason: String)
                do {
                    choice = try (request ?? RenditionRequest(choice: .highest)).pick(candidates, leftOut: skipped.map(\.description))
                } catch {
                    throw .noSuchRendition(error.description)
                }
                let picked = candidates[choice.index]
                index = usable[choice.index]
                rendition = Rendition(index: choice.index, count: usable.count, width: picked.width, height: picked.height,
                                      bandwidth: picked.bandwidth, reason: choice.reason)
            }
        }
        // A remote manifest names remote segments only: a local path in it must not read this machine's files. Every
        // representation is checked, not only the one picked (a later open may pick another).
        if remote, let local = (videos + manifest.laterPeriods.joined()).lazy.flatMap(locations(of:))
            .first(where: { !RemoteInput.isRemote($0) }) {
            throw .unreadableManifest("it names '\(local)', which is not an http(s) URL")
        }
        let representation = videos[index], firstPart = locations(of: representation).first
        if !manifest.laterPeriods.isEmpty {
            // Periods (advertisements, chapters) are joined as HLS joins them, at discontinuities.
            var periods = [representation]
            for (offset, later) in manifest.laterPeriods.enumerated() {
                guard let next = match(representation, in: later) else {
                    throw .unreadableManifest("its period \(offset + 2) has no video representation")
                }
                periods.append(next)
            }
            guard let playlist = DASHManifest.Representation.hlsMediaPlaylist(joining: periods) else {
                throw .unreadableManifest("it has \(periods.count) periods and one of them is a single file (SegmentBase); "
                                          + "FrameFarm joins periods of segments (SegmentTemplate, SegmentList)")
            }
            return (Opening(source: .playlist(playlist, periods: periods.map(\.timing)), rendition: rendition, skipped: skipped),
                    firstPart)
        }
        switch representation.media {
        case .file(let part):
            return (Opening(source: .file(remote ? RemoteInput.registerNested(part.location, within: base) : part.location),
                            rendition: rendition, skipped: skipped), firstPart)
        case .segments:
            // One period is placed as each of several is: a clip cut from a live programme starts at its
            // `@presentationTimeOffset`, inside its first segment.
            return (Opening(source: .playlist(representation.hlsMediaPlaylist!, periods: [representation.timing]),
                            rendition: rendition, skipped: skipped), firstPart)
        }
    }

    /// Of a later period's video representations, the one to read after `picked`: the one of its size, else of
    /// the nearest area, the first of equals.
    private static func match(_ picked: DASHManifest.Representation,
                              in period: [DASHManifest.Representation]) -> DASHManifest.Representation? {
        let area = picked.width * picked.height
        return period.min { abs($0.width * $0.height - area) < abs($1.width * $1.height - area) }
    }

    private static func locations(of representation: DASHManifest.Representation) -> [String] {
        switch representation.media {
        case .file(let part): [part.location]
        case .segments(let initialization, let segments): [initialization?.location].compactMap { $0 } + segments.map(\.part.location)
        }
    }

    private static func text(of path: String, reader: RemoteReader?) throws(InputError) -> Data {
        guard let data = PlaylistScan.read(path, reader: reader) else {
            throw reader?.failure ?? (reader == nil ? .unreadable("cannot open it") : .empty)
        }
        guard data.count <= PlaylistScan.largestText else {
            throw .unreadableManifest("it is larger than \(PlaylistScan.largestText >> 20) MiB")
        }
        return data
    }
}
