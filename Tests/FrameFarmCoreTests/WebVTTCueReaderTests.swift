import Testing
@testable import FrameFarmCore

/// The review page scrubs from the cues read back from the track's WebVTT file.
@Suite struct WebVTTCueReaderTests {
    /// Every cue the writer wrote reads back as the thumbnail it came from: times to the millisecond, sheet, rect.
    @Test func cuesReadBackAsTheTracksThumbnails() throws {
        let track = try ThumbnailTrack(duration: 7325.5, spacing: .interval(2.5), tileSize: PixelSize(width: 160, height: 90),
                                       columns: 10, rows: 10)
        let cues = try #require(WebVTTCueReader.cues(in: WebVTTWriter.document(for: track)))
        #expect(cues.count == track.thumbnails.count)
        for (cue, thumbnail) in zip(cues, track.thumbnails) {
            #expect(cue.startMilliseconds == Int((thumbnail.startTime * 1000).rounded()))
            #expect(cue.endMilliseconds == Int((thumbnail.endTime * 1000).rounded()))
            #expect(cue.image == track.sheets[thumbnail.sheetIndex].fileName)
            #expect(cue.tileRect == thumbnail.tileRect)
        }
    }

    @Test func cueIdentifiersSettingsAndShortTimesAreRead() {
        let text = "WEBVTT\n\nNOTE made elsewhere\n\nintro\n01:02.500 --> 01:05.000 align:start\nhttps://cdn.example/s.jpg#xywh=0,90,160,90\n"
        #expect(WebVTTCueReader.cues(in: text) == [ThumbnailCue(startMilliseconds: 62_500, endMilliseconds: 65_000,
                                                                image: "https://cdn.example/s.jpg",
                                                                tileRect: PixelRect(x: 0, y: 90, width: 160, height: 90))])
    }

    @Test func notATileTrackReadsAsNothing() {
        #expect(WebVTTCueReader.cues(in: "<html>") == nil)
        #expect(WebVTTCueReader.cues(in: "WEBVTT\n\n00:00.000 --> 00:01.000\nHello\n") == nil)
    }

    /// The page carries a track's cues as runs of tiles along a sheet's row: a 2-hour track stays a few KB of
    /// page, and expanding the runs as the page's script documents gives back every cue the VTT file holds.
    @Test func theReviewPageCarriesEveryCueInFewBytes() throws {
        let track = try ThumbnailTrack(duration: 7200, spacing: .interval(10), tileSize: PixelSize(width: 160, height: 90),
                                       columns: 10, rows: 10)
        let cues = try #require(WebVTTCueReader.cues(in: WebVTTWriter.document(for: track)))
        let manifest = VideoManifest(input: InputRecord(path: "/videos/movie.mp4", sizeBytes: 1, modifiedSeconds: 0),
                                     probe: ProbeReport())
        let page = ContactSheetWriter.html(for: [ContactSheetWriter.Entry(folder: "movie", manifest: manifest,
                                                                          thumbnailCues: cues)])
        let attribute = try #require(page.range(of: #"data-cues="[0-9,]*""#, options: .regularExpression))
        let numbers = page[attribute].dropFirst(#"data-cues=""#.count).dropLast().split(separator: ",").compactMap { Int($0) }
        #expect(page[attribute].count < 3000, "\(page[attribute].count) bytes of cues for 720 thumbnails")
        let sheets = try #require(page.range(of: #"data-sheets="[^"]*""#, options: .regularExpression))
        let sheetNames = page[sheets].dropFirst(#"data-sheets=""#.count).dropLast().split(separator: " ").map(String.init)
        var expanded: [ThumbnailCue] = []
        for run in stride(from: 0, to: numbers.count - 5, by: 6) {
            let (start, duration, sheet, x, y, count) = (numbers[run], numbers[run + 1], numbers[run + 2], numbers[run + 3],
                                                         numbers[run + 4], numbers[run + 5])
            for k in 0..<count {
                expanded.append(ThumbnailCue(startMilliseconds: start + k * duration, endMilliseconds: start + (k + 1) * duration,
                                             image: sheetNames[sheet],
                                             tileRect: PixelRect(x: x + k * 160, y: y, width: 160, height: 90)))
            }
        }
        #expect(expanded == cues.map { cue in
            var linked = cue
            linked.image = "movie/" + cue.image
            return linked
        })
    }
}
