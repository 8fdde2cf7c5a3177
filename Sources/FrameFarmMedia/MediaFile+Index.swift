import CFFmpeg

/// What the container's index says: whether there is one of its own, and where a file cut short loses its video.
extension MediaFile {
    /// Whether the stream's index is the container's own (MP4's sample tables, Matroska's cues, AVI's). MPEG-TS and
    /// MPEG-PS have none: FFmpeg lists there only the keyframes its seeks happened to pass, so a keyframe missing
    /// from that list may lie between two listed ones.
    var hasIndex: Bool { !["mpegts", "mpeg"].contains(String(cString: context.pointee.iformat.pointee.name)) }

    /// Whether the index's entries are its keyframes' own times. ASF's simple index maps each interval (a second) to
    /// the keyframe before it, and FFmpeg stamps the entry with the interval's time, up to one interval after the
    /// keyframe's: a target just after a keyframe found the one before (keyframe thumbnails showed the previous
    /// keyframe for a second). Keyframe seeks search there, as where there is no index.
    var indexHoldsKeyframeTimes: Bool { hasIndex && String(cString: context.pointee.iformat.pointee.name) != "asf" }

    /// Where the video's data stops when the file is shorter than its own index says: the stream time of the first
    /// packet the index lists that lies wholly or partly past the end of the file. That is a download or copy cut
    /// short of a file whose index comes first (web MP4s have it first). Nil when every indexed packet is there,
    /// or when the container has no index or no known size (MPEG-TS: a cut stream then simply ends earlier).
    var indexedDataEndSeconds: Double? {
        guard let io = context.pointee.pb else { return nil }
        let fileBytes = avio_size(io)
        guard fileBytes > 0 else { return nil }
        var earliestMissing: Int64?
        for index in 0..<avformat_index_get_entries_count(stream) {
            guard let entry = avformat_index_get_entry(stream, index)?.pointee, entry.pos >= 0,
                  entry.pos + Int64(entry.size) > fileBytes else { continue }
            earliestMissing = min(earliestMissing ?? entry.timestamp, entry.timestamp)
        }
        guard let earliestMissing else { return nil }
        // MP4 indexes by decode time, which runs behind presentation by the reordering delay: the gap between the
        // first presentation time and the first entry's time.
        var delay: Int64 = 0
        if let first = avformat_index_get_entry(stream, 0)?.pointee, stream.pointee.start_time != framefarm_av_nopts_value() {
            delay = max(0, stream.pointee.start_time - first.timestamp)
        }
        return seconds(earliestMissing + delay)
    }
}
