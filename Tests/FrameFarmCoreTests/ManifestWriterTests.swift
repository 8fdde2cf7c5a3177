import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif
import FrameFarmCore
import Testing

/// Tracks covering the awkward cases: shorter than one interval, one cut sheet, many sheets with a one-tile last
/// sheet, a partial last row, `--count`, a 1x1 grid, an empty video, and intervals that are no whole number of
/// milliseconds (a third of a second at 29.97 fps; 0.9999 s, whose last thumbnail covers the last millisecond).
private let tracks: [ThumbnailTrack] = [
    try! track(9.5, .interval(10), 5, 2),
    try! track(600, .interval(10), 10, 10),
    try! track(1001, .interval(10), 5, 2),
    try! track(1001, .interval(10), 7, 3),
    try! track(1001, .count(100), 4, 4),
    try! track(25, .interval(10), 1, 1),
    try! track(0, .interval(2), 3, 3),
    try! track(60.027, .interval(0.3333), 7, 3),
    try! track(10, .interval(0.9999), 4, 4),
]

/// An attribute's value, looked up in `attributes` because swift-corelibs' `attribute(forName:)` misses the
/// attributes of an element that declares a default namespace.
private func attribute(_ element: XMLElement, _ name: String) -> String? {
    element.attributes?.first { $0.name == name }?.stringValue
}

private func ms(_ seconds: Double) -> Int { Int((seconds * 1000).rounded()) }

@Test(arguments: tracks.indices)
func webVTTCuesAreContiguousAndPointInsideTheSheets(index: Int) throws {
    let track = tracks[index]
    let cues = try parseWebVTT(WebVTTWriter.document(for: track))
    #expect(cues.count == track.thumbnails.count)
    #expect(cues.first?.start == 0 && cues.last?.end == ms(track.duration))
    for (cue, next) in zip(cues, cues.dropFirst()) { #expect(cue.end == next.start) }
    let sizes = Dictionary(uniqueKeysWithValues: track.sheets.map { ($0.fileName, $0.size) })
    for (cue, thumbnail) in zip(cues, track.thumbnails) {
        #expect(cue.start < cue.end)
        let parts = cue.payload.components(separatedBy: "#xywh=")
        let numbers = parts.count == 2 ? parts[1].split(separator: ",").compactMap { Int($0) } : []
        let sheet = try #require(parts.count == 2 ? sizes[parts[0]] : nil, "\(cue.payload)")
        try #require(numbers.count == 4 && parts[1].split(separator: ",").count == 4, "\(cue.payload)")
        let rect = PixelRect(x: numbers[0], y: numbers[1], width: numbers[2], height: numbers[3])
        #expect(PixelRect(size: sheet).contains(rect) && rect.size == tile, "\(cue.payload)")
        #expect(parts[0] == track.sheets[thumbnail.sheetIndex].fileName)
    }
}

@Test(arguments: tracks.indices)
func hlsImagePlaylistIsWellFormed(index: Int) throws {
    let track = tracks[index]
    let lines = try parseM3U(HLSImagePlaylistWriter.playlist(for: track))
    let header: [M3ULine] = [.tag(name: "#EXTM3U", value: nil), .tag(name: "#EXT-X-VERSION", value: "7")]
    #expect(Array(lines.prefix(2)) == header)
    #expect(lines.last == .tag(name: "#EXT-X-ENDLIST", value: nil))
    for tag in ["#EXT-X-PLAYLIST-TYPE", "#EXT-X-IMAGES-ONLY", "#EXT-X-TARGETDURATION", "#EXT-X-MEDIA-SEQUENCE"] {
        #expect(lines.filter { if case .tag(tag, _) = $0 { true } else { false } }.count == 1, "\(tag)")
    }
    #expect(lines.contains(.tag(name: "#EXT-X-PLAYLIST-TYPE", value: "VOD")))
    guard case .tag("#EXT-X-TARGETDURATION", let target?) = lines[2], let targetDuration = Int(target) else {
        Issue.record("TARGETDURATION must follow VERSION: \(lines[2])")
        return
    }
    let segments = Array(lines.dropFirst(6).dropLast())
    try #require(segments.count == track.sheets.count * 3)
    var total = 0
    for (sheet, start) in zip(track.sheets, stride(from: 0, to: segments.count, by: 3)) {
        guard case .tag("#EXT-X-TILES", let tilesValue?) = segments[start],
              case .tag("#EXTINF", let extinf) = segments[start + 1],
              case .uri(let uri) = segments[start + 2] else {
            Issue.record("bad segment at \(segments[start])")
            return
        }
        let attributes = try parseAttributes(tilesValue)
        #expect(Set(attributes.keys) == ["RESOLUTION", "LAYOUT", "DURATION"])
        #expect(attributes["RESOLUTION"] == "160x90" && uri == sheet.fileName)
        #expect(attributes["LAYOUT"] == "\(sheet.columns)x\(sheet.rows)")
        // The interval, to the microsecond at most, raised no more than the segment's rounding needs.
        let tileDuration = try #require(Double(attributes["DURATION"] ?? ""))
        #expect(tileDuration >= track.interval - 1e-9 && tileDuration < track.interval + 0.001)
        #expect((attributes["DURATION"]?.split(separator: ".").last?.count ?? 0) <= 6)
        let segmentMillis = try parseExtinf(extinf)
        #expect((segmentMillis + 500) / 1000 <= targetDuration && segmentMillis > 0)
        // Segments start where the cues of their first tiles start: nothing drifts.
        #expect(total == ms(sheet.startTime))
        // The layout holds the tiles that cover the segment, and not a whole spare row: a player taking
        // offset / DURATION as the tile never lands past it.
        let tilesCovering = Int((Double(segmentMillis) / 1000 / tileDuration).rounded(.up))
        #expect(tilesCovering <= sheet.columns * sheet.rows && tilesCovering > sheet.columns * (sheet.rows - 1))
        total += segmentMillis
    }
    #expect(total == ms(track.duration))
    #expect(targetDuration == (total == 0 ? 1 : Int((Double(ms(track.sheets[0].duration)) / 1000).rounded(.up))))
    let streamInf = HLSImagePlaylistWriter.imageStreamInfLine(for: track, bandwidth: 12_345)
    let prefix = "#EXT-X-IMAGE-STREAM-INF:"
    #expect(streamInf.hasPrefix(prefix))
    let streamAttributes = try parseAttributes(String(streamInf.dropFirst(prefix.count)))
    #expect(streamAttributes == ["BANDWIDTH": "12345", "RESOLUTION": "160x90", "CODECS": "\"jpeg\"",
                                 "URI": "\"thumbnails.m3u8\""])
}

@Test(arguments: tracks.indices)
func dashImageAdaptationSetFollowsDashIF(index: Int) throws {
    let track = tracks[index]
    let document = try XMLDocument(data: Data(DASHImageWriter.mpd(for: track, bandwidth: 9_000).utf8))
    let mpd = try #require(document.rootElement())
    let namespace = "urn:mpeg:dash:schema:mpd:2011"
    #expect(mpd.localName == "MPD" && mpd.uri == namespace)
    #expect(attribute(mpd, "type") == "static")
    #expect(attribute(mpd, "profiles") == "urn:mpeg:dash:profile:isoff-live:2011")
    #expect(attribute(mpd, "minBufferTime") == "PT2S")
    let duration = try #require(attribute(mpd, "mediaPresentationDuration"))
    try #require(duration.hasPrefix("PT") && duration.hasSuffix("S"))
    let seconds = try #require(Double(duration.dropFirst(2).dropLast()))
    #expect(ms(seconds) == ms(track.duration))

    let periods = mpd.elements(forLocalName: "Period", uri: namespace)
    let sets = try #require(periods.first).elements(forLocalName: "AdaptationSet", uri: namespace)
    try #require(periods.count == 1 && sets.count == 1)
    let set = sets[0]
    #expect(attribute(set, "contentType") == "image")
    #expect(attribute(set, "mimeType") == "image/jpeg")
    let template = try #require(set.elements(forLocalName: "SegmentTemplate", uri: namespace).first)
    #expect(attribute(template, "media") == "sheet-$Number%04d$.jpg")
    // Milliseconds where they are exact, else microseconds.
    let timescale = try #require(Int(attribute(template, "timescale") ?? ""))
    let sheetSeconds = Double(track.columns * track.rows) * track.interval
    #expect(timescale == (abs(sheetSeconds * 1000 - (sheetSeconds * 1000).rounded()) < 1e-6 ? 1000 : 1_000_000))
    #expect(attribute(template, "startNumber") == "1")
    let segmentUnits = try #require(Int(attribute(template, "duration") ?? ""))
    #expect(segmentUnits == Int((sheetSeconds * Double(timescale)).rounded()))
    #expect(Int((track.duration * Double(timescale) / Double(segmentUnits) - 1e-9).rounded(.up)) == track.sheets.count)
    // A player timing tiles by the interval finds one for every instant, the last millisecond's too.
    #expect(Int((track.duration / track.interval - 1e-9).rounded(.up)) == track.thumbnails.count)

    let representation = try #require(set.elements(forLocalName: "Representation", uri: namespace).first)
    #expect(attribute(representation, "width") == "\(track.columns * 160)")
    #expect(attribute(representation, "height") == "\(track.rows * 90)")
    #expect(attribute(representation, "bandwidth") == "9000" && attribute(representation, "id") != nil)
    let property = try #require(representation.elements(forLocalName: "EssentialProperty", uri: namespace).first)
    #expect(attribute(property, "schemeIdUri") == "http://dashif.org/guidelines/thumbnail_tile")
    #expect(attribute(property, "value") == "\(track.columns)x\(track.rows)")

    // A DASH player spreads C*R tiles evenly over each segment; each thumbnail's midpoint must land on its tile.
    let perSheet = track.columns * track.rows
    let segmentSeconds = Double(segmentUnits) / Double(timescale)
    for thumbnail in track.thumbnails {
        let middle = (thumbnail.startTime + thumbnail.endTime) / 2
        let segment = Int(middle / segmentSeconds)
        let slot = Int((middle - Double(segment) * segmentSeconds) / (segmentSeconds / Double(perSheet)))
        #expect(segment == thumbnail.sheetIndex)
        #expect(PixelRect(x: slot % track.columns * 160, y: slot / track.columns * 90, width: 160, height: 90)
            == thumbnail.tileRect)
    }
}

/// Several widths of one video in one MPD: one image adaptation set, a Representation per width with its own
/// SegmentTemplate (its folder, and its grid's segment duration: the widths' grids differ), id, size and tile
/// grid; the set itself carries no template a Representation would inherit.
@Test func severalWidthsShareOneAdaptationSet() throws {
    let small = try ThumbnailTrack(duration: 600, spacing: .interval(10), tileSize: tile, columns: 10, rows: 10)
    let large = try ThumbnailTrack(duration: 600, spacing: .interval(10), tileSize: PixelSize(width: 640, height: 360),
                                   columns: 6, rows: 10)
    let text = DASHImageWriter.mpd(for: [
        DASHImageWriter.Representation(track: small, bandwidth: 2_000, id: "thumbnails-160", folder: "160/"),
        DASHImageWriter.Representation(track: large, bandwidth: 15_000, id: "thumbnails-640", folder: "640/"),
    ])
    let namespace = "urn:mpeg:dash:schema:mpd:2011"
    let mpd = try #require(try XMLDocument(data: Data(text.utf8)).rootElement())
    #expect(attribute(mpd, "mediaPresentationDuration") == "PT600S")
    let periods = mpd.elements(forLocalName: "Period", uri: namespace)
    let sets = try #require(periods.first).elements(forLocalName: "AdaptationSet", uri: namespace)
    try #require(periods.count == 1 && sets.count == 1)
    #expect(sets[0].elements(forLocalName: "SegmentTemplate", uri: namespace).isEmpty)
    let representations = sets[0].elements(forLocalName: "Representation", uri: namespace)
    try #require(representations.count == 2)
    for (representation, expected) in zip(representations, [("160", small, "2000"), ("640", large, "15000")]) {
        let (width, track, bandwidth) = expected
        #expect(attribute(representation, "id") == "thumbnails-\(width)" && attribute(representation, "bandwidth") == bandwidth)
        #expect(attribute(representation, "width") == "\(track.columns * track.tileSize.width)")
        #expect(attribute(representation, "height") == "\(track.rows * track.tileSize.height)")
        let template = try #require(representation.elements(forLocalName: "SegmentTemplate", uri: namespace).first)
        #expect(attribute(template, "media") == "\(width)/sheet-$Number%04d$.jpg")
        #expect(attribute(template, "duration") == "\(track.columns * track.rows * 10 * 1000)")
        let property = try #require(representation.elements(forLocalName: "EssentialProperty", uri: namespace).first)
        #expect(attribute(property, "value") == "\(track.columns)x\(track.rows)")
        // ISO/IEC 23009-1's schema puts a Representation's descriptors before its segment information.
        #expect(representation.children?.compactMap(\.localName) == ["EssentialProperty", "SegmentTemplate"])
    }
}

@Test func iFramePlaylistAddressesEveryFragment() throws {
    let track = tracks[4]
    var offset = 1234
    let fragments = track.thumbnails.map { thumbnail in
        defer { offset += 5000 + thumbnail.index }
        return IFrameFragment(time: thumbnail.startTime, duration: thumbnail.endTime - thumbnail.startTime,
                              byteOffset: offset, byteLength: 5000 + thumbnail.index)
    }
    let lines = try parseM3U(IFramePlaylistWriter.playlist(initSegmentLength: 1234, fragments: fragments))
    let expectedHeader: [M3ULine] = [
        .tag(name: "#EXTM3U", value: nil), .tag(name: "#EXT-X-VERSION", value: "7"),
        .tag(name: "#EXT-X-TARGETDURATION", value: "11"), .tag(name: "#EXT-X-PLAYLIST-TYPE", value: "VOD"),
        .tag(name: "#EXT-X-I-FRAMES-ONLY", value: nil),
    ]
    #expect(Array(lines.prefix(5)) == expectedHeader)
    guard case .tag("#EXT-X-MAP", let map?) = lines[5] else {
        Issue.record("missing EXT-X-MAP")
        return
    }
    #expect(try parseAttributes(map) == ["URI": "\"iframes.mp4\"", "BYTERANGE": "\"1234@0\""])
    #expect(lines.last == .tag(name: "#EXT-X-ENDLIST", value: nil))
    let body = Array(lines.dropFirst(6).dropLast())
    try #require(body.count == fragments.count * 3)
    var expectedOffset = 1234
    for (fragment, start) in zip(fragments, stride(from: 0, to: body.count, by: 3)) {
        guard case .tag("#EXTINF", let extinf) = body[start], case .tag("#EXT-X-BYTERANGE", let range?) = body[start + 1],
              body[start + 2] == .uri("iframes.mp4") else {
            Issue.record("bad fragment at \(body[start])")
            return
        }
        #expect(try parseExtinf(extinf) == ms(fragment.time + fragment.duration) - ms(fragment.time))
        let parts = range.split(separator: "@").compactMap { Int($0) }
        #expect(parts == [fragment.byteLength, expectedOffset])
        expectedOffset += fragment.byteLength
    }
    let line = IFramePlaylistWriter.streamInfLine(fragments: fragments, resolution: PixelSize(width: 320, height: 180))
    let prefix = "#EXT-X-I-FRAME-STREAM-INF:"
    let attributes = try parseAttributes(String(line.dropFirst(prefix.count)))
    #expect(line.hasPrefix(prefix))
    // Peak: the largest fragment, 5099 bytes over 10.01 s.
    #expect(attributes == ["BANDWIDTH": "\(Int((5099.0 * 8 / 10.01).rounded(.up)))", "RESOLUTION": "320x180",
                           "CODECS": "\"mjpg\"", "URI": "\"iframes.m3u8\""])
}

/// At an interval that is no whole number of milliseconds (a third of a second over a minute at 29.97 fps), every
/// fragment starts where its thumbnail does and they add up to the video's duration: each rounded alone, 181
/// fragments of 0.333 s added up to 59.973 s of 60.027, placing the last image 54 ms early.
@Test func iFrameDurationsAddUpToTheVideo() throws {
    let track = try track(60.027, .interval(0.3333), 7, 3)
    let fragments = track.thumbnails.map { thumbnail in
        IFrameFragment(time: thumbnail.startTime, duration: thumbnail.endTime - thumbnail.startTime, byteOffset: 0, byteLength: 1)
    }
    let text = IFramePlaylistWriter.playlist(initSegmentLength: 100, fragments: fragments)
    let durations = try parseM3U(text).compactMap { line -> Int? in
        if case .tag("#EXTINF", let value) = line { return try parseExtinf(value) } else { return nil }
    }
    try #require(durations.count == fragments.count)
    var elapsed = 0
    for (fragment, duration) in zip(fragments, durations) {
        #expect(elapsed == ms(fragment.time), "\(fragment.time)")
        elapsed += duration
    }
    #expect(elapsed == ms(60.027))
}

@Test func pngTracksUsePngEverywhere() throws {
    let png = try ThumbnailTrack(duration: 60, spacing: .interval(10), tileSize: tile, columns: 3, rows: 2,
                                 format: .png)
    #expect(WebVTTWriter.document(for: png).contains("sheet-0001.png#xywh=0,0,160,90"))
    #expect(HLSImagePlaylistWriter.imageStreamInfLine(for: png, bandwidth: 1).contains("CODECS=\"png\""))
    let mpd = DASHImageWriter.mpd(for: png, bandwidth: 1)
    #expect(mpd.contains("mimeType=\"image/png\"") && mpd.contains("media=\"sheet-$Number%04d$.png\""))
}
