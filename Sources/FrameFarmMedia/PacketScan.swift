import CFFmpeg

/// What `FrameReader.scanPackets` finds in a stream's first packets, without decoding.
public struct PacketScan: Sendable {
    public var keyframes: [Double] = []
    public var lastTime: Double?
    /// Every packet's time, in file order: presentation times from a scan, decode times from an index.
    public var packetTimes: [Double] = []
    /// Presentation times of the packets the demuxer flagged damaged (a scan only; -1 when unknown).
    public var corruptTimes: [Double] = []
    /// Packets that carry no timestamp at all, neither presentation nor decode time (a scan only).
    public var untimedPackets = 0
}

extension MediaFile {
    /// `FrameReader.scanPackets` from the container's index, when it lists every packet.
    func indexedPackets(maxPackets: Int) -> PacketScan? {
        let entries = Int(avformat_index_get_entries_count(stream))
        guard entries > 0, stream.pointee.nb_frames == Int64(entries) else { return nil }
        var scan = PacketScan()
        for index in 0..<min(entries, maxPackets) {
            guard let entry = avformat_index_get_entry(stream, Int32(index)),
                  entry.pointee.flags & AVINDEX_DISCARD_FRAME == 0 else { continue }
            let time = seconds(entry.pointee.timestamp)
            scan.lastTime = max(scan.lastTime ?? time, time)
            scan.packetTimes.append(time)
            if entry.pointee.flags & AVINDEX_KEYFRAME != 0 { scan.keyframes.append(time) }
        }
        return scan
    }
}
