import Foundation
import FrameFarmCore

/// Finds letterbox/pillarbox bars baked into the picture, on the CPU from the luma plane: per sampled frame, how far
/// in from each edge it is flat black and how far it stays dark (`FrameBars`); `Padding.decide` then weighs the
/// frames, so dark scenes, fades and dark picture by an edge (hair, a night sky) are not taken for bars.
public enum PaddingDetector {
    /// Brightest a dark pixel may be, as a fraction of the black-to-white range (FFmpeg's cropdetect uses 24/255):
    /// the picture begins at the first pixel above it.
    static let darkThreshold = 0.1
    /// Brightest a bar pixel may be: bars carry at most encoder noise around black; dark picture carries texture
    /// and gradients above it.
    static let flatThreshold = 0.03
    /// Brightest a pixel may be in the few lines just past flat black (`Padding.edgeRamp`) and still be bar: an
    /// encoder's ringing off a white edge reaches some 15% of the range there.
    static let rampThreshold = 0.2

    /// One frame's evidence at its four edges, in coded pixels; nil when the frame is dark all over and so says
    /// nothing about where the picture ends, or is not of the video's `codedSize` (an advertisement's, stitched in
    /// at a discontinuity: its bars are not the video's). Columns are judged over the rows between the top and
    /// bottom dark runs.
    public static func bars(in frame: DecodedFrame, codedSize: PixelSize) -> FrameBars? {
        guard frame.size == codedSize else { return nil }
        let width = frame.format.width, height = frame.format.height
        let (black, white) = frame.format.lumaLevels
        let darkLimit = Int(black + (white - black) * darkThreshold)
        let flatLimit = Int(black + (white - black) * flatThreshold)
        let rampLimit = Int(black + (white - black) * rampThreshold)
        return frame.withLumaPlane { base, bytesPerRow in
            let bytes = frame.format.bytesPerSample
            func sample(_ x: Int, _ y: Int) -> Int {
                bytes == 1 ? Int(base.load(fromByteOffset: y * bytesPerRow + x, as: UInt8.self))
                    : Int(base.loadUnaligned(fromByteOffset: y * bytesPerRow + x * 2, as: UInt16.self))
            }
            // Brightest pixel of a line, stopping early once it is lit whatever the line's place.
            func brightest(_ pixels: some Sequence<Int>) -> Int {
                var most = Int.min
                for value in pixels where value > most {
                    most = value
                    if most > rampLimit { break }
                }
                return most
            }
            func evidence(_ lines: some Sequence<Int>, brightness: (Int) -> Int) -> EdgeEvidence {
                var flat = 0, dark = 0
                for line in lines {
                    let value = brightness(line)
                    if flat == dark && value <= flatLimit {
                        flat += 1
                    } else {
                        let inRamp = flat > 0 && dark - flat < Padding.edgeRamp
                        if value > (inRamp ? rampLimit : darkLimit) { break }
                    }
                    dark += 1
                }
                return EdgeEvidence(flat: flat, dark: dark)
            }
            let allColumns = 0..<width
            let rowBrightness = { (y: Int) in brightest(allColumns.lazy.map { sample($0, y) }) }
            let top = evidence(0..<height, brightness: rowBrightness)
            guard top.dark < height else { return nil }
            let bottom = evidence((0..<height).reversed(), brightness: rowBrightness)
            let litRows = top.dark..<(height - bottom.dark)
            let columnBrightness = { (x: Int) in brightest(litRows.lazy.map { sample(x, $0) }) }
            return FrameBars(top: top, bottom: bottom, left: evidence(0..<width, brightness: columnBrightness),
                             right: evidence((0..<width).reversed(), brightness: columnBrightness))
        }
    }

    /// How many frames `detect` samples by default.
    public static let defaultSampleCount = 9

    /// The stream times `detect` samples: `count` spread from 5% to 95% of the video (its middle for one).
    public static func sampleTimes(durationSeconds: Double, startSeconds: Double,
                                   count: Int = defaultSampleCount) -> [Double] {
        (0..<count).map { index in
            startSeconds + durationSeconds * (count == 1 ? 0.5 : 0.05 + 0.9 * Double(index) / Double(count - 1))
        }
    }

    /// Samples `count` frames spread over the video (keyframes near 5% ... 95% of it) and decides its padding.
    /// The samples are split into contiguous runs, one per worker, each decoded by its own reader: decoding them
    /// one after another on one core was most of `probe`'s time on 4K video (9 keyframes of 4K HEVC, 0.5 s). A
    /// video whose keyframes give fewer distinct samples than a decision needs (a clip of a few seconds) has
    /// frames at the sample times decoded instead (each the last reference frame at or before its time). Between
    /// that and 9, the keyframes decide (decoding into every GOP of a 10-s 1080p clip cost more than the rest of
    /// its thumbnails): enough for centred bars, while an uneven one then stays unproven, which is the safe side.
    /// Throws `InputError.noDecodableFrames` when not one frame decodes.
    public static func detect(path: String, analysis: StreamAnalysis? = nil, durationSeconds: Double,
                              startSeconds: Double, count: Int = defaultSampleCount,
                              maxPixels: Int = MediaFile.defaultMaxPixels,
                              workers: Int = ProcessInfo.processInfo.activeProcessorCount) throws -> Padding {
        try inspect(path: path, analysis: analysis, durationSeconds: durationSeconds, startSeconds: startSeconds,
                    count: count, maxPixels: maxPixels, workers: workers).padding
    }

    /// What the padding search's frames show: the padding, and, looked at while they are decoded, combing (when
    /// `measuresCombing`) and the damage their decoding met. `probe` and `lint` take all of it. `keyframeTimes`
    /// (every keyframe, from a scan of the whole stream) tells a short clip before any keyframe is decoded for
    /// nothing. `times` replaces the `count` spread sample times, for a caller that has frames of its own for
    /// the others (a thumbnail track's) and decides the padding from both (`FrameInspection.bars`).
    public static func inspect(path: String, analysis: StreamAnalysis? = nil, durationSeconds: Double,
                               startSeconds: Double, keyframeTimes: [Double]? = nil, count: Int = defaultSampleCount,
                               times: [Double]? = nil, maxPixels: Int = MediaFile.defaultMaxPixels,
                               workers: Int = ProcessInfo.processInfo.activeProcessorCount,
                               measuresCombing: Bool = false) throws -> FrameInspection {
        let targets = times ?? sampleTimes(durationSeconds: durationSeconds, startSeconds: startSeconds, count: count)
        @Sendable func look(at frame: DecodedFrame, codedSize: PixelSize) -> SampledFrame {
            SampledFrame(time: frame.timeSeconds, bars: bars(in: frame, codedSize: codedSize),
                         combed: measuresCombing ? CombingDetector.combedShare(in: frame) > CombingDetector.combedFrameShare : nil)
        }
        func sample(keyframesOnly: Bool, workers: Int) throws -> (codedSize: PixelSize, frames: [SampledFrame], corruptTimes: [Double]) {
            // Deblocked, as shown: without the filter, the blocks across a bar's edge (46 rows is no whole number
            // of blocks) read as picture, and the bars came out 2 rows short, which a full-size render showed. A
            // sample needs only lie near its time: frames no other refers to are not decoded.
            let sampled = try FrameReader.inRuns(path: path, analysis: analysis, targets: targets, workers: workers,
                                                 keyframesOnly: keyframesOnly, referenceFramesOnly: true,
                                                 skipsDeblocking: false, maxPixels: maxPixels) { reader, run in
                var lastTime: Double?
                let frames = try run.enumerated().compactMap { offset, target -> SampledFrame? in
                    let next: NextRead = offset + 1 < run.count ? .time(run[run.startIndex + offset + 1]) : .nothing
                    let frame = keyframesOnly ? try reader.keyframe(atOrBefore: target)
                                              : try reader.frame(at: target, lastTime: lastTime, then: next)
                    lastTime = frame?.timeSeconds ?? lastTime
                    return frame.map { look(at: $0, codedSize: reader.info.geometry.codedSize) }
                }
                return SampledRun(codedSize: reader.info.geometry.codedSize, frames: frames,
                                  corruptTimes: reader.corruptPacketTimes)
            }
            // Nearby targets can land on the same frame; each frame counts once.
            var seen = Set<Double>()
            let perFrame = sampled.flatMap(\.frames).filter { seen.insert($0.time).inserted }
            return (sampled[0].codedSize, perFrame, sampled.flatMap(\.corruptTimes))
        }
        let fewest = min(targets.count, Padding.fewestUsableSamples)
        // The keyframes the targets fall back to, when every keyframe is known.
        let keyframesReached = keyframeTimes.map { times in
            Set(targets.compactMap { target in times.filter { $0 <= target + 5e-7 }.max() }).count
        }
        var sampled: (codedSize: PixelSize, frames: [SampledFrame], corruptTimes: [Double])
        if let reached = keyframesReached, reached < fewest {
            // Too few keyframes, known from the scan: straight to exact decoding, one run per keyframe.
            sampled = try sample(keyframesOnly: false, workers: max(1, reached))
        } else {
            sampled = try sample(keyframesOnly: true, workers: workers)
            if sampled.frames.count < fewest, !sampled.frames.isEmpty {
                // Runs that start from the same keyframe would decode its frames twice: one run per keyframe found.
                // The damage the keyframes met stays on record.
                let keyframeDamage = sampled.corruptTimes
                sampled = try sample(keyframesOnly: false, workers: sampled.frames.count)
                sampled.corruptTimes += keyframeDamage
            }
        }
        if sampled.frames.isEmpty {
            let reader = try FrameReader(path: path, analysis: analysis, threads: 1, keyframesOnly: true,
                                         maxPixels: maxPixels)
            guard let first = try reader.keyframe(atOrBefore: startSeconds) else { throw InputError.noDecodableFrames }
            sampled.frames.append(look(at: first, codedSize: reader.info.geometry.codedSize))
        }
        let combed = sampled.frames.compactMap(\.combed)
        return FrameInspection(padding: Padding.decide(codedSize: sampled.codedSize, frames: sampled.frames.map(\.bars)),
                               combing: measuresCombing ? CombingTally(sampledFrames: combed.count, combedFrames: combed.filter { $0 }.count) : nil,
                               corruptTimes: sampled.corruptTimes,
                               bars: Dictionary(sampled.frames.map { ($0.time, $0.bars) }, uniquingKeysWith: { first, _ in first }))
    }

    private struct SampledFrame {
        var time: Double
        var bars: FrameBars?
        var combed: Bool?
    }

    private struct SampledRun {
        var codedSize: PixelSize
        var frames: [SampledFrame]
        var corruptTimes: [Double]
    }

    /// See `inspect`.
    public struct FrameInspection: Sendable {
        public var padding: Padding
        public var combing: CombingTally?
        /// Stream times of the damage the sampled frames' decoding met (`FrameReader.corruptPacketTimes`).
        public var corruptTimes: [Double]
        /// Each sampled frame's evidence, by its stream time: what `padding` was decided from.
        public var bars: [Double: FrameBars?]
    }
}
