import Foundation
@testable import FrameFarmCore
import Testing

/// How a DASH manifest's segments are found, against what ISO/IEC 23009-1 says they are (worked out by hand here):
/// templates by number and by timeline, lists with byte ranges, one-file representations, inheritance and BaseURLs.
@Suite struct DASHManifestTests {
    private func manifest(_ body: String, duration: String? = "PT10S", at location: String = "https://cdn.example.com/a/show.mpd")
        throws -> DASHManifest {
        let mpd = """
            <?xml version="1.0" encoding="UTF-8"?>
            <MPD xmlns="urn:mpeg:dash:schema:mpd:2011" type="static" \(duration.map { "mediaPresentationDuration=\"\($0)\"" } ?? "")>
            \(body)</MPD>
            """
        return try DASHManifest(parsing: Data(mpd.utf8), location: location)
    }

    private func segments(_ representation: DASHManifest.Representation) -> (initialization: DASHManifest.Part?, [DASHManifest.Segment]) {
        guard case .segments(let initialization, let segments) = representation.media else { return (nil, []) }
        return (initialization, segments)
    }

    /// `$Number$` with a width, counted from `@startNumber` over the presentation (the last segment ends with
    /// it), under three levels of BaseURL; the template set on the adaptation set serves each representation.
    @Test func aTemplateByNumberCountsTheSegmentsOfThePresentation() throws {
        let parsed = try manifest("""
            <BaseURL>media/</BaseURL><Period><AdaptationSet mimeType="video/mp4" width="1280" height="720">
            <SegmentTemplate timescale="1000" duration="4000" startNumber="3" initialization="$RepresentationID$/init.mp4"
             media="v-$RepresentationID$/$Number%05d$.m4s"/>
            <Representation id="hd" bandwidth="3000000"><BaseURL>hd/</BaseURL></Representation>
            <Representation id="sd" width="640" height="360" bandwidth="800000"/>
            </AdaptationSet></Period>
            """)
        #expect(parsed.durationSeconds == 10)
        #expect(parsed.representations.map(\.id) == ["hd", "sd"])
        #expect(parsed.representations.map(\.width) == [1280, 640] && parsed.representations.map(\.height) == [720, 360])
        #expect(parsed.representations.map(\.bandwidth) == [3_000_000, 800_000])
        let (initialization, hd) = segments(parsed.representations[0])
        #expect(initialization == DASHManifest.Part(location: "https://cdn.example.com/a/media/hd/hd/init.mp4"))
        #expect(hd.map(\.part.location) == ["https://cdn.example.com/a/media/hd/v-hd/00003.m4s",
                                            "https://cdn.example.com/a/media/hd/v-hd/00004.m4s",
                                            "https://cdn.example.com/a/media/hd/v-hd/00005.m4s"])
        #expect(hd.map(\.seconds) == [4, 4, 2])
        #expect(segments(parsed.representations[1]).1.first?.part.location == "https://cdn.example.com/a/media/v-sd/00003.m4s")
    }

    /// A timeline: `@t` carried on from the previous segment, a gap, `@r` repeats, and `@r="-1"` up to the end of a
    /// period that starts at the presentation time offset; `$Time$` is each segment's start.
    @Test func aTimelineGivesEachSegmentItsTimeAndDuration() throws {
        let parsed = try manifest("""
            <Period duration="PT2S"><AdaptationSet contentType="video"><Representation id="v" width="320" height="180">
            <SegmentTemplate timescale="1000" presentationTimeOffset="1000" media="t/$Time$.m4s" initialization="t/init.mp4">
            <SegmentTimeline><S t="1000" d="500" r="1"/><S d="300"/><S t="2400" d="200" r="-1"/></SegmentTimeline>
            </SegmentTemplate></Representation></AdaptationSet></Period>
            """, duration: nil)
        let (_, list) = segments(parsed.representations[0])
        #expect(list.map(\.part.location) == [1000, 1500, 2000, 2400, 2600, 2800].map { "https://cdn.example.com/a/t/\($0).m4s" })
        #expect(list.map(\.seconds) == [0.5, 0.5, 0.3, 0.2, 0.2, 0.2])
        #expect(parsed.durationSeconds == 2)
    }

    /// A list: byte ranges in one file (the init's, each segment's), the timescale inherited from the adaptation
    /// set's SegmentList and the URLs from the representation's; a SegmentURL without `@media` is the BaseURL.
    @Test func aListReadsItsSegmentsAndRangesWithInheritance() throws {
        let parsed = try manifest("""
            <Period><AdaptationSet contentType="video"><SegmentList timescale="90000" duration="180000"/>
            <Representation id="1" width="320" height="180"><BaseURL>one.mp4</BaseURL><SegmentList>
            <Initialization range="0-799"/><SegmentURL mediaRange="800-1999"/><SegmentURL mediaRange="2000-2999"/>
            <SegmentURL media="tail.m4s"/></SegmentList></Representation></AdaptationSet></Period>
            """)
        let (initialization, list) = segments(parsed.representations[0])
        let file = "https://cdn.example.com/a/one.mp4"
        #expect(initialization == DASHManifest.Part(location: file, byteRange: 0...799))
        #expect(list.map(\.part) == [DASHManifest.Part(location: file, byteRange: 800...1999),
                                     DASHManifest.Part(location: file, byteRange: 2000...2999),
                                     DASHManifest.Part(location: "https://cdn.example.com/a/tail.m4s")])
        #expect(list.map(\.seconds) == [2, 2, 2])
    }

    /// One file per representation (SegmentBase, or a BaseURL alone); audio, thumbnail-image and trick-mode
    /// adaptation sets are not video.
    @Test func oneFileRepresentationsAndWhatIsNotVideo() throws {
        let parsed = try manifest("""
            <Period><AdaptationSet contentType="audio"><Representation id="a"><BaseURL>a.mp4</BaseURL></Representation></AdaptationSet>
            <AdaptationSet contentType="image" mimeType="image/jpeg"><Representation id="i" width="320" height="180">
            <BaseURL>tiles.jpg</BaseURL></Representation></AdaptationSet>
            <AdaptationSet mimeType="video/mp4"><EssentialProperty schemeIdUri="http://dashif.org/guidelines/trickmode" value="1"/>
            <Representation id="trick" width="320" height="180"><BaseURL>trick.mp4</BaseURL></Representation></AdaptationSet>
            <AdaptationSet mimeType="video/mp4"><Representation id="v" width="1920" height="1080">
            <BaseURL>https://other.example.net/v/main.mp4</BaseURL><SegmentBase indexRange="800-1999"/></Representation>
            <Representation id="w" width="960" height="540"><BaseURL>/root/w.mp4</BaseURL></Representation></AdaptationSet></Period>
            """)
        #expect(parsed.representations.map(\.id) == ["v", "w"])
        #expect(parsed.representations[0].media == .file(DASHManifest.Part(location: "https://other.example.net/v/main.mp4")))
        #expect(parsed.representations[1].media == .file(DASHManifest.Part(location: "https://cdn.example.com/root/w.mp4")))
        #expect(parsed.representations[0].hlsMediaPlaylist == nil)
    }

    /// What cannot be read is refused in words: each names what is wrong.
    @Test(arguments: [
        ("<Period><AdaptationSet contentType=\"video\"><Representation id=\"v\"/></AdaptationSet></Period>", "names no media"),
        ("<Period><AdaptationSet contentType=\"video\"><SegmentTemplate media=\"$Foo$.m4s\" duration=\"1\"/><Representation id=\"v\"/></AdaptationSet></Period>",
         "an identifier DASH does not define: $Foo$"),
        ("<Period><AdaptationSet contentType=\"video\"><SegmentTemplate media=\"$Number$\" initialization=\"$Number$.mp4\" duration=\"1\"/><Representation id=\"v\"/></AdaptationSet></Period>",
         "uses $Number$ where it has no value"),
        ("<Period><AdaptationSet contentType=\"video\"><SegmentTemplate media=\"$Time$\"><SegmentTimeline><S d=\"1\" r=\"2000000000\"/></SegmentTimeline></SegmentTemplate><Representation id=\"v\"/></AdaptationSet></Period>",
         "more than 1000000 segments"),
        ("<Period><AdaptationSet contentType=\"video\"><SegmentList><SegmentURL media=\"a\" mediaRange=\"9-2\"/></SegmentList><Representation id=\"v\"/></AdaptationSet></Period>",
         "byte range '9-2' is not first-last"),
    ]) func whatCannotBeReadIsSaid(body: String, reason: String) {
        #expect {
            _ = try manifest(body)
        } throws: { ($0 as? DASHManifestError)?.description.contains(reason) == true }
    }

    @Test func notAStaticMPDIsRefused() {
        for (text, reason) in [("<MPD type=\"dynamic\"><Period/></MPD>", "dynamic"), ("<html></html>", "not <MPD>"),
                               ("<MPD><Period>", "not well-formed XML")] {
            #expect {
                _ = try DASHManifest(parsing: Data(text.utf8), location: "/x.mpd")
            } throws: { ($0 as? DASHManifestError)?.description.contains(reason) == true }
        }
    }

    @Test func isoDurations() throws {
        for (text, seconds) in [("PT1H2M3.5S", 3723.5), ("P1DT1S", 86401.0), ("PT0S", 0.0), ("P2W", 1_209_600.0), ("PT0.040S", 0.04)] {
            #expect(try DASHManifest.seconds(isoDuration: text) == seconds, "\(text)")
        }
        for text in ["P1Y", "PT", "1S", "PT5", "P1H"] {
            #expect(throws: DASHManifestError.self, "\(text)") { try DASHManifest.seconds(isoDuration: text) }
        }
    }

    @Test func templateIdentifiers() throws {
        let expanded = try SegmentContext.expand("$$x-$RepresentationID$-$Bandwidth$-$Number%d$-$Time%08d$", representationID: "v1",
                                                 bandwidth: 500, number: 7, time: 9000)
        #expect(expanded == "$x-v1-500-7-00009000")
    }

    /// Addresses resolve as a browser resolves them (RFC 3986) against a URL, and against a local manifest's folder.
    @Test func addressesResolveAgainstTheirBase() {
        #expect(DASHManifest.resolve("../seg 1.m4s", against: "/data/show/manifest.mpd") == "/data/seg 1.m4s")
        #expect(DASHManifest.resolve("a%20b.m4s", against: "/data/show/manifest.mpd") == "/data/show/a b.m4s")
        #expect(DASHManifest.resolve("https://x.example/a.m4s", against: "/data/m.mpd") == "https://x.example/a.m4s")
        // Folders nest, on disk as in URLs.
        let folder = DASHManifest.resolve("p/as/", against: DASHManifest.resolve("nest/", against: "/data/m.mpd"))
        #expect(folder == "/data/nest/p/as/" && DASHManifest.resolve("init.mp4", against: folder) == "/data/nest/p/as/init.mp4")
        #expect(DASHManifest.resolve("init.mp4", against: DASHManifest.resolve("file:///srv/v/", against: "/data/m.mpd"))
                == "/srv/v/init.mp4")
        #expect(DASHManifest.resolve("/v/a.m4s?t=1", against: "https://cdn.example.com/a/b/m.mpd") == "https://cdn.example.com/v/a.m4s?t=1")
        #expect(DASHManifest.resolve("../c/a b.m4s", against: "https://cdn.example.com/a/b/m.mpd") == "https://cdn.example.com/a/c/a%20b.m4s")
    }

    /// The HLS media playlist a representation becomes (read by FFmpeg's hls demuxer): durations, byte ranges
    /// as length@offset, the init segment as EXT-X-MAP, and an address that could break a line or a quote escaped.
    @Test func theHLSPlaylistListsEverySegment() throws {
        let parsed = try manifest("""
            <Period><AdaptationSet contentType="video"><Representation id="v" width="320" height="180">
            <BaseURL>one.mp4</BaseURL><SegmentList timescale="10" duration="25"><Initialization range="0-99"/>
            <SegmentURL mediaRange="100-199"/><SegmentURL media="we&quot;ird&#10;name.m4s"/></SegmentList>
            </Representation></AdaptationSet></Period>
            """, duration: "PT5S")
        let playlist = try #require(parsed.representations[0].hlsMediaPlaylist)
        #expect(playlist.split(separator: "\n") == [
            "#EXTM3U", "#EXT-X-VERSION:7", "#EXT-X-TARGETDURATION:3", "#EXT-X-MEDIA-SEQUENCE:0", "#EXT-X-PLAYLIST-TYPE:VOD",
            "#EXT-X-MAP:URI=\"https://cdn.example.com/a/one.mp4\",BYTERANGE=\"100@0\"",
            "#EXTINF:2.500000,", "#EXT-X-BYTERANGE:100@100", "https://cdn.example.com/a/one.mp4",
            "#EXTINF:2.500000,", "https://cdn.example.com/a/we%22ird%0Aname.m4s", "#EXT-X-ENDLIST",
        ])
        // Read back as a media playlist: its two segments.
        #expect(try #require(HLSMediaPlaylist(playlist)).segments.map(\.duration) == [2.5, 2.5])
    }

    /// Periods (an advertisement between two parts of a programme): each lasts until the next starts (the second
    /// has no `@start` and follows the first's `@duration`), the last until the presentation ends, so a template by
    /// number gives the first 4 segments, the second 6 and the third 2. Joined, they are one HLS playlist with a
    /// discontinuity, and the period's own initialization segment, before each period after the first.
    @Test func periodsAreReadEachUntilTheNextAndJoinedAtDiscontinuities() throws {
        func period(_ attributes: String, _ name: String, _ width: Int) -> String {
            """
            <Period \(attributes)><AdaptationSet mimeType="video/mp4"><Representation id="\(name)" width="\(width)" height="\(width / 2)">
            <SegmentTemplate timescale="1" duration="1" initialization="\(name)-init.mp4" media="\(name)-$Number$.m4s"/>
            </Representation></AdaptationSet></Period>
            """
        }
        let parsed = try manifest(period("start=\"PT0S\" duration=\"PT4S\"", "show", 640) + period("", "ad", 320)
                                  + period("start=\"PT10S\"", "more", 640), duration: "PT12S", at: "/m/x.mpd")
        #expect(parsed.durationSeconds == 12)
        #expect(parsed.representations.map(\.id) == ["show"])
        #expect(parsed.laterPeriods.map { $0.map(\.id) } == [["ad"], ["more"]])
        #expect([parsed.representations[0], parsed.laterPeriods[0][0], parsed.laterPeriods[1][0]].map { segments($0).1.count } == [4, 6, 2])
        let joined = try #require(DASHManifest.Representation.hlsMediaPlaylist(joining: [parsed.laterPeriods[0][0], parsed.laterPeriods[1][0]]))
        let header = ["#EXTM3U", "#EXT-X-VERSION:7", "#EXT-X-TARGETDURATION:1", "#EXT-X-MEDIA-SEQUENCE:0",
                      "#EXT-X-PLAYLIST-TYPE:VOD"]
        let advert: [String] = ["#EXT-X-MAP:URI=\"/m/ad-init.mp4\""] + (1...6).flatMap { ["#EXTINF:1.000000,", "/m/ad-\($0).m4s"] }
        let more = ["#EXT-X-DISCONTINUITY", "#EXT-X-MAP:URI=\"/m/more-init.mp4\"",
                    "#EXTINF:1.000000,", "/m/more-1.m4s", "#EXTINF:1.000000,", "/m/more-2.m4s", "#EXT-X-ENDLIST"]
        #expect(joined.split(separator: "\n").map(String.init) == header + advert + more)
        let oneFile = DASHManifest.Representation(id: "f", width: 1, height: 1, media: .file(DASHManifest.Part(location: "/f.mp4")))
        #expect(DASHManifest.Representation.hlsMediaPlaylist(joining: [parsed.representations[0], oneFile]) == nil)
    }
}
