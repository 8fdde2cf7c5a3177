import Foundation

/// How much a lint finding matters; `--fail-on` picks the least that fails a run.
public enum LintSeverity: String, Codable, Sendable, CaseIterable, Comparable {
    case info, warning, error

    private var rank: Int { Self.allCases.firstIndex(of: self)! }
    public static func < (lhs: LintSeverity, rhs: LintSeverity) -> Bool { lhs.rank < rhs.rank }
}

/// The rules of `framefarm lint`, by their stable ids (docs/lint.md gives each one's reason and source).
public enum LintRule: String, Codable, Sendable, CaseIterable {
    case bakedInPadding = "baked-in-padding"
    case fillCropsTooMuch = "fill-crops-too-much"
    case aspectClass = "aspect-class"
    case nonSquarePixels = "non-square-pixels"
    case rotationMetadata = "rotation-metadata"
    case mirrored
    case oddDimensions = "odd-dimensions"
    case interlaced
    case keyframeInterval = "keyframe-interval"
    case variableFrameRate = "variable-frame-rate"
    case frameRate = "frame-rate"
    case timestampJump = "timestamp-jump"
    case missingTimestamps = "missing-timestamps"
    case blackOpening = "black-opening"
    case colorTagsMissing = "color-tags-missing"
    case hdrMetadataMissing = "hdr-metadata-missing"
    case codec
    case container
    case audioCodec = "audio-codec"
    case tooShortForTrack = "too-short-for-track"
    case damagedData = "damaged-data"
    case cutShort = "cut-short"
    case noVideoStream = "no-video-stream"
    case notAVideo = "not-a-video"
    case unreadable

    public var defaultSeverity: LintSeverity {
        switch self {
        case .aspectClass, .rotationMetadata: .info
        case .oddDimensions, .frameRate, .codec, .container, .audioCodec, .damagedData, .cutShort, .noVideoStream, .notAVideo, .unreadable: .error
        default: .warning
        }
    }
}

/// One thing lint found about one input.
public struct LintFinding: Codable, Sendable, Equatable {
    public var rule: LintRule
    public var severity: LintSeverity
    /// One line with the measured value.
    public var message: String

    public init(_ rule: LintRule, _ severity: LintSeverity, _ message: String) {
        self.rule = rule
        self.severity = severity
        self.message = message
    }

    /// A finding at the rule's default severity.
    public init(_ rule: LintRule, _ message: String) { self.init(rule, rule.defaultSeverity, message) }
}

/// A screen `fill-crops-too-much` checks.
public struct LintScreen: Sendable, Hashable {
    public var name: String
    public var size: PixelSize

    public init(device: Device) {
        name = device.id
        size = device.nativePixels
    }
}

/// What the `codec` rule lets through of one codec: its profiles as FFmpeg names them (empty: any), its highest
/// level (nil: any), and whether HDR (PQ or HLG) in it is played.
public struct CodecLimits: Sendable, Equatable {
    public var profiles: [String]
    public var maxLevel: Double?
    public var hdr: Bool

    public init(profiles: [String] = [], maxLevel: Double? = nil, hdr: Bool = true) {
        self.profiles = profiles
        self.maxLevel = maxLevel
        self.hdr = hdr
    }
}

/// Which rules run, at what severity, and the thresholds they measure against (`LintProfile`, `LintPolicy`).
public struct LintSettings: Sendable, Equatable {
    /// Rules that do not run. The delivery rules (`codec`, `container`, `audio-codec`, `frame-rate`) have nothing
    /// to check until a profile or policy names what its target plays.
    public var disabled: Set<LintRule> = [.codec, .container, .audioCodec, .frameRate]
    /// Severities that replace a rule's own.
    public var severities: [LintRule: LintSeverity] = [:]
    /// `keyframe-interval`: a warning above the first, an error above the second (seek and trick-play cost).
    public var keyframeWarningSeconds = 2.0
    public var keyframeErrorSeconds = 10.0
    /// `fill-crops-too-much`: the most of the picture fill may crop on a screen of `fillScreens`, in percent.
    public var fillCropPercent = 25.0
    /// The screens `fill-crops-too-much` checks, by name: by default the built-in phones and TV, each turned like
    /// the video.
    public var fillScreens: [LintScreen] = LintSettings.builtInScreens
    /// `variable-frame-rate`: the most frames, in percent, whose duration may be off the median by over 10%.
    public var variableFramePercent = 5.0
    /// `too-short-for-track`: the thumbnail interval a track would use (FrameFarm's default, 10 s).
    public var trackIntervalSeconds = 10.0
    /// `codec`: the codecs the target plays, by FFmpeg's name (h264, hevc, vp9, av1); empty takes any.
    public var codecs: [String: CodecLimits] = [:]
    /// `container`: per codec, the containers it may come in (`ProbeReport.fileFormat`) and the MP4 sample
    /// entries it may carry (`ProbeReport.codecTag`); and whether an MP4's index must come before its media data.
    public var containers: [String: [String]] = [:]
    public var sampleEntries: [String: [String]] = [:]
    public var indexFirst = false
    /// `audio-codec`: the audio codecs the target plays, by FFmpeg's name, each with the profiles it plays of it
    /// (empty: any).
    public var audioCodecs: [String: [String]] = [:]
    /// `frame-rate`: the highest average frame rate; nil takes any.
    public var maxFrameRate: Double?

    public init() {}

    public static var builtInScreens: [LintScreen] {
        DeviceCatalog.builtIn.devices.filter { $0.kind == .phone || $0.kind == .tv }.map(LintScreen.init(device:))
    }

    /// `findings` without the disabled rules', at the severities the settings give.
    public func applied(to findings: [LintFinding]) -> [LintFinding] {
        findings.filter { !disabled.contains($0.rule) }.map { finding in
            var finding = finding
            finding.severity = severities[finding.rule] ?? finding.severity
            return finding
        }
    }

    /// The rules that run.
    public var rules: [LintRule] { LintRule.allCases.filter { !disabled.contains($0) } }
}

/// The rules over one input's probed facts. Pure: the same report and settings give the same findings.
public enum Lint {
    /// Findings for a video `report` describes, in rule order.
    public static func findings(for report: ProbeReport, settings: LintSettings = LintSettings()) -> [LintFinding] {
        var findings: [LintFinding] = []
        findings += padding(report)
        findings += shape(report, settings: settings)
        findings += timing(report, settings: settings)
        findings += delivery(report, settings: settings)
        if let missing = report.colorTagsMissing {
            let named = missing.count > 1 ? missing.dropLast().joined(separator: ", ") + " or " + missing.last! : missing.joined()
            findings.append(LintFinding(.colorTagsMissing, "no colour \(named) tag: players guess "
                                        + "(most take BT.709 from 720 lines and BT.601 below, some always BT.709), so colours "
                                        + "shift from one player to another"))
        }
        // HLG is scene-referred: a display maps it by its own peak, and neither HLG's specification (ITU-R BT.2100)
        // nor players ask for mastering metadata.
        if report.isHDR, report.colorTransfer != .hlg, report.peakLuminance == nil {
            findings.append(LintFinding(.hdrMetadataMissing, "\(report.colorTransfer.rawValue.uppercased()) video without "
                                        + "mastering-display or content-light metadata: players assume a 1000 cd/m² peak"))
        }
        if let damage = report.damagedData {
            findings.append(LintFinding(.damagedData, "\(damage) in the packets and frames read (the whole file was not decoded)"))
        }
        if let cut = report.cutShortAtSeconds {
            findings.append(LintFinding(.cutShort, ProbeReport.cutShortNote(atSeconds: cut, ofSeconds: report.durationSeconds)))
        }
        return settings.applied(to: findings)
    }

    /// What the delivery target plays: codec, profile and level; container and sample entry; frame rate.
    private static func delivery(_ report: ProbeReport, settings: LintSettings) -> [LintFinding] {
        var findings: [LintFinding] = []
        let codec = report.codec
        if !settings.codecs.isEmpty {
            if let limits = settings.codecs[codec] {
                if !limits.profiles.isEmpty, let profile = report.codecProfile, !limits.profiles.contains(profile) {
                    // VP9's and AV1's names say "Profile 1" themselves.
                    let named = profile.lowercased().contains("profile") ? profile : profile + " profile"
                    findings.append(LintFinding(.codec, "\(codec) \(named): the target plays \(codec) in "
                                                + limits.profiles.joined(separator: ", ")))
                }
                if let highest = limits.maxLevel, let level = report.codecLevel, level > highest + 1e-6 {
                    findings.append(LintFinding(.codec, String(format: "%@ level %.1f, above the %.1f the target plays",
                                                               codec, level, highest)))
                }
                let transfer = report.colorTransfer.rawValue.uppercased()
                if report.isHDR, !limits.hdr {
                    findings.append(LintFinding(.codec, "\(transfer) video in \(codec): the target plays HDR in "
                                                + settings.codecs.filter(\.value.hdr).keys.sorted().joined(separator: ", ")))
                }
                // PQ and HLG are 10-bit signals (HDR10, BT.2100): in 8 bits their steps show as bands.
                if report.isHDR, report.bitDepth < 10 {
                    findings.append(LintFinding(.codec, "\(transfer) video in \(report.bitDepth) bits: HDR is played "
                                                + "in 10 bits or more, and bands in fewer"))
                }
            } else {
                findings.append(LintFinding(.codec, "codec \(codec): the target plays "
                                            + settings.codecs.keys.sorted().joined(separator: ", ")))
            }
        }
        if let formats = settings.containers[codec], let format = report.fileFormat, !formats.contains(format) {
            findings.append(LintFinding(.container, "\(codec) in \(format): the target takes \(codec) in "
                                        + formats.joined(separator: ", ")))
        }
        if let entries = settings.sampleEntries[codec], let first = entries.first, let tag = report.codecTag,
           ["mp4", "mov"].contains(report.fileFormat), !entries.contains(tag) {
            findings.append(LintFinding(.container, "\(codec) sample entry '\(tag)': the target reads \(codec) from "
                                        + entries.map { "'\($0)'" }.joined(separator: ", ") + " (FFmpeg: -tag:v \(first))"))
        }
        if settings.indexFirst, report.indexFirst == false {
            findings.append(LintFinding(.container, .warning, "the index ('moov') comes after the media data: a player "
                                        + "reading over http fetches the end of the file before it starts (FFmpeg: -movflags +faststart)"))
        }
        findings += audio(report, settings: settings)
        if let highest = settings.maxFrameRate, let rate = report.frameRate, rate > highest + 0.01 {
            findings.append(LintFinding(.frameRate, String(format: "%.3f fps, above the %g fps the target plays", rate, highest)))
        }
        return findings
    }

    /// Each audio stream whose codec or profile the target does not play (it would play silent or not at all).
    private static func audio(_ report: ProbeReport, settings: LintSettings) -> [LintFinding] {
        guard !settings.audioCodecs.isEmpty else { return [] }
        let counted = (report.audio?.count ?? 0) > 1
        return (report.audio ?? []).enumerated().compactMap { index, track in
            let named = counted ? "audio stream \(index + 1) (\(track.codec))" : "audio \(track.codec)"
            guard let profiles = settings.audioCodecs[track.codec] else {
                let played = settings.audioCodecs.keys.sorted().joined(separator: ", ")
                return LintFinding(.audioCodec, "\(named): the target plays audio in \(played)")
            }
            guard let profile = track.profile, !profiles.isEmpty, !profiles.contains(profile) else { return nil }
            return LintFinding(.audioCodec, "\(named) \(profile) profile: the target plays \(track.codec) in "
                               + profiles.joined(separator: ", "))
        }
    }

    private static func padding(_ report: ProbeReport) -> [LintFinding] {
        let content = report.contentRect
        if report.paddingDetected {
            let bars = [("top", content.y), ("bottom", report.displayHeight - content.y - content.height),
                        ("left", content.x), ("right", report.displayWidth - content.x - content.width)]
                .filter { $0.1 > 0 }.map { "\($0.0) \($0.1) px" }.joined(separator: ", ")
            let kind = content.width < report.displayWidth
                ? (content.height < report.displayHeight ? "windowbox" : "pillarbox") : "letterbox"
            return [LintFinding(.bakedInPadding, "\(kind) baked into the picture (\(bars)): the picture is "
                                + "\(content.width)x\(content.height) of \(report.displayWidth)x\(report.displayHeight); "
                                + "players add their own bars, so these become double bars in fit and lost picture in fill")]
        }
        if let partial = report.partialPadding {
            return [LintFinding(.bakedInPadding, .info, "bars in about \(Int((partial.share * 100).rounded()))% of the "
                                + "video (picture \(partial.contentRect.width)x\(partial.contentRect.height) there)")]
        }
        return []
    }

    private static func shape(_ report: ProbeReport, settings: LintSettings) -> [LintFinding] {
        var findings: [LintFinding] = []
        let content = report.contentRect.pixelRect.size
        if let worst = settings.fillScreens.map({ screen in
            (screen.name, Placement.fillCroppedFraction(content: content, screen: screen.size.oriented(content.orientation)).area * 100)
        }).max(by: { $0.1 < $1.1 }), worst.1 > settings.fillCropPercent {
            // Said of custom players: the page's default mode is `--policy`'s, hig's by default, which fills wide
            // video as system players do, so "fit is the better default" read as the page contradicting itself.
            findings.append(LintFinding(.fillCropsTooMuch, String(format: "fill crops %.1f%% of the picture on %@ (limit %g%%): "
                                                                  + "a custom player should default to fit here (as --policy "
                                                                  + "max-crop:%g picks)", worst.1, worst.0, settings.fillCropPercent,
                                                                  settings.fillCropPercent)))
        }
        findings.append(LintFinding(.aspectClass, String(format: "%@ content, %.3f:1", report.aspectClass.rawValue,
                                                         report.contentAspectRatio)))
        if report.sampleAspectRatio != "1:1" {
            findings.append(LintFinding(.nonSquarePixels, "sample aspect ratio \(report.sampleAspectRatio): coded "
                                        + "\(report.codedWidth)x\(report.codedHeight) shows as \(report.displayWidth)x\(report.displayHeight)"))
        }
        if report.rotation != 0 {
            findings.append(LintFinding(.rotationMetadata, "display matrix turns the picture \(report.rotation)° clockwise"))
        }
        if report.mirrored {
            findings.append(LintFinding(.mirrored, "display matrix mirrors the picture left-right"))
        }
        let subsampledWidth = ["yuv420", "yuvj420", "nv12", "nv21", "p010", "yuv422", "yuvj422"].contains { report.pixelFormat.hasPrefix($0) }
        let subsampledHeight = ["yuv420", "yuvj420", "nv12", "nv21", "p010"].contains { report.pixelFormat.hasPrefix($0) }
        if (subsampledWidth && report.codedWidth % 2 == 1) || (subsampledHeight && report.codedHeight % 2 == 1) {
            findings.append(LintFinding(.oddDimensions, "coded \(report.codedWidth)x\(report.codedHeight) in "
                                        + "\(report.pixelFormat): chroma subsampling needs even sizes"))
        }
        if report.interlaced == true {
            findings.append(LintFinding(.interlaced, "the stream says its frames are interlaced: progressive delivery is expected"))
        } else if let combing = report.combing, combing.showsInterlacing {
            findings.append(LintFinding(.interlaced, "\(combing.combedFrames) of \(combing.sampledFrames) sampled frames show "
                                        + "combing (two fields from different moments in one frame), though the stream does not "
                                        + "flag interlacing: deinterlace before delivery"))
        }
        return findings
    }

    /// The `keyframe-interval`, `variable-frame-rate` and `timestamp-jump` findings.
    private static func keyframesAndFrameTimes(_ report: ProbeReport, settings: LintSettings) -> [LintFinding] {
        var findings: [LintFinding] = []
        // Judged by the longest gap (the worst seek); a single keyframe makes the whole video one gap (not the
        // audio before it).
        let longest = report.keyframeIntervalMaxSeconds ?? report.keyframeIntervalSeconds ?? report.videoDurationSeconds
        // "A keyframe every 2 s" at 29.97 fps is 60 frames, 2.002 s: NTSC rates stretch a limit by 1.001, and a
        // millisecond time base (Matroska, FLV) rounds each keyframe's time by up to half of one.
        func over(_ limit: Double) -> Bool { longest > limit * 1.001 + 0.001 }
        if over(settings.keyframeWarningSeconds) {
            let severity: LintSeverity = over(settings.keyframeErrorSeconds) ? .error : .warning
            let limit = severity == .error ? settings.keyframeErrorSeconds : settings.keyframeWarningSeconds
            let measured = report.keyframeIntervalSeconds.map { median in
                String(format: "a keyframe every %.2f s (median), %.2f s at the longest", median, longest)
            } ?? String(format: "a single keyframe in %.2f s", longest)
            findings.append(LintFinding(.keyframeInterval, severity, measured + String(format: ", over the %g-s limit: "
                                        + "seeking and trick play decode up to that much", limit)))
        }
        if let timing = report.frameTiming {
            if timing.irregularShare * 100 > settings.variableFramePercent {
                findings.append(LintFinding(.variableFrameRate, String(
                    format: "frame durations from %.1f to %.1f ms, %.0f%% of them off the median %.1f ms: players and "
                        + "encoders that assume a constant rate drift from the timestamps",
                    timing.shortestFrameSeconds * 1000, timing.longestFrameSeconds * 1000, timing.irregularShare * 100,
                    timing.medianFrameSeconds * 1000)))
            }
            if let first = timing.jumps.first {
                let more = timing.jumps.count > 1 ? " (\(timing.jumps.count) jumps)" : ""
                findings.append(LintFinding(.timestampJump, String(
                    format: "timestamps jump %@%.3f s at %.3f s%@: seeking, cue times and durations around it are off",
                    first.bySeconds < 0 ? "back " : "", abs(first.bySeconds), first.atSeconds, more)))
            } else if let repeats = timing.repeats {
                findings.append(LintFinding(.timestampJump, String(
                    format: "%d frame%@ carry the timestamp of the frame before (first at %.3f s): players drop them "
                        + "or show them out of time", repeats.count, repeats.count == 1 ? "" : "s", repeats.firstAtSeconds)))
            }
        }
        return findings
    }

    private static func timing(_ report: ProbeReport, settings: LintSettings) -> [LintFinding] {
        var findings: [LintFinding] = []
        // Where packets carry no time, the keyframe gaps and frame durations measured between those that do say
        // nothing: that is the finding.
        if let untimed = report.frameTiming?.untimedNote {
            findings.append(LintFinding(.missingTimestamps, untimed))
        } else {
            findings += keyframesAndFrameTimes(report, settings: settings)
        }
        if let black = report.blackOpeningSeconds {
            findings.append(LintFinding(.blackOpening, String(
                format: "opens on black: the first frame is black, and so is every keyframe before %.2f s: the first "
                    + "thumbnail and a poster from the first frame show nothing", black)))
        }
        let thumbnails = max(1, Int((report.durationSeconds / settings.trackIntervalSeconds).rounded(.up)))
        if thumbnails < 2 {
            findings.append(LintFinding(.tooShortForTrack, String(format: "%.2f s gives %d thumbnail at one every %.0f s",
                                                                  report.durationSeconds, thumbnails, settings.trackIntervalSeconds)))
        }
        return findings
    }
}

/// One input's lint result, as `lint --json` prints it.
public struct LintResult: Codable, Sendable, Equatable {
    public var path: String
    /// The rules that ran on it (those its facts could answer: all of them, or only `not-a-video` and
    /// `no-video-stream` for an input that could not be read).
    public var rulesRun: [LintRule]
    public var findings: [LintFinding]

    public init(path: String, rulesRun: [LintRule], findings: [LintFinding]) {
        self.path = path
        self.rulesRun = rulesRun
        self.findings = findings
    }
}
