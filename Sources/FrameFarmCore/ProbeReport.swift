/// What `framefarm probe --json` prints per input, and the `probe` section of every manifest.json. The keys are a
/// public contract (docs/commands.md, "probe --json keys"): add keys, never rename or remove them.
public struct ProbeReport: Codable, Sendable, Equatable {
    public struct Rect: Codable, Sendable, Equatable {
        public var x: Int, y: Int, width: Int, height: Int

        public init(x: Int, y: Int, width: Int, height: Int) {
            self.x = x
            self.y = y
            self.width = width
            self.height = height
        }

        public init(_ rect: PixelRect) { self.init(x: rect.x, y: rect.y, width: rect.width, height: rect.height) }
        public var pixelRect: PixelRect { PixelRect(x: x, y: y, width: width, height: height) }
    }

    public var path = ""
    public var container = ""
    public var codec = ""
    /// The codec's profile as FFmpeg names it ("High", "Main 10") and its level as the codec's specification
    /// numbers it (4.2, 5.0); absent when the stream does not say.
    public var codecProfile: String?
    public var codecLevel: Double?
    /// The stream's four-character code in its container (the MP4 sample entry: "avc1", "hvc1", "hev1").
    public var codecTag: String?
    /// The container as delivery rules name it: mp4, mov, mpegts, webm, matroska, or FFmpeg's demuxer name.
    public var fileFormat: String?
    /// MP4 and MOV read from disk: whether the index ('moov') comes before the media data (progressive download
    /// starts at once), or after it.
    public var indexFirst: Bool?
    public var pixelFormat = ""
    public var codedWidth = 0
    public var codedHeight = 0
    public var sampleAspectRatio = "1:1"
    /// Clockwise degrees from the display matrix: 0, 90, 180 or 270.
    public var rotation = 0
    public var mirrored = false
    public var displayWidth = 0
    public var displayHeight = 0
    /// displayWidth / displayHeight.
    public var aspectRatio = 0.0
    /// Class of the content (padding removed): standard, wide or ultra-wide.
    public var aspectClass = AspectClass.standard
    /// What `--modes auto` picks under `policy` on a 16:9 screen turned like the video.
    public var defaultMode = ViewingMode.fit
    public var policy = ModePolicy.hig

    /// What `policy` picks for a picture of `size` on the reference screen: 16:9, turned like the picture.
    public static func defaultMode(of size: PixelSize, policy: ModePolicy) -> ViewingMode {
        policy.mode(content: size, screen: PixelSize(width: 1920, height: 1080).oriented(size.orientation))
    }
    /// The file's timeline: from its start (or, in a playlist, its first segment's) to the video's end.
    public var durationSeconds = 0.0
    /// Where the video's first frame is on that timeline, when the file starts before it (its audio first);
    /// absent when 0. Every output's times count from the file's start, as players' do.
    public var videoStartSeconds: Double?
    /// The video's own length, its first frame to its end: the timeline less the lead.
    public var videoDurationSeconds: Double { durationSeconds - (videoStartSeconds ?? 0) }
    /// Renditions of a multivariant playlist left out of the ladder, each as why (their playlists could not be
    /// read), as players leave them out; absent when none.
    public var skippedRenditions: [String]?
    public var frameRate: Double?
    public var keyframeIntervalSeconds: Double?
    /// The longest gap between keyframes (the worst seek), over the same packets as `keyframeIntervalSeconds`.
    public var keyframeIntervalMaxSeconds: Double?
    /// How the frames are spaced in time (constant or variable rate, timestamp jumps), over the same packets.
    public var frameTiming: FrameTiming?
    /// When the first frame is black: how long the black lasts, to the first keyframe with a picture. Measured
    /// by `probe` and `lint` (absent in a rendering job's manifest).
    public var blackOpeningSeconds: Double?
    public var colorMatrix = ColorMatrix.bt709
    public var colorRange = ColorRange.limited
    public var colorTransfer = TransferFunction.bt709
    public var colorPrimaries = ColorPrimaries.bt709
    /// HDR content's peak in cd/m² from its metadata (nil for SDR or when unstated; tone mapping then assumes 1000).
    public var peakLuminance: Double?
    public var chromaSiting = ChromaSiting.left
    /// The colour tags the stream leaves unspecified ("matrix", "primaries", "transfer"), which players guess;
    /// absent when it states them all. The colour fields above then hold what FrameFarm assumed.
    public var colorTagsMissing: [String]?
    /// Whether the stream says its frames are interlaced (they are then shown from their first field); absent when
    /// it doesn't say.
    public var interlaced: Bool?
    /// How many of the padding search's frames show combing (interlaced fields woven into a progressive frame),
    /// whatever the stream says. Measured by `probe` and `lint`.
    public var combing: CombingTally?
    /// The damage met in what `probe` and `lint` read (the packet scan and the sampled frames; the whole file is
    /// not decoded): absent when none was.
    public var damagedData: DamagedData?

    /// Whether the transfer is HDR (PQ or HLG): its renders are tone-mapped to SDR.
    public var isHDR: Bool { colorTransfer.isHDR }
    /// Bits per component, from FFmpeg's name of the pixel format (`yuv420p10le` and `p010le` are 10 bits); 8 where
    /// the name gives none (`yuv420p`, `nv12`).
    public var bitDepth: Int {
        (pixelFormat.firstMatch(of: /p(\d+)(le|be)?$/)).flatMap { Int($0.output.1) } ?? 8
    }
    /// The picture without baked-in bars, in display pixels; the full frame when there are none.
    public var contentRect = Rect(x: 0, y: 0, width: 0, height: 0)
    public var contentAspectRatio = 0.0
    /// Bars found throughout the video (what `contentRect` leaves out).
    public var paddingDetected = false
    /// `none`, `throughout` or `partial` (bars in part of the video only, which `--remove-padding auto` keeps).
    /// Optional: manifests written before it was recorded lack it.
    public var padding: PaddingKind?
    /// Sampled frames (not dark all over) the padding decision rests on; below 3 no bar is certain.
    public var paddingSamples: Int?
    /// `certain` (bars proven: `--remove-padding auto` removes them), `likely` (bars not proven, which only
    /// `--remove-padding force` removes) or `none`.
    public var paddingConfidence: PaddingConfidence?
    /// What `--remove-padding force` keeps, in display pixels: `contentRect` less the likely bars.
    public var likelyContentRect: Rect?
    /// Per display edge, how many of the samples show flat black ending where its (likely) bar ends.
    public var paddingEdgeSamples: EdgeCounts?
    /// For partial padding: the picture inside the bars where they show, in display pixels, and about what share
    /// of the video shows them.
    public var partialPadding: PartialPadding?
    /// When the file is shorter than its own index says (a download or copy cut short): about where its video data
    /// stops, in seconds from the start; frames asked for after it show the last frame before it. Absent otherwise.
    public var cutShortAtSeconds: Double?
    /// For a multivariant HLS playlist or DASH manifest: the rendition read (position, size, bandwidth) and why
    /// `--rendition` picked it. Absent for other inputs.
    public var rendition: Rendition?
    /// The file's audio streams, in its order (delivery rules judge their codecs); absent when it has none.
    public var audio: [AudioTrack]?

    public struct PartialPadding: Codable, Sendable, Equatable {
        public var contentRect: Rect
        public var share: Double

        public init(contentRect: Rect, share: Double) {
            self.contentRect = contentRect
            self.share = share
        }
    }

    /// An audio stream: its codec and profile as FFmpeg names them ("aac", "LC"; no profile where the codec has
    /// none), its channels and sample rate.
    public struct AudioTrack: Codable, Sendable, Equatable {
        public var codec: String
        public var profile: String?
        public var channels: Int
        public var sampleRate: Int

        public init(codec: String, profile: String? = nil, channels: Int, sampleRate: Int) {
            self.codec = codec
            self.profile = profile
            self.channels = channels
            self.sampleRate = sampleRate
        }
    }

    public init() {}

    /// "cut short: video data stops at about X s of Y s": how every line about a file cut short begins (probe's
    /// text, and the warnings of the commands, which go on to say what became of the frames asked for).
    public static func cutShortNote(atSeconds cut: Double, ofSeconds duration: Double) -> String {
        String(format: "cut short: video data stops at about %.3f s of %.3f s", cut, duration)
    }
}
