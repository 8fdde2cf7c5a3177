import Foundation
import FrameFarmCore

/// Finds letterbox/pillarbox bars baked into the picture, on the CPU from the luma plane. A row or column is a
/// bar in one frame when none of its pixels rises above near-black; a bar is reported only where it is a bar in
/// every sampled frame that isn't itself (near) black, so dark scenes and fades to black don't fool it.
public enum PaddingDetector {
    /// Brightest a bar pixel may be, as a fraction of the black-to-white range (FFmpeg's cropdetect uses 24/255).
    static let barThreshold = 0.1
    /// Bars thinner than this fraction of the frame are edge noise from encoders, not padding.
    static let minimumBarFraction = 0.01

    /// Bar thicknesses in coded pixels.
    public typealias Bars = (top: Int, bottom: Int, left: Int, right: Int)

    /// Bars of one frame as (top, bottom, left, right) pixel counts in coded pixels; nil when the frame is dark
    /// all over and so says nothing about where the picture ends.
    public static func bars(in frame: DecodedFrame) -> Bars? {
        let width = frame.format.width, height = frame.format.height
        let limit = darkLimit(frame.format)
        return frame.withLumaPlane { base, bytesPerRow in
            let bytes = frame.format.bytesPerSample
            func sample(_ x: Int, _ y: Int) -> Int {
                bytes == 1 ? Int(base.load(fromByteOffset: y * bytesPerRow + x, as: UInt8.self))
                    : Int(base.loadUnaligned(fromByteOffset: y * bytesPerRow + x * 2, as: UInt16.self))
            }
            func rowIsDark(_ y: Int, _ columns: Range<Int>) -> Bool { !columns.contains { sample($0, y) > limit } }
            func columnIsDark(_ x: Int, _ rows: Range<Int>) -> Bool { !rows.contains { sample(x, $0) > limit } }
            let allColumns = 0..<width
            guard let firstLit = (0..<height).first(where: { !rowIsDark($0, allColumns) }) else { return nil }
            let lastLit = (0..<height).reversed().first { !rowIsDark($0, allColumns) }!
            let litRows = firstLit..<(lastLit + 1)
            let firstColumn = (0..<width).first { !columnIsDark($0, litRows) } ?? 0
            let lastColumn = (0..<width).reversed().first { !columnIsDark($0, litRows) } ?? width - 1
            return (firstLit, height - 1 - lastLit, firstColumn, width - 1 - lastColumn)
        }
    }

    /// The picture's content rect in coded pixels from per-frame bars (nil entries are dark frames); the full
    /// frame when no frame says anything or the bars are too thin to be padding.
    public static func contentRect(codedSize: PixelSize,
                                   bars: [Bars?]) -> PixelRect {
        let usable = bars.compactMap { $0 }
        guard !usable.isEmpty else { return PixelRect(size: codedSize) }
        func significant(_ bar: Int, of extent: Int) -> Int {
            Double(bar) >= Double(extent) * minimumBarFraction ? bar : 0
        }
        let top = significant(usable.map(\.top).min()!, of: codedSize.height)
        let bottom = significant(usable.map(\.bottom).min()!, of: codedSize.height)
        let left = significant(usable.map(\.left).min()!, of: codedSize.width)
        let right = significant(usable.map(\.right).min()!, of: codedSize.width)
        let rect = PixelRect(x: left, y: top, width: codedSize.width - left - right, height: codedSize.height - top - bottom)
        return rect.isEmpty ? PixelRect(size: codedSize) : rect
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

    /// Samples `count` frames spread over the video (keyframes near 5% ... 95% of it) and finds the content rect.
    /// The samples are split into contiguous runs, one per worker, each decoded by its own reader: decoding them
    /// one after another on one core was most of `probe`'s time on 4K video (9 keyframes of 4K HEVC, 0.5 s).
    /// Throws `InputError.noDecodableFrames` when not one frame decodes.
    public static func detect(path: String, analysis: StreamAnalysis? = nil, durationSeconds: Double,
                              startSeconds: Double, count: Int = defaultSampleCount,
                              maxPixels: Int = MediaFile.defaultMaxPixels,
                              workers: Int = ProcessInfo.processInfo.activeProcessorCount) throws -> PixelRect {
        let targets = sampleTimes(durationSeconds: durationSeconds, startSeconds: startSeconds, count: count)
        let sampled = try FrameReader.inKeyframeRuns(path: path, analysis: analysis, targets: targets, workers: workers,
                                                     maxPixels: maxPixels) { reader, run in
            SampledRun(codedSize: reader.info.geometry.codedSize, frames: try run.compactMap { target in
                try reader.keyframe(atOrBefore: target).map { (time: $0.timeSeconds, bars: bars(in: $0)) }
            })
        }
        // Nearby targets can land on the same keyframe; each frame counts once.
        var seen = Set<Double>()
        var perFrame: [Bars?] = []
        for run in sampled {
            for frame in run.frames where seen.insert(frame.time).inserted { perFrame.append(frame.bars) }
        }
        if perFrame.isEmpty {
            let reader = try FrameReader(path: path, analysis: analysis, threads: 1, keyframesOnly: true,
                                         maxPixels: maxPixels)
            guard let first = try reader.keyframe(atOrBefore: startSeconds) else { throw InputError.noDecodableFrames }
            perFrame.append(bars(in: first))
        }
        return contentRect(codedSize: sampled[0].codedSize, bars: perFrame)
    }

    private struct SampledRun {
        var codedSize: PixelSize
        var frames: [(time: Double, bars: Bars?)]
    }

    private static func darkLimit(_ format: FrameFormat) -> Int {
        let (black, white) = format.lumaLevels
        return Int(black + (white - black) * barThreshold)
    }
}
