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
}
