/// `OUT/<stem>/manifest.json`: every output of one video, with the geometry, times and settings that made it.
/// `preview`, `thumbnails` and `poster` each own one section and leave the others as they found them. Keys are
/// a public contract (docs/commands.md, "manifest.json"): add keys, never rename or remove them.
public struct VideoManifest: Codable, Sendable, Equatable {
    public var formatVersion = 1
    public var input: InputRecord
    public var probe: ProbeReport
    public var preview: PreviewSection?
    public var thumbnails: ThumbnailsSection?
    public var poster: PosterSection?
    /// What `framefarm lint`'s rules (their default settings) find in `probe`, kept with it: the review page shows
    /// them, and a delivery pipeline reads them without linting again.
    public var lint: [LintFinding]?
    /// The commands whose sections were made from an earlier version of the input than `input` describes: another
    /// command ran after it changed. Their files stand until they are made again, and `report` counts them stale.
    /// Absent when none.
    public var staleSections: [String]?

    public init(input: InputRecord, probe: ProbeReport) {
        self.input = input
        self.probe = probe
    }

    /// The commands that own a section.
    public static let commands = ["preview", "thumbnails", "poster"]

    /// The files `command`'s section lists (relative to the video's folder); nil when it has no section.
    public func files(of command: String) -> [String]? {
        switch command {
        case "preview": preview?.files
        case "thumbnails": thumbnails.map { $0.files }
        case "poster": poster.map { $0.files.map(\.file) }
        default: nil
        }
    }

    /// Whether `command`'s section was made from an earlier version of the input (`staleSections`).
    public func isStale(_ command: String) -> Bool { staleSections?.contains(command) ?? false }

    /// The manifest for `input`, a later version of the one this was made from: every section kept, and each
    /// (those of `files(of:)`, the stale ones among them) marked stale until its command runs again.
    public func changed(to input: InputRecord) -> VideoManifest {
        var manifest = self
        manifest.input = input
        let stale = Self.commands.filter { files(of: $0) != nil }
        manifest.staleSections = stale.isEmpty ? nil : stale
        return manifest
    }

    /// Adds what concerns the whole input (a rendition left out of its ladder, packets without timestamps) to the
    /// sections of `commands`, where they do not say it already: the review page and `report` read the sections.
    public mutating func addInputWarnings(_ warnings: [String], to commands: Set<String>) {
        guard !warnings.isEmpty else { return }
        func adding(_ existing: [String]) -> [String] { existing + warnings.filter { !existing.contains($0) } }
        if commands.contains("preview"), var section = preview {
            section.warnings = adding(section.warnings ?? [])
            preview = section
        }
        if commands.contains("thumbnails"), var section = thumbnails {
            section.warnings = adding(section.warnings)
            thumbnails = section
        }
        if commands.contains("poster"), var section = poster {
            section.warnings = adding(section.warnings ?? [])
            poster = section
        }
    }

    /// What the runs warned of this video's outputs, each once (a cut the track and the poster both met).
    public var warnings: [String] {
        var seen = Set<String>()
        return ((thumbnails?.warnings ?? []) + (poster?.warnings ?? []) + (preview?.warnings ?? [])).filter { seen.insert($0).inserted }
    }
}

/// Identifies the input a manifest was made from, so a re-run can tell whether its outputs are still current:
/// a file's size and modification time, or what an http(s) input's server says (`Content-Length` or
/// `Content-Range`, `Last-Modified` and `ETag`). `path` is a remote input's name, never its query string.
public struct InputRecord: Codable, Sendable, Equatable {
    public var path: String
    public var sizeBytes: Int
    /// Modification time, seconds since 1970 (0 where a server does not say).
    public var modifiedSeconds: Double
    /// A remote input's entity tag, when its server sends one.
    public var etag: String?
    /// A local HLS playlist's: a hash of the address, size and modification time of every file it names, so that
    /// a segment replaced behind an unchanged playlist is noticed.
    public var partsDigest: String?

    public init(path: String, sizeBytes: Int, modifiedSeconds: Double, etag: String? = nil, partsDigest: String? = nil) {
        self.path = path
        self.sizeBytes = sizeBytes
        self.modifiedSeconds = modifiedSeconds
        self.etag = etag
        self.partsDigest = partsDigest
    }

    /// Same file content as far as size, modification time, entity tag and parts tell (the path may differ).
    public func describesSameFile(as other: InputRecord) -> Bool {
        sizeBytes == other.sizeBytes && abs(modifiedSeconds - other.modifiedSeconds) < 0.001 && etag == other.etag
            && partsDigest == other.partsDigest
    }
}

/// The Vulkan device that rendered a section.
public struct GPURecord: Codable, Sendable, Equatable {
    public var name: String
    public var type: String

    public init(name: String, type: String) {
        self.name = name
        self.type = type
    }
}

public struct PreviewSection: Codable, Sendable, Equatable {
    public var settings: [String: String]
    public var gpu: GPURecord
    /// Stream time of the rendered frame, and how it was chosen (`poster`, `25%`, `12.5`).
    public var frameTimeSeconds: Double
    public var frameChoice: String
    public var paddingDetected: Bool
    public var paddingRemoved: Bool
    /// The part of the frame placed on screens, in display pixels.
    public var contentRect: ProbeReport.Rect
    public var renders: [PreviewRender]
    /// Every render's file and review copy, each once (renders that are one image share a copy).
    public var files: [String] {
        var files: [String] = []
        for file in renders.flatMap(\.files) where !files.contains(file) { files.append(file) }
        return files
    }
    /// What the run warned of the frame shown (the video cut short before it, damaged data on the way to it);
    /// absent when nothing.
    public var warnings: [String]?

    public init(settings: [String: String], gpu: GPURecord, frameTimeSeconds: Double, frameChoice: String,
                paddingDetected: Bool, paddingRemoved: Bool, contentRect: ProbeReport.Rect, renders: [PreviewRender],
                warnings: [String] = []) {
        self.warnings = warnings.isEmpty ? nil : warnings
        self.settings = settings
        self.gpu = gpu
        self.frameTimeSeconds = frameTimeSeconds
        self.frameChoice = frameChoice
        self.paddingDetected = paddingDetected
        self.paddingRemoved = paddingRemoved
        self.contentRect = contentRect
        self.renders = renders
    }
}

/// One device screen in one orientation and mode.
public struct PreviewRender: Codable, Sendable, Equatable {
    /// Relative to the video's folder: `preview/<device>-<orientation>-<mode>.png`.
    public var file: String
    /// The render at most `PreviewRender.reviewSide` px on its long side, a JPEG for the review page
    /// (`preview/review/<device>-<orientation>-<mode>.jpg`); absent in manifests written before it was.
    public var reviewFile: String?
    /// The render's file and its review copy.
    public var files: [String] { [file] + [reviewFile].compactMap { $0 } }
    public var device: String
    public var deviceName: String
    public var orientation: Orientation
    public var mode: ViewingMode
    /// Whether `mode` is what the policy picks for this video on this screen.
    public var isDefault: Bool
    public var screenWidth: Int
    public var screenHeight: Int
    /// Part of the content shown, in content display pixels (fill crops it).
    public var sourceCrop: SourceRect
    /// Where the picture lands on the screen, in screen pixels.
    public var destination: ProbeReport.Rect
    public var safeArea: ProbeReport.Rect
    public var croppedFraction: CroppedFraction
    public var fractionOutsideSafeArea: Double

    /// The long side of a review copy: the page shows renders in figures about 220 px wide, twice over on dense
    /// screens. The full renders of a 50-video page (5K screens among them) weighed about 1 GB.
    public static let reviewSide = 480

    public init(file: String, device: String, deviceName: String, orientation: Orientation, mode: ViewingMode,
                isDefault: Bool, placement: Placement) {
        self.file = file
        self.device = device
        self.deviceName = deviceName
        self.orientation = orientation
        self.mode = mode
        self.isDefault = isDefault
        screenWidth = placement.screen.width
        screenHeight = placement.screen.height
        sourceCrop = placement.sourceCrop
        destination = ProbeReport.Rect(placement.destination)
        safeArea = ProbeReport.Rect(placement.safeArea)
        croppedFraction = placement.croppedFraction
        fractionOutsideSafeArea = placement.fractionOutsideSafeArea
    }
}

public struct ThumbnailsSection: Codable, Sendable, Equatable {
    public var settings: [String: String]
    public var gpu: GPURecord
    public var tileWidth: Int
    public var tileHeight: Int
    public var columns: Int
    public var rows: Int
    public var intervalSeconds: Double
    public var count: Int
    /// Files relative to the video's folder.
    public var sheets: [String]
    public var manifests: [String]
    /// Stream time of the frame each thumbnail shows (its cue starts at index x interval).
    public var frameTimes: [Double]
    public var warnings: [String]
    /// With several widths (`--widths`): the other widths' tracks, from the same frames. The fields above
    /// describe the first width's, and `manifests` also lists the stream-inf lines of them all.
    public var moreWidths: [Track]?

    /// One more width's track: its tiles, grid, sheets and manifests.
    public struct Track: Codable, Sendable, Equatable {
        public var tileWidth: Int
        public var tileHeight: Int
        public var columns: Int
        public var rows: Int
        public var sheets: [String]
        public var manifests: [String]

        public init(tileWidth: Int, tileHeight: Int, columns: Int, rows: Int, sheets: [String], manifests: [String]) {
            self.tileWidth = tileWidth
            self.tileHeight = tileHeight
            self.columns = columns
            self.rows = rows
            self.sheets = sheets
            self.manifests = manifests
        }
    }

    /// Every file the section lists, of every width.
    public var files: [String] { sheets + manifests + (moreWidths ?? []).flatMap { $0.sheets + $0.manifests } }

    public init(settings: [String: String], gpu: GPURecord, tileWidth: Int, tileHeight: Int, columns: Int, rows: Int,
                intervalSeconds: Double, count: Int, sheets: [String], manifests: [String], frameTimes: [Double],
                warnings: [String]) {
        self.settings = settings
        self.gpu = gpu
        self.tileWidth = tileWidth
        self.tileHeight = tileHeight
        self.columns = columns
        self.rows = rows
        self.intervalSeconds = intervalSeconds
        self.count = count
        self.sheets = sheets
        self.manifests = manifests
        self.frameTimes = frameTimes
        self.warnings = warnings
    }
}

public struct PosterSection: Codable, Sendable, Equatable {
    public struct File: Codable, Sendable, Equatable {
        public var file: String
        public var width: Int
        public var height: Int

        public init(file: String, width: Int, height: Int) {
            self.file = file
            self.width = width
            self.height = height
        }
    }

    public var settings: [String: String]
    public var gpu: GPURecord
    public var timeSeconds: Double
    /// Score of the chosen frame (brightness, contrast, sharpness, value); absent for `--at TIME`.
    public var score: [String: Double]?
    public var files: [File]
    /// What the run warned of the poster (it shows little, the video was cut short, damaged data); absent when
    /// nothing. Kept here so that a re-run finding it up to date, the review page and `report` still say it.
    public var warnings: [String]?

    public init(settings: [String: String], gpu: GPURecord, timeSeconds: Double, score: [String: Double]?, files: [File],
                warnings: [String] = []) {
        self.warnings = warnings.isEmpty ? nil : warnings
        self.settings = settings
        self.gpu = gpu
        self.timeSeconds = timeSeconds
        self.score = score
        self.files = files
    }
}
