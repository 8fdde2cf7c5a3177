import CFFmpeg
import Foundation
import FrameFarmCore

/// The HLS media playlist that an input reads, which is sought by opening it again from the segment that holds the
/// target (`MediaFile.opened(_:at:...)`). FFmpeg 5.1's hls demuxer seeks fragmented-MP4 segments to garbage (its MP4
/// demuxer keeps the sample tables of the fragments read before the seek and reads on from them in the new
/// segment's bytes: "Invalid NAL unit size", `--seek keyframe` got frame 0 or no frame at all), and MPEG-TS ones to
/// the first keyframe of the target's segment, which may come after the target or long before it.
struct SegmentedPlaylist: Sendable {
    /// The media playlist's name: the input's, or for a multivariant playlist its rendition's (a remote one
    /// registered with the input's query, as the nested opener registers it).
    let name: String
    let playlist: HLSMediaPlaylist
    /// Whether it is a DASH representation's segments (failures then name the manifest).
    var isManifest = false

    /// The media playlist that `file` reads, when it is an HLS playlist (or a DASH representation made one); nil
    /// for any other input, or when the playlist cannot be read here.
    static func read(by file: MediaFile) -> SegmentedPlaylist? {
        if let own = file.segmentedPlaylist { return own }
        let context = file.context, path = file.path
        guard String(cString: context.pointee.iformat.pointee.name) == "hls",
              let (text, base) = PlaylistScan.text(path) else { return nil }
        var name = base, media = text
        if text.contains("#EXT-X-STREAM-INF") {
            // FFmpeg's hls demuxer makes a program per variant, numbered in the playlist's order.
            // A variant whose video is an `#EXT-X-MEDIA` rendition has an address that is not the video's playlist.
            let variants = PlaylistScan.variants(in: text)
            guard let variant = MediaFile.program(of: file.videoStreamIndex, in: context).map({ Int($0.id) }),
                  variants.indices.contains(variant), !variants[variant].tag.contains("VIDEO=\"") else { return nil }
            let resolved = PlaylistScan.resolve(variants[variant].address, against: base)
            name = RemoteInput.isRemote(resolved) ? RemoteInput.registerNested(resolved, within: base) : resolved
            guard let nested = PlaylistScan.text(name)?.text else { return nil }
            media = nested
        }
        guard let playlist = HLSMediaPlaylist(media) else { return nil }
        return SegmentedPlaylist(name: name, playlist: playlist)
    }
}

extension MediaFile {
    /// `playlist`, the media playlist of `known`'s input, opened so that the next packet read is the keyframe at or
    /// before `seconds` (see `SegmentedPlaylist`): from the segment its durations put `seconds` in, or an earlier
    /// one when that segment starts later than they say or holds no keyframe before `seconds`. The packets from
    /// the segment's start up to that keyframe are read and dropped, and those read past it are kept for
    /// `readVideoPacket`.
    static func opened(_ playlist: SegmentedPlaylist, at seconds: Double, analysis known: StreamAnalysis,
                       maxPixels: Int) throws -> MediaFile {
        let segments = playlist.playlist
        var first = segments.segment(holding: seconds, firstStart: known.info.startSeconds), step = 1
        while true {
            let file = try MediaFile(path: known.path, maxPixels: maxPixels, analysis: known, rendition: nil,
                                     part: (playlist, first))
            // Two segments past the target at most: a playlist whose timestamps start again (a discontinuity) or
            // whose durations are wrong would otherwise be read to its end.
            let reach = seconds - segments.start(of: first, firstStart: known.info.startSeconds) + 2 * segments.longestDuration + 1
            if try file.readAhead(toKeyframeAtOrBefore: seconds, reaching: reach) || first == 0 { return file }
            // No keyframe there yet: twice as far back each time, so a long group of pictures in short segments
            // costs a few opens, not one per segment.
            first = max(0, first - step)
            step *= 2
        }
    }

    /// Reads packets up to the last keyframe presented at or before `seconds` and keeps those from it on; false
    /// when there is none (all packets read are kept). Reading stops at the first packet decoded after `seconds`
    /// (a keyframe after it is also presented after it), or `reach` seconds after the first packet.
    private func readAhead(toKeyframeAtOrBefore seconds: Double, reaching reach: Double) throws -> Bool {
        let target = timestamp(seconds + 5e-7)
        var kept: [Packet] = [], found = false, firstDecoded: Int64?
        while let read = try readVideoPacket() {
            let copy = Packet()
            av_packet_move_ref(copy.pointer, read.pointer)
            let presented = copy.presentationTimestamp ?? copy.decodeTimestamp
            if copy.isKeyFrame, let presented, presented <= target {
                kept.removeAll()
                found = true
            }
            kept.append(copy)
            guard let decoded = copy.decodeTimestamp ?? presented else { continue }
            firstDecoded = firstDecoded ?? decoded
            if decoded > target || self.seconds(decoded - firstDecoded!) > reach { break }
        }
        packetsReadAhead = kept
        return found
    }
}
