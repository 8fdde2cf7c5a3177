import FrameFarmCore

extension FrameReader {
    /// Splits `targets` into contiguous runs, one per worker (at most one per target), and calls `body` on each
    /// run at once, each with its own single-threaded reader (keyframe-only by default); returns the runs' results
    /// in order, or rethrows the first run's error. For samples spread over a video (padding, poster candidates):
    /// decoded one after another they kept one core busy and the others idle.
    public static func inRuns<Result: Sendable>(
        path: String, analysis: StreamAnalysis?, targets: [Double], workers: Int, keyframesOnly: Bool = true,
        referenceFramesOnly: Bool = false, skipsDeblocking: Bool = false, maxPixels: Int,
        _ body: @Sendable (FrameReader, ArraySlice<Double>) throws -> Result
    ) throws -> [Result] {
        let runs = targets.indices.split(into: max(1, min(workers, targets.count)))
        return try Concurrent.map(count: runs.count) { run in
            Swift.Result { () throws -> Result in
                let reader = try FrameReader(path: path, analysis: analysis, threads: 1, keyframesOnly: keyframesOnly,
                                             referenceFramesOnly: referenceFramesOnly, skipsDeblocking: skipsDeblocking,
                                             maxPixels: maxPixels)
                return try body(reader, targets[runs[run]])
            }
        }.map { try $0.get() }
    }
}
