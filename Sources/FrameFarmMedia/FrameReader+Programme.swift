import FrameFarmCore

extension FrameReader {
    /// For a playlist of runs stitched at discontinuities (or a DASH manifest of several periods) whose longest run
    /// is not the first, the geometry of that run's picture when it differs from the first's, which FFmpeg analysed:
    /// the programme's, where an advertisement comes before it. Nil otherwise. Decodes the run's first keyframe.
    public func programmeGeometry() throws -> DisplayGeometry? {
        guard let playlist = segmentedPlaylist?.playlist, playlist.hasDiscontinuities else { return nil }
        let run = playlist.longestRun
        guard run.lowerBound > 0 else { return nil }
        // Half its first segment in: the run's first keyframe lies at its start, where the durations before it end.
        let start = playlist.start(of: run.lowerBound, firstStart: info.startSeconds)
        let frame = try keyframe(atOrBefore: start + playlist.segments[run.lowerBound].duration / 2)
        return frame?.ownGeometry(in: info.geometry)
    }
}
