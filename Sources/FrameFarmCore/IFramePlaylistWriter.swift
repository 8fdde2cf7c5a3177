/// The I-frame playlist of the MJPEG image sequence Apple's players scrub with: one fragment of `iframes.mp4`
/// per thumbnail, addressed by byte range after the init segment.

/// One fragment (one JPEG sample) inside the I-frame file.
public struct IFrameFragment: Sendable, Hashable {
    /// Presentation time of the frame, seconds.
    public var time: Double
    /// Seconds until the next fragment (or the end), the `EXTINF` of an I-frame segment.
    public var duration: Double
    public var byteOffset: Int
    public var byteLength: Int

    public init(time: Double, duration: Double, byteOffset: Int, byteLength: Int) {
        self.time = time
        self.duration = duration
        self.byteOffset = byteOffset
        self.byteLength = byteLength
    }
}

/// Writes `iframes.m3u8` and its multivariant playlist line. Pure; thread-safe.
public enum IFramePlaylistWriter {
    /// The I-frame media playlist: `EXT-X-MAP` names the init segment (bytes 0..<initSegmentLength) and each
    /// fragment is a byte range of `mediaURI`. Fragments are written in the order given.
    public static func playlist(initSegmentLength: Int, fragments: [IFrameFragment],
                                mediaURI: String = "iframes.mp4") -> String {
        var lines = [
            "#EXTM3U",
            "#EXT-X-VERSION:7",
            "#EXT-X-TARGETDURATION:\(HLSImagePlaylistWriter.targetDuration(fragments.map { ($0.time, $0.time + $0.duration) }))",
            "#EXT-X-PLAYLIST-TYPE:VOD",
            "#EXT-X-I-FRAMES-ONLY",
            "#EXT-X-MAP:URI=\"\(mediaURI)\",BYTERANGE=\"\(initSegmentLength)@0\"",
        ]
        for fragment in fragments {
            lines.append("#EXTINF:\(TimeFormatting.decimalSpan(from: fragment.time, to: fragment.time + fragment.duration)),")
            lines.append("#EXT-X-BYTERANGE:\(fragment.byteLength)@\(fragment.byteOffset)")
            lines.append(mediaURI)
        }
        lines.append("#EXT-X-ENDLIST")
        return lines.joined(separator: "\n") + "\n"
    }

    /// `#EXT-X-I-FRAME-STREAM-INF` for the multivariant playlist; BANDWIDTH is the peak fragment bit rate.
    /// CODECS is `mjpg` ("JPEG image sequence" in the HLS Authoring Specification appendix, "Values for the
    /// CODECS attribute"), which is also the track's sample entry in `iframes.mp4`.
    public static func streamInfLine(fragments: [IFrameFragment], resolution: PixelSize,
                                     uri: String = "iframes.m3u8") -> String {
        "#EXT-X-I-FRAME-STREAM-INF:BANDWIDTH=\(peakBandwidth(fragments)),RESOLUTION=\(resolution),"
            + "CODECS=\"mjpg\",URI=\"\(uri)\""
    }

    /// Peak bits/s over the fragments, as RFC 8216 measures it (`HLSImagePlaylistWriter.peakBandwidth`).
    public static func peakBandwidth(_ fragments: [IFrameFragment]) -> Int {
        HLSImagePlaylistWriter.peakBandwidth(fragments.map { ($0.time, $0.time + $0.duration, $0.byteLength) })
    }
}
