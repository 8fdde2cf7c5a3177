import CFFmpeg
import FrameFarmCore

/// Finding keyframes: by the container's index, or where it has none (MPEG-TS) by searching; and the packet scan.
extension FrameReader {
    /// The keyframe at or before `seconds` (stream time), or the first decodable one after it, decoded alone.
    /// Keyframe-only readers drain the decoder right after each keyframe's packet, so it hands the frame over at
    /// once: left to itself it holds a frame back for the stream's reordering delay (two frames with B-frames),
    /// which a keyframe-only decoder fills only by decoding the next keyframes, tripling the work of every
    /// keyframe seek. A target that falls back to the keyframe of the last call, with nothing read since, gets
    /// that frame again without a second decode.
    public func keyframe(atOrBefore seconds: Double) throws -> DecodedFrame? {
        let indexTime = file.indexHoldsKeyframeTimes ? keyframeTime(atOrBefore: seconds) : nil
        // The index of a fragmented MP4 grows as its fragments are read: an entry found only counts when the index
        // reaches past the target.
        if let indexTime, let last = lastKeyframe, last.indexTime == indexTime, last.frame.timeSeconds <= seconds + 5e-7,
           let lastEntry = lastIndexTime, lastEntry > seconds {
            return last.frame
        }
        // Targets a tenth of a second apart in a 6-s GOP of MPEG-TS each searched again: 60 searches, one keyframe.
        if !file.indexHoldsKeyframeTimes, let known = searchedKeyframe, known.frame.timeSeconds <= seconds + 5e-7, seconds + 5e-7 < known.until {
            return known.frame
        }
        try seek(toSeconds: seconds)
        var frame = try nextFrame(), entryTime = indexTime
        // A demuxer without an index (MPEG-TS) lands on a keyframe near the target, before or after it (or past
        // the last one).
        if !file.indexHoldsKeyframeTimes, seconds > info.startSeconds {
            frame = try keyframeBySearching(atOrBefore: seconds, landed: frame)
        }
        // Index times are decode times: with B-frames a keyframe is shown after its entry's time (in an open GOP,
        // MPEG-2's, after the B-frames decoded after it), so a target between the two finds that entry while the
        // keyframe on screen is an earlier one.
        while let shown = frame, shown.timeSeconds > seconds + 5e-7, let entry = entryTime,
              let earlier = keyframeTime(before: entry) {
            // Just before the entry: a seek to the earlier entry's own time may land before that entry (MP4
            // seeks in presentation time, the index lists decode times).
            try seek(toSeconds: entry - 1e-6)
            frame = try nextFrame()
            entryTime = earlier
        }
        if let entryTime, let frame, frame.timeSeconds >= entryTime - 5e-7 { lastKeyframe = (entryTime, frame) }
        return frame
    }

    /// Stream time of the keyframe the container's index lists before the one whose entry is at `seconds`; nil
    /// when it lists none.
    private func keyframeTime(before seconds: Double) -> Double? {
        guard file.hasIndex else { return nil }
        let stream = file.stream
        let index = av_index_search_timestamp(stream, file.timestamp(seconds), AVSEEK_FLAG_BACKWARD)
        guard index > 0, let previous = avformat_index_get_entry(stream, index - 1) else { return nil }
        let earlier = av_index_search_timestamp(stream, previous.pointee.timestamp, AVSEEK_FLAG_BACKWARD)
        guard earlier >= 0, let entry = avformat_index_get_entry(stream, earlier) else { return nil }
        return file.seconds(entry.pointee.timestamp)
    }

    /// The last keyframe at or before `seconds`, where seeking to it found `landed`: when that lies after the
    /// target, or is nil, seeks earlier, a second more each time, until a keyframe at or before it comes first;
    /// then reads on to the last one. When there is none (a target before the first keyframe is shown: a recording
    /// cut mid-GOP), the earliest keyframe found, not the one the first seek landed on, which may be the second.
    private func keyframeBySearching(atOrBefore seconds: Double, landed: DecodedFrame?) throws -> DecodedFrame? {
        let target = seconds + 5e-7
        var best = landed.flatMap { $0.timeSeconds <= target ? $0 : nil }, seekTarget = seconds, backoff = 1.0
        var earliest = landed
        while best == nil, seekTarget > info.startSeconds {
            seekTarget = max(info.startSeconds, seekTarget - backoff)
            backoff *= 2
            try seek(toSeconds: seekTarget)
            let found = try nextFrame()
            if let found, found.timeSeconds < earliest?.timeSeconds ?? .infinity { earliest = found }
            best = found.flatMap { $0.timeSeconds <= target ? $0 : nil }
        }
        guard var best else { return earliest }
        var until = Double.infinity
        while let next = try nextFrame() {
            if next.timeSeconds > target {
                until = next.timeSeconds
                break
            }
            if next.isKeyFrame { best = next }
        }
        searchedKeyframe = (best, until)
        return best
    }

    /// Stream time of the index's last entry; nil when it has none.
    private var lastIndexTime: Double? {
        let count = avformat_index_get_entries_count(file.stream)
        guard file.hasIndex, count > 0, let entry = avformat_index_get_entry(file.stream, count - 1) else { return nil }
        return file.seconds(entry.pointee.timestamp)
    }

    /// Stream time of the keyframe at or before `seconds`, from the container's index; nil when it has none.
    public func keyframeTime(atOrBefore seconds: Double) -> Double? {
        guard file.hasIndex else { return nil }
        let index = av_index_search_timestamp(file.stream, file.timestamp(seconds), AVSEEK_FLAG_BACKWARD)
        guard index >= 0, let entry = avformat_index_get_entry(file.stream, index) else { return nil }
        return file.seconds(entry.pointee.timestamp)
    }

    /// The keyframe times, the last packet time and every packet's time (in file order) of the first
    /// `maxPackets` packets: from the container's index when it lists every packet (MP4 and MOV do; reading 3000
    /// packets of a 1080p file was an eighth of `probe`'s CPU time), else from a demux-only scan (no decoding)
    /// that rewinds afterwards. Index times are decode times, which differ from presentation times by the
    /// stream's fixed reordering delay: the gaps are the same.
    public func scanPackets(maxPackets: Int = 100_000) throws -> PacketScan {
        if let indexed = file.indexedPackets(maxPackets: maxPackets) { return indexed }
        try seek(toSeconds: info.startSeconds)
        var scan = PacketScan()
        var count = 0
        // Until a packet is timed after the first keyframe, an untimed one is a leading frame of an open GOP whose
        // time lay before a stream copy's cut: never shown, so not a guess that matters (Matroska stores none).
        var leading = true
        while count < maxPackets {
            guard let packet = try file.readVideoPacket() else {
                guard let next = try file.openedNextRun(maxPixels: maxPixels) else { break }
                file = next
                continue
            }
            count += 1
            if let pts = packet.presentationTimestamp ?? packet.decodeTimestamp {
                let time = file.seconds(pts)
                // A DASH period's packets outside it are not shown, but a keyframe before it shows from its start
                // (see `MediaFile.presentationWindow`).
                if let window = file.presentationWindow, !window.contains(time) {
                    if packet.isKeyFrame, time < window.lowerBound { scan.keyframes.append(window.lowerBound) }
                    continue
                }
                scan.lastTime = max(scan.lastTime ?? time, time)
                scan.packetTimes.append(time)
                if packet.isKeyFrame { scan.keyframes.append(time) }
                if let first = scan.keyframes.first, time > first { leading = false }
            } else if !leading || scan.keyframes.isEmpty {
                scan.untimedPackets += 1
            }
            if packet.isCorrupt { scan.corruptTimes.append(packet.presentationTimestamp.map(file.seconds) ?? -1) }
        }
        try seek(toSeconds: info.startSeconds)
        return scan
    }
}
