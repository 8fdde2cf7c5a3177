import CFFmpeg

/// Owns one AVPacket. Not thread-safe; reused across reads (unreferenced between uses).
final class Packet {
    let pointer: UnsafeMutablePointer<AVPacket>

    init() {
        guard let packet = av_packet_alloc() else { fatalError("av_packet_alloc: out of memory") }
        pointer = packet
    }

    /// A packet that takes over `other`'s data, leaving `other` blank.
    convenience init(moving other: Packet) {
        self.init()
        av_packet_move_ref(pointer, other.pointer)
    }

    deinit {
        var packet: UnsafeMutablePointer<AVPacket>? = pointer
        av_packet_free(&packet)
    }

    var streamIndex: Int32 { pointer.pointee.stream_index }
    var isKeyFrame: Bool { pointer.pointee.flags & AV_PKT_FLAG_KEY != 0 }
    var isCorrupt: Bool { pointer.pointee.flags & AV_PKT_FLAG_CORRUPT != 0 }
    var presentationTimestamp: Int64? { pointer.pointee.pts == framefarm_av_nopts_value() ? nil : pointer.pointee.pts }
    var decodeTimestamp: Int64? { pointer.pointee.dts == framefarm_av_nopts_value() ? nil : pointer.pointee.dts }
    var size: Int { Int(pointer.pointee.size) }

    func unreference() { av_packet_unref(pointer) }

    /// Clears the demuxer's mark that the packet's frame is decoded but not shown (one before an edit list's start).
    func showEvenIfDiscarded() { pointer.pointee.flags &= ~AV_PKT_FLAG_DISCARD }

    /// Moves the packet's timestamps `ticks` of its stream's time base later.
    func shiftTimestamps(by ticks: Int64) {
        if pointer.pointee.pts != framefarm_av_nopts_value() { pointer.pointee.pts += ticks }
        if pointer.pointee.dts != framefarm_av_nopts_value() { pointer.pointee.dts += ticks }
    }
}
