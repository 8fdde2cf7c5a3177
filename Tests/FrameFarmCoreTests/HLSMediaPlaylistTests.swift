import Foundation
@testable import FrameFarmCore
import Testing

/// A media playlist opened part-way, against what RFC 8216 says that part is (worked out by hand here): the tags
/// that apply to later segments kept, those of the segments left out dropped, the media sequence number counted on,
/// and a byte range that followed the previous one given its offset.
@Suite struct HLSMediaPlaylistTests {
    private let playlist = """
        #EXTM3U
        #EXT-X-VERSION:7
        #EXT-X-TARGETDURATION:2
        #EXT-X-MEDIA-SEQUENCE:7
        #EXT-X-PLAYLIST-TYPE:VOD
        #EXT-X-MAP:URI="init.mp4"
        #EXT-X-KEY:METHOD=AES-128,URI="k1.key"
        #EXT-X-PROGRAM-DATE-TIME:2026-01-01T00:00:00.000Z
        #EXTINF:2.0,
        #EXT-X-BYTERANGE:100@0
        all.m4s
        #EXT-X-DISCONTINUITY
        #EXT-X-KEY:METHOD=AES-128,URI="k2.key"
        #EXTINF:2.0,first
        #EXT-X-BYTERANGE:200
        all.m4s
        #EXTINF:1.5,
        #EXT-X-BYTERANGE:300
        all.m4s
        #EXTINF:1.5,
        #EXT-X-BYTERANGE:50
        all.m4s
        #EXT-X-ENDLIST
        """

    @Test func thePlaylistFromASegmentKeepsWhatStillAppliesToIt() throws {
        let parsed = try #require(HLSMediaPlaylist(playlist))
        #expect(parsed.segments.map(\.duration) == [2, 2, 1.5, 1.5])
        #expect(parsed.text(from: 0) == playlist)
        // Segment 2 is the ninth of the stream; its range follows segment 1's (100 + 200 bytes in); both keys
        // precede it and the later one applies; the discontinuity and the date belong to segments left out.
        #expect(parsed.text(from: 2) == """
            #EXTM3U
            #EXT-X-VERSION:7
            #EXT-X-TARGETDURATION:2
            #EXT-X-MEDIA-SEQUENCE:9
            #EXT-X-PLAYLIST-TYPE:VOD
            #EXT-X-MAP:URI="init.mp4"
            #EXT-X-KEY:METHOD=AES-128,URI="k1.key"
            #EXT-X-KEY:METHOD=AES-128,URI="k2.key"
            #EXTINF:1.5,
            #EXT-X-BYTERANGE:300@300
            all.m4s
            #EXTINF:1.5,
            #EXT-X-BYTERANGE:50
            all.m4s
            #EXT-X-ENDLIST
            """)
    }

    /// The discontinuity before segment 1 divides the segments into two runs; segments up to one (a run) are a
    /// playlist with those after them left out, the end kept.
    @Test func runsOfSegmentsBetweenDiscontinuitiesArePlaylistsOfTheirOwn() throws {
        let parsed = try #require(HLSMediaPlaylist(playlist))
        #expect(parsed.hasDiscontinuities)
        #expect([0, 1, 2, 3].map(parsed.run(of:)) == [0..<1, 1..<4, 1..<4, 1..<4])
        #expect(parsed.text(from: 0, to: 1) == """
            #EXTM3U
            #EXT-X-VERSION:7
            #EXT-X-TARGETDURATION:2
            #EXT-X-MEDIA-SEQUENCE:7
            #EXT-X-PLAYLIST-TYPE:VOD
            #EXT-X-MAP:URI="init.mp4"
            #EXT-X-KEY:METHOD=AES-128,URI="k1.key"
            #EXT-X-PROGRAM-DATE-TIME:2026-01-01T00:00:00.000Z
            #EXTINF:2.0,
            #EXT-X-BYTERANGE:100@0
            all.m4s
            #EXT-X-ENDLIST
            """)
        #expect(parsed.text(from: 1, to: 3) == """
            #EXTM3U
            #EXT-X-VERSION:7
            #EXT-X-TARGETDURATION:2
            #EXT-X-MEDIA-SEQUENCE:8
            #EXT-X-PLAYLIST-TYPE:VOD
            #EXT-X-MAP:URI="init.mp4"
            #EXT-X-KEY:METHOD=AES-128,URI="k1.key"
            #EXT-X-DISCONTINUITY
            #EXT-X-KEY:METHOD=AES-128,URI="k2.key"
            #EXTINF:2.0,first
            #EXT-X-BYTERANGE:200@100
            all.m4s
            #EXTINF:1.5,
            #EXT-X-BYTERANGE:300
            all.m4s
            #EXT-X-ENDLIST
            """)
        let single = try #require(HLSMediaPlaylist("#EXTM3U\n#EXT-X-DISCONTINUITY\n#EXTINF:2,\na.ts\n#EXTINF:2,\nb.ts\n"))
        #expect(!single.hasDiscontinuities && single.run(of: 1) == 0..<2)
    }

    /// Without `#EXT-X-MEDIA-SEQUENCE` the first segment is number 0, so the part says its own first number.
    @Test func aPartWithoutTheTagGetsItsSequenceNumber() throws {
        let parsed = try #require(HLSMediaPlaylist("#EXTM3U\n#EXTINF:4,\na.ts\n#EXTINF:4,\nb.ts\n#EXT-X-ENDLIST\n"))
        #expect(parsed.text(from: 1) == "#EXTM3U\n#EXT-X-MEDIA-SEQUENCE:1\n#EXTINF:4,\nb.ts\n#EXT-X-ENDLIST\n")
    }

    /// The segment holding a time, from the first segment's start and the declared durations: a time on a
    /// boundary belongs to the segment it starts; times before the stream go to the first, after it to the last.
    @Test func theSegmentHoldingATimeFollowsTheDeclaredDurations() throws {
        let parsed = try #require(HLSMediaPlaylist(playlist))
        let start = 0.08
        #expect([-5, 0, 2.07, 2.08, 4.07, 4.08, 5.57, 5.58, 100].map { parsed.segment(holding: $0, firstStart: start) }
                == [0, 0, 0, 1, 1, 2, 2, 3, 3])
        #expect((0..<4).map { parsed.start(of: $0, firstStart: start) } == [0.08, 2.08, 4.08, 5.58])
        #expect(parsed.longestDuration == 2)
    }

    @Test func whatIsNotAMediaPlaylistIsNotRead() {
        #expect(HLSMediaPlaylist("hello") == nil)
        #expect(HLSMediaPlaylist("#EXTM3U\n#EXT-X-ENDLIST\n") == nil)
        #expect(HLSMediaPlaylist("#EXTM3U\n#EXT-X-STREAM-INF:BANDWIDTH=1\nv.m3u8\n") == nil)
        #expect(HLSMediaPlaylist("#EXTM3U\n#EXTINF:2,\n#EXT-X-BYTERANGE:x\na.ts\n") == nil)
    }
}
