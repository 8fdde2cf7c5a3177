import FrameFarmCore

/// How a video file is encoded: the stream's geometry, timing and tags, and the encoder's settings.
public struct VideoEncoding: Sendable {
    public var size = PixelSize(width: 1280, height: 720)
    /// Frames per second as a fraction (30000/1001 for 29.97).
    public var frameRate = (numerator: 25, denominator: 1)
    public var sampleAspectRatio = SampleAspectRatio.square
    /// Display-matrix rotation, clockwise degrees (0, 90, 180, 270).
    public var rotation = 0
    /// Mirror the picture left-right in the display matrix, before the rotation (as DisplayTransform reads it):
    /// the front-camera case.
    public var mirrored = false
    /// Encoder name (libx264, libx265, mpeg4, mjpeg ...); nil picks libx264, else mpeg4.
    public var encoder: String?
    /// Pixel format name (yuv420p, yuv444p10le ...); nil takes the encoder's first choice.
    public var pixelFormat: String?
    /// Keyframe every this many seconds; nil keeps the encoder's default GOP (x264: 250 frames + scene cuts).
    public var keyframeIntervalSeconds: Double?
    public var bFrames: Int?
    /// x264/x265: whether the encoder chooses where B-frames go (its default). On the sample pattern, which each
    /// frame predicts well from the one before, it chooses P-frames nearly throughout (2 B-frames of 25 at 720p),
    /// where camera and streaming encodes are mostly B-frames; false puts `bFrames` of them between every two
    /// P-frames (b-adapt=0), as such encodes have them.
    public var adaptiveBFrames = true
    /// First timestamp of the stream, in seconds (use a .ts container to keep it: MP4 edit lists hide it).
    public var startSeconds = 0.0
    /// Frame durations vary (a 1/90000 s time base); else one tick per frame.
    public var variableFrameRate = false
    /// Interlaced, top field first, as a broadcast camera captures: the pictures given hold the two fields in
    /// alternate rows, the odd ones half a frame later.
    public var interlaced = false
    /// With `interlaced`: whether the stream says so. False encodes the woven frames as progressive, as a
    /// transcode that loses the field flags leaves them (the combing is still there to see).
    public var fieldsFlagged = true
    /// Whether the stream states its colour matrix, primaries and transfer; false leaves them unspecified.
    public var colorTagged = true
    /// Colour tags in the container alone (Matroska's Colour element, an MP4 `colr` box), the bitstream's left
    /// unspecified, as some remuxing tools leave a file.
    public var colorTagsInContainerOnly = false
    /// The H.264 level to write (4.2, 5.1); nil lets the encoder pick it from the size and rate.
    public var level: Double?
    /// The sample entry of the codec in an MP4 ("hvc1" for HEVC, which FFmpeg otherwise writes as "hev1").
    public var codecTag: String?
    /// HDR tags: BT.2020 primaries and matrix with this transfer (pq or hlg), and the content's peak in cd/m² as
    /// container metadata (MaxCLL) when given. Tags only: the pictures are written as they are.
    public var hdrTransfer: TransferFunction?
    public var hdrPeakLuminance: Int?
    /// With libx265: the peak in the stream's SEI (x265's `hdr10` and `max-cll`) and not in the container, as
    /// FFmpeg's mp4 muxer leaves HDR10 files (it writes no container metadata).
    public var hdrPeakInStream = false
    /// x264/x265 preset (ultrafast for tests, veryfast for realistic bench inputs).
    public var preset = "veryfast"
    /// MP4/MOV: the index ('moov') before the media data, as files for progressive download have it, instead of
    /// after it. A copy of such a file cut short still opens; one with the index last does not.
    public var indexFirst = false
    /// Matroska as a live recording or a pipe writes it: no duration and no index (the muxer's `live` option).
    public var liveStream = false
    /// An HLS output's segments: MPEG-TS (`-000.ts` ...) or fragmented MP4 (`-init.mp4`, then `-000.m4s` ...).
    public var fragmentedMP4Segments = false
    /// An HLS output's AES-128 key (16 bytes): the segments are encrypted with it, and the key is written beside
    /// the playlist (`NAME.key`), which points to it (`#EXT-X-KEY:METHOD=AES-128,URI="NAME.key"`).
    public var hlsKey: [UInt8]?

    public init() {}
}
