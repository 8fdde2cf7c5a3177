import Foundation

/// Whether a video opens on black (a fade from black, a slate of black before the programme): its first thumbnail
/// and any poster taken from the first frame are then black. Read from keyframes only, in order, so a video that
/// does not open on black costs one keyframe decode.
public enum BlackOpening {
    /// Keyframes are read this far in at most.
    static let limitSeconds = 60.0

    /// Nil when the first frame shows a picture; else how long the black lasts, to the first keyframe that is not
    /// black (seconds from the start; the keyframes set the resolution), or up to `limitSeconds` or the end.
    public static func seconds(_ stream: StreamFacts, path: String, maxPixels: Int = MediaFile.defaultMaxPixels) throws -> Double? {
        let reader = try FrameReader(path: path, analysis: stream.analysis, threads: 1, keyframesOnly: true,
                                     maxPixels: maxPixels)
        let start = stream.info.startSeconds
        guard let first = try reader.nextFrame(), isBlack(first) else { return nil }
        var last = first.timeSeconds - start
        while let frame = try reader.nextFrame() {
            last = frame.timeSeconds - start
            if !isBlack(frame) || last > limitSeconds { return last }
        }
        return max(last, stream.durationSeconds)
    }

    /// Black: dark (under 3% of the way from black to white on average) and flat, from the poster scorer's
    /// downscaled luma.
    static func isBlack(_ frame: DecodedFrame) -> Bool {
        let score = PosterScore(frame: frame)
        return score.brightness < 0.03 && score.contrast < 0.02
    }
}
