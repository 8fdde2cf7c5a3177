import Foundation
import FrameFarmCore
import FrameFarmMedia

/// What `framefarm sample` makes. Every frame carries its number as a FrameCode and a clock. How the file is
/// encoded (size, rate, aspect ratio, rotation, codec, GOP, interlacing, HDR tags ...) is `encoding`, whose fields
/// read and write as the options' own (`options.size`, `options.keyframeIntervalSeconds`).
@dynamicMemberLookup
public struct SampleOptions: Sendable {
    public var encoding = VideoEncoding()
    public var durationSeconds = 10.0
    /// Bake 2.39:1 letterbox bars (top and bottom) or 4:3 pillarbox bars (left and right) into the frame.
    public var letterbox = false
    public var pillarbox = false
    /// The number the first frame carries (FrameCode and counter): a sample to be appended to another, as
    /// concatenated MPEG-TS files are, continues the other's numbering.
    public var firstFrameNumber = 0
    /// Seconds of black at the start, then seconds of fade-in; and a stretch of blurred frames.
    public var blackLeadSeconds = 0.0
    public var fadeInSeconds = 0.0
    public var blurredRange: ClosedRange<Double>?
    /// A dark, textured band down the left edge of the picture (an eighth of its width, like dark hair or a wall
    /// at night): dark picture that a padding detector must not take for a bar.
    public var darkEdge = false
    /// With `letterbox` or `pillarbox`: the bars show until this time only, then the picture fills the frame
    /// (partial padding, as in archive footage cut into a programme).
    public var paddingUntilSeconds: Double?
    /// A break in the timestamps, as splicing or a capture that dropped out leaves: frames from `at` seconds on are
    /// stamped `by` seconds later (whole frames). The frames themselves are unchanged.
    public var timestampJump: (at: Double, by: Double)?
    /// Graded as HDR in BT.2020 with this transfer (pq or hlg), SDR white at 203 cd/m² (`HDRGrade`), and tagged
    /// so; 10-bit unless `pixelFormat` says otherwise. `encoding.hdrTransfer` alone tags the SDR pictures.
    public var hdr: TransferFunction?

    public subscript<Value>(dynamicMember field: WritableKeyPath<VideoEncoding, Value>) -> Value {
        get { encoding[keyPath: field] }
        set { encoding[keyPath: field] = newValue }
    }

    public init() {}

    /// The content rect inside the coded frame: the whole frame, or the frame minus baked-in bars sized so that
    /// the picture is 2.39:1 (letterbox) or 4:3 (pillarbox) in display terms, SAR included.
    public var contentRect: PixelRect {
        let size = encoding.size, pixelAspect = encoding.sampleAspectRatio.value
        if letterbox {
            let height = min(size.height, Int((Double(size.width) * pixelAspect / 2.39 / 2).rounded()) * 2)
            return PixelRect(x: 0, y: (size.height - height) / 2 & ~1, width: size.width, height: height)
        }
        if pillarbox {
            let width = min(size.width, Int((Double(size.height) * 4 / 3 / pixelAspect / 2).rounded()) * 2)
            return PixelRect(x: (size.width - width) / 2 & ~1, y: 0, width: width, height: size.height)
        }
        return PixelRect(size: size)
    }
}

/// Encodes a synthetic sample video (no ffmpeg CLI needed): every frame carries its number as a FrameCode.
public enum SampleVideoWriter {
    /// Why `options` cannot be written to `path` (an encoder the container does not take, an odd size x264
    /// refuses, a preset or level that does not exist); nil when they can.
    public static func refusal(of options: SampleOptions, path: String) -> String? {
        VideoFileWriter.refusal(of: encoding(of: options), finalPath: path)
    }

    /// How `options` are encoded: HDR is 10-bit unless they say otherwise.
    private static func encoding(of options: SampleOptions) -> VideoEncoding {
        var encoding = options.encoding
        if let hdr = options.hdr {
            encoding.hdrTransfer = hdr
            encoding.pixelFormat = encoding.pixelFormat ?? "yuv420p10le"
        }
        return encoding
    }

    /// Writes the sample to `path` atomically (a temporary name in the same folder, then a rename).
    /// `progress` gets the fraction done.
    public static func write(to path: String, options: SampleOptions,
                             progress: ((Double) -> Void)? = nil) throws {
        guard options.durationSeconds >= 0 else {
            throw MediaError(call: "sample", code: .invalidArgument, message: "duration must not be negative")
        }
        let encoding = encoding(of: options)
        if let refusal = VideoFileWriter.refusal(of: encoding, finalPath: path) {
            throw MediaError(call: "sample", code: .invalidArgument, message: refusal)
        }
        let temporary = AtomicFile.temporaryPath(for: path)
        do {
            let writer = try VideoFileWriter(path: temporary, finalPath: path, encoding: encoding)
            let subsampling = writer.chromaSubsampling
            func pattern(content: PixelRect) -> SamplePattern {
                SamplePattern(size: options.size, content: content, chromaSubsamplingX: subsampling.x,
                              chromaSubsamplingY: subsampling.y, darkEdge: options.darkEdge)
            }
            let frames = SampleFrames(pattern: pattern(content: options.contentRect),
                                      fullFramePattern: options.paddingUntilSeconds.map { _ in
                                          pattern(content: PixelRect(size: options.size))
                                      }, options: options)
            try frames.encode(with: writer, progress: progress)
            try writer.finish()
            try AtomicFile.commit(temporary, to: path)
        } catch {
            try? FileManager.default.removeItem(atPath: temporary)
            throw error
        }
    }
}

extension SampleOptions {
    var frameDuration: Double { Double(encoding.frameRate.denominator) / Double(encoding.frameRate.numerator) }
}

/// What each frame of a sample shows and when. Values only, so frames are drawn on several threads at once.
struct SampleFrames: Sendable {
    let pattern: SamplePattern
    /// What frames after `options.paddingUntilSeconds` show.
    let fullFramePattern: SamplePattern?
    let options: SampleOptions
    /// For an HDR sample, its grading (its tables made once).
    let grade: HDRGrade?

    init(pattern: SamplePattern, fullFramePattern: SamplePattern?, options: SampleOptions) {
        self.pattern = pattern
        self.fullFramePattern = fullFramePattern
        self.options = options
        grade = options.hdr.map { HDRGrade(transfer: $0, height: options.size.height) }
    }

    /// Draws the frames a batch ahead on every core (drawing costs more than x264's veryfast encode) and hands
    /// them to `writer` one by one, in order.
    func encode(with writer: VideoFileWriter, progress: ((Double) -> Void)?) throws {
        let times = frameTimes()
        let batchSize = min(16, Concurrent.cores)
        for batchStart in stride(from: 0, to: times.count, by: batchSize) {
            let batch = batchStart..<min(batchStart + batchSize, times.count)
            let drawn = Concurrent.map(count: batch.count) { offset in
                planes(index: batch.lowerBound + offset, time: times[batch.lowerBound + offset])
            }
            for (offset, picture) in drawn.enumerated() {
                let index = batch.lowerBound + offset
                try writer.write(picture, at: times[index])
                progress?(Double(index + 1) / Double(times.count))
            }
        }
    }

    /// The presentation time of every frame: one at 0, then every frame that starts before the duration ends.
    /// Variable-frame-rate samples cycle their frame durations through 1, 0.5 and 1.5 frame periods; a
    /// `timestampJump` shifts the frames from its time on.
    func frameTimes() -> [Double] {
        var times = [0.0]
        while true {
            let index = times.count - 1
            let next = options.variableFrameRate
                ? times[index] + options.frameDuration * [1.0, 0.5, 1.5][index % 3]
                : Double(index + 1) * options.frameDuration
            guard next < options.durationSeconds else { break }
            times.append(next)
        }
        guard let jump = options.timestampJump else { return times }
        let shift = (jump.by / options.frameDuration).rounded() * options.frameDuration
        return times.map { $0 >= jump.at ? $0 + shift : $0 }
    }

    /// Frame `index`'s planes; an interlaced sample takes its bottom field from half a frame later.
    func planes(index: Int, time: Double) -> YCbCrPlanes {
        var planes = draw(index: index, time: time)
        if options.interlaced {
            planes = pattern.interlace(top: planes, bottom: draw(index: index, time: time + options.frameDuration / 2))
        }
        grade?.regrade(&planes, size: options.size, chromaSubsampling: (pattern.chromaSubsamplingX, pattern.chromaSubsamplingY))
        return planes
    }

    private func draw(index: Int, time: Double) -> YCbCrPlanes {
        let brightness: Double
        if time < options.blackLeadSeconds {
            brightness = 0
        } else if options.fadeInSeconds > 0, time < options.blackLeadSeconds + options.fadeInSeconds {
            brightness = (time - options.blackLeadSeconds) / options.fadeInSeconds
        } else {
            brightness = 1
        }
        let shown = options.paddingUntilSeconds.map { time >= $0 } == true ? fullFramePattern ?? pattern : pattern
        return shown.draw(index: options.firstFrameNumber + index, time: time, brightness: brightness,
                          blurred: options.blurredRange?.contains(time) ?? false)
    }
}
