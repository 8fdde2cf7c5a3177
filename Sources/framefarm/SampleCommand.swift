import ArgumentParser
import Foundation
import FrameFarm
import FrameFarmSamples

struct SampleCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sample",
        abstract: "Encode a synthetic test video: moving detail, a clock, and each frame's number as a readable code.",
        discussion: """
            The frame number is drawn as two rows of twelve black/white cells across the bottom fifth of the \
            picture, legible in a 160-px thumbnail; tests read it back to check which frame a thumbnail shows.
            """)

    @Option(help: "Output file; the container follows the extension (.mp4, .mkv, .ts, .mov; .m3u8 an HLS playlist of segments).")
    var out: String

    @Option(help: "Seconds.")
    var duration: Double = 10

    @Option(help: "Coded size WxH (default: 1280x720).", transform: parseSize)
    var size = PixelSize(width: 1280, height: 720)

    @Option(help: "Frames per second: 25, 24, 30000/1001 ...")
    var fps = "25"

    @Flag(help: "Bake 2.39:1 letterbox bars into the frame.")
    var letterbox = false

    @Flag(help: "Bake 4:3 pillarbox bars into the frame.")
    var pillarbox = false

    @Option(help: "With --letterbox or --pillarbox: show the bars until this many seconds only, then fill the frame (partial padding).")
    var paddingUntil: Double?

    @Flag(help: "Draw a dark, textured band down the left edge of the picture (dark content, not a bar).")
    var darkEdge = false

    @Option(help: "Sample aspect ratio N:D (anamorphic pixels).")
    var sar = "1:1"

    @Option(help: "Display rotation, clockwise degrees: 0, 90, 180, 270 (.mp4 and .mov only).")
    var rotation = 0

    @Flag(help: "Mirror the picture left-right in the display matrix (before the rotation).")
    var mirrored = false

    @Option(help: "Encoder (libx264, libx265, mpeg4, mjpeg, ffv1 ...). Default: libx264, else mpeg4; the container's own where it takes no H.264 (VP9 for .webm).")
    var encoder: String?

    @Option(help: "Pixel format (yuv420p, yuv444p, yuv420p10le ...). Default: the encoder's first.")
    var pixelFormat: String?

    @Option(help: "H.264 or HEVC level to write (libx264, libx265), e.g. 5.1 (default: the encoder's choice for the size and rate).")
    var level: Double?

    @Option(help: "MP4 sample entry of the codec, e.g. hvc1 (FFmpeg writes HEVC as hev1 otherwise).")
    var codecTag: String?

    @Flag(help: "Leave the colour matrix, primaries and transfer unspecified.")
    var noColorTags = false

    @Option(help: ArgumentHelp("HDR: graded in BT.2020 with this transfer, SDR white at 203 cd/m² (BT.2408), 10-bit unless --pixel-format says otherwise: pq or hlg.",
                               valueName: "transfer"))
    var hdr: String?

    @Option(help: "With --hdr: the content light level (MaxCLL) to state, in cd/m²; in the stream with libx265, else in the container (.mkv).")
    var hdrPeak: Int?

    @Option(help: "Keyframe every S seconds (default: the encoder's own GOP, x264: 250 frames with scene cuts).")
    var keyframeInterval: Double?

    @Option(help: "Maximum consecutive B-frames.")
    var bframes: Int?

    @Option(help: "Timestamp of the first frame, seconds, a whole number of frames (kept by .ts; MP4 edit lists hide it).")
    var startTime: Double = 0

    @Option(help: "Number of the first frame (its code and counter): continue another sample's numbering.")
    var firstFrameNumber = 0

    @Flag(help: "Interlaced, top field first: odd rows show the scene half a frame later, so motion combs.")
    var interlaced = false

    @Flag(help: "With --interlaced: encode the woven frames as progressive, with no field flag (a careless transcode).")
    var unflagged = false

    @Flag(help: "Vary frame durations (variable frame rate).")
    var vfr = false

    @Option(help: "Seconds of black at the start.")
    var blackLead: Double = 0

    @Option(help: "Seconds of fade-in after the black lead.")
    var fadeIn: Double = 0

    @Option(help: "A blurred stretch FROM-TO in seconds, e.g. 4-6.")
    var blur: String?

    @Option(help: ArgumentHelp("A break in the timestamps: frames from AT seconds on are stamped BY seconds later (whole frames), e.g. 2:5.", valueName: "at:by"))
    var timestampJump: String?

    @Option(help: "x264/x265 preset.")
    var preset = "veryfast"

    @Flag(help: "MP4/MOV: write the index ('moov') before the media data, as for progressive download.")
    var faststart = false

    @Flag(help: "HLS (.m3u8): fragmented MP4 segments (NAME-init.mp4, NAME-000.m4s ...) instead of MPEG-TS.")
    var fmp4 = false

    @Flag(help: "HLS (.m3u8): encrypt the segments with AES-128 under a random key, written beside the playlist as NAME.key.")
    var encrypt = false

    /// x265 writes the peak into the stream (its SEI), where any container keeps it.
    private var hdrPeakInStream: Bool { encoder == "libx265" }

    func validate() throws {
        guard !unflagged || interlaced else { throw ValidationError("--unflagged needs --interlaced") }
        if let codecTag, codecTag.utf8.count != 4 { throw ValidationError("--codec-tag has four characters, e.g. hvc1") }
        guard duration > 0, duration <= 24 * 3600 else { throw ValidationError("--duration must be above 0 and at most 86400 seconds") }
        for (name, seconds) in [("--black-lead", blackLead), ("--fade-in", fadeIn), ("--start-time", startTime),
                                ("--padding-until", paddingUntil ?? 0)] where seconds < 0 {
            throw ValidationError("\(name) must be 0 seconds or more")
        }
        guard (keyframeInterval ?? 1) > 0 else { throw ValidationError("--keyframe-interval must be above 0 seconds") }
        guard (bframes ?? 0) >= 0 else { throw ValidationError("--bframes must be 0 or more") }
        guard [0, 90, 180, 270].contains(rotation) else { throw ValidationError("--rotation must be 0, 90, 180 or 270") }
        // A display matrix lives in an MP4 or MOV header: MPEG-TS and MPEG-PS have none, FFmpeg 5.1 writes none
        // into Matroska, and its HLS muxer does not pass it to fragmented-MP4 segments.
        let carriesMatrix = ["mp4", "mov", "m4v"].contains(URL(fileURLWithPath: out).pathExtension.lowercased())
        guard rotation == 0 && !mirrored || carriesMatrix else {
            throw ValidationError("--rotation and --mirrored need an .mp4 or .mov output: other containers would drop them")
        }
        guard (0...FrameCode.maximumValue).contains(firstFrameNumber) else {
            throw ValidationError("--first-frame-number must be 0 to \(FrameCode.maximumValue)")
        }
        guard !(letterbox && pillarbox) else { throw ValidationError("choose --letterbox or --pillarbox, not both") }
        // FFmpeg's HLS muxer cannot encrypt fragmented MP4 segments.
        guard !(encrypt && fmp4) else { throw ValidationError("--encrypt works with MPEG-TS segments, not with --fmp4") }
        guard paddingUntil == nil || letterbox || pillarbox else {
            throw ValidationError("--padding-until needs --letterbox or --pillarbox")
        }
        guard hdrPeak == nil || hdr != nil else { throw ValidationError("--hdr-peak needs --hdr") }
        guard hdr == nil || !noColorTags else { throw ValidationError("--hdr tags the colour: not with --no-color-tags") }
        // FFmpeg 5.1's mp4, mov and mpegts muxers write no content light level: only x265's SEI or Matroska carries it.
        let container = URL(fileURLWithPath: out).pathExtension.lowercased()
        guard hdrPeak == nil || hdrPeakInStream || ["mkv", "webm"].contains(container) else {
            throw ValidationError("--hdr-peak needs --encoder libx265 (its stream carries it) or an .mkv output")
        }
        // MaxCLL is a 16-bit field in every container and SEI: 70000 wrapped to 4464.
        guard (1...65535).contains(hdrPeak ?? 1) else { throw ValidationError("--hdr-peak must be 1 to 65535 cd/m²") }
        let options = try options()
        try validateAsked(options, container: container)
        if let refusal = SampleVideoWriter.refusal(of: options, path: out) { throw ValidationError(refusal) }
    }

    /// Options that would otherwise do nothing, without a word: bars on a frame already as wide or as narrow,
    /// a jump after the end, HLS's options on another container, varying frame times where none are stored.
    private func validateAsked(_ options: SampleOptions, container: String) throws {
        if letterbox || pillarbox, options.contentRect == PixelRect(size: options.size) {
            throw ValidationError(letterbox ? "--letterbox draws 2.39:1 bars: \(size.width)x\(size.height) is as wide already"
                                            : "--pillarbox draws 4:3 bars: \(size.width)x\(size.height) is as narrow already")
        }
        if let jump = options.timestampJump, jump.at >= duration {
            throw ValidationError("--timestamp-jump at \(jump.at) s is past the \(duration)-s sample")
        }
        if fmp4 || encrypt, container != "m3u8" { throw ValidationError("--fmp4 and --encrypt are for an HLS (.m3u8) output") }
        if vfr, container == "y4m" { throw ValidationError("--vfr needs a container with timestamps: .y4m stores none") }
    }

    func options() throws -> SampleOptions {
        var options = SampleOptions()
        options.size = size
        options.durationSeconds = duration
        let rate = fps.split(separator: "/").compactMap { Int($0) }
        guard (1...2).contains(rate.count), rate.allSatisfy({ $0 > 0 }), rate.count == fps.split(separator: "/").count else {
            throw ValidationError("--fps must be N or N/D, e.g. 25 or 30000/1001")
        }
        options.frameRate = (rate[0], rate.count == 2 ? rate[1] : 1)
        // The encoders count time in frames: a start between two failed inside FFmpeg with a bare error.
        let frameSeconds = Double(options.frameRate.1) / Double(options.frameRate.0), startFrames = startTime / frameSeconds
        guard abs(startFrames - startFrames.rounded()) < 1e-6 else {
            throw ValidationError(String(format: "--start-time must be a whole number of frames: %g or %g at %@ fps",
                                         startFrames.rounded(.down) * frameSeconds, startFrames.rounded(.up) * frameSeconds, fps))
        }
        let aspect = sar.split(separator: ":").compactMap { Int($0) }
        guard aspect.count == 2, aspect.allSatisfy({ $0 > 0 }) else { throw ValidationError("--sar must be N:D above 0, e.g. 4:3") }
        options.sampleAspectRatio = SampleAspectRatio(aspect[0], aspect[1])
        options.letterbox = letterbox
        options.pillarbox = pillarbox
        options.paddingUntilSeconds = paddingUntil
        options.darkEdge = darkEdge
        options.rotation = rotation
        options.mirrored = mirrored
        options.encoder = encoder
        options.pixelFormat = pixelFormat
        options.keyframeIntervalSeconds = keyframeInterval
        options.bFrames = bframes
        options.startSeconds = startTime
        options.firstFrameNumber = firstFrameNumber
        options.variableFrameRate = vfr
        options.interlaced = interlaced
        options.fragmentedMP4Segments = fmp4
        options.hlsKey = encrypt ? (0..<16).map { _ in UInt8.random(in: 0...255) } : nil
        options.fieldsFlagged = !unflagged
        options.colorTagged = !noColorTags
        if let hdr {
            guard let transfer = TransferFunction(rawValue: hdr), transfer.isHDR else {
                throw ValidationError("--hdr must be pq or hlg")
            }
            options.hdr = transfer
            options.hdrPeakLuminance = hdrPeak
            options.hdrPeakInStream = hdrPeakInStream
        }
        options.level = level
        options.codecTag = codecTag
        options.blackLeadSeconds = blackLead
        options.fadeInSeconds = fadeIn
        options.preset = preset
        options.indexFirst = faststart
        if let timestampJump {
            let parts = timestampJump.split(separator: ":").compactMap { Double($0) }
            guard parts.count == 2, parts[0] > 0, parts[1] > 0 else {
                throw ValidationError("--timestamp-jump must be AT:BY seconds, both above 0 (muxers refuse steps back)")
            }
            options.timestampJump = (parts[0], parts[1])
        }
        if let blur {
            let parts = blur.split(separator: "-", omittingEmptySubsequences: false)
            let bounds = parts.compactMap { Double($0) }
            guard parts.count == 2, bounds.count == 2, bounds[0] >= 0, bounds[0] <= bounds[1] else {
                throw ValidationError("--blur must be FROM-TO seconds, 0 or more, e.g. 4-6")
            }
            options.blurredRange = bounds[0]...bounds[1]
        }
        return options
    }

    func run() throws {
        let options = try options()
        // Killed or interrupted, the half-written file (a hidden temporary beside --out) goes with it.
        let signals = SignalHandler()
        signals.install(quitsAtOnce: true)
        let progress = Terminal.standardErrorIsTerminal ? ProgressLine(label: "encoding \(out)") : nil
        do {
            // As the batch commands' --out: the folder is made when missing (FFmpeg failed with a bare ENOENT).
            try FileManager.default.createDirectory(atPath: URL(fileURLWithPath: out).deletingLastPathComponent().path,
                                                    withIntermediateDirectories: true)
            try SampleVideoWriter.write(to: out, options: options) { progress?.update(fraction: $0) }
            progress?.finish()
        } catch {
            progress?.finish()
            Terminal.report(InputFailure(path: out, error: error))
            throw ExitCode(ExitStatus.someInputsFailed)
        }
        try Terminal.writeLine(out)
    }
}

func parseSize(_ text: String) throws -> PixelSize {
    let parts = text.lowercased().split(separator: "x").compactMap { Int($0) }
    guard parts.count == 2, parts[0] > 0, parts[1] > 0 else { throw ValidationError("size must be WxH, e.g. 1920x1080") }
    return PixelSize(width: parts[0], height: parts[1])
}
