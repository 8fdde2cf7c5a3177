import FrameFarmCore
import Testing

let tile = PixelSize(width: 160, height: 90)

func track(_ duration: Double, _ spacing: ThumbnailSpacing, _ columns: Int, _ rows: Int) throws -> ThumbnailTrack {
    try ThumbnailTrack(duration: duration, spacing: spacing, tileSize: tile, columns: columns, rows: rows)
}

@Test func shortVideoGetsOneThumbnail() throws {
    for duration in [9.5, 0, 0.0004] {
        let short = try track(duration, .interval(10), 5, 2)
        #expect(short.thumbnails.count == 1 && short.sheets.count == 1)
        #expect(short.thumbnails[0].startTime == 0 && short.thumbnails[0].endTime == max(duration, 0.001))
        #expect(short.sheets[0].size == tile && short.sheets[0].fileName == "sheet-0001.jpg")
    }
}

@Test func tenMinutesInOneTenByTenSheet() throws {
    let tenMinutes = try track(600, .interval(10), 10, 10)
    #expect(tenMinutes.thumbnails.count == 60)
    #expect(tenMinutes.sheets.count == 1)
    let sheet = tenMinutes.sheets[0]
    #expect(sheet.columns == 10 && sheet.rows == 6 && sheet.size == PixelSize(width: 1600, height: 540))
    #expect(tenMinutes.gridSize == PixelSize(width: 1600, height: 900))
    #expect(tenMinutes.thumbnails[59].tileRect == PixelRect(x: 1440, y: 450, width: 160, height: 90))
    #expect(tenMinutes.thumbnails[59].startTime == 590 && tenMinutes.thumbnails[59].endTime == 600)
}

/// A thumbnail starts wherever a millisecond or more is left, the last millisecond too (floating point took 0.039
/// s of 1-ms steps for fewer than 39, so the last millisecond joined the cue before, where DASH still had a tile);
/// a tail under a millisecond joins the one before.
@Test func theLastMillisecondGetsItsOwnThumbnail() throws {
    #expect(try track(0.04, .interval(0.001), 1, 1).thumbnails.count == 40)
    let almostOne = try track(10, .interval(0.9999), 4, 4)
    #expect(almostOne.thumbnails.count == 11 && abs(almostOne.thumbnails[10].startTime - 9.999) < 1e-9)
    #expect(try track(10.0005, .interval(2.5), 4, 4).thumbnails.count == 4)
}

@Test func nonSquareGridsCutOnlyTheLastSheet() throws {
    // 1001 s at 10 s: 101 thumbnails, the last from 1000 to 1001 s.
    let fiveByTwo = try track(1001, .interval(10), 5, 2)
    #expect(fiveByTwo.thumbnails.count == 101 && fiveByTwo.sheets.count == 11)
    #expect(fiveByTwo.sheets[9].size == PixelSize(width: 800, height: 180))
    #expect(fiveByTwo.sheets[10].size == tile && fiveByTwo.sheets[10].thumbnailRange == 100..<101)
    #expect(fiveByTwo.sheets[10].startTime == 1000 && fiveByTwo.sheets[10].endTime == 1001)
    #expect(fiveByTwo.sheets[10].fileName == "sheet-0011.jpg")

    // 7x3 holds 21: sheets of 21, 21, 21, 21, 17; 17 tiles need 3 rows, the last row partial.
    let sevenByThree = try track(1001, .interval(10), 7, 3)
    #expect(sevenByThree.sheets.map(\.thumbnailRange.count) == [21, 21, 21, 21, 17])
    #expect(sevenByThree.sheets[4].size == PixelSize(width: 1120, height: 270))
    #expect(sevenByThree.thumbnails[100].tileRect == PixelRect(x: 320, y: 180, width: 160, height: 90))
    #expect(sevenByThree.thumbnails[100].sheetIndex == 4)

    // Fewer tiles than one row: the sheet is as wide as its tiles.
    let oneRow = try track(30, .interval(10), 5, 2)
    #expect(oneRow.sheets[0].size == PixelSize(width: 480, height: 90) && oneRow.sheets[0].columns == 3)
}

@Test func countSpacesThumbnailsEvenly() throws {
    let counted = try track(1001, .count(7), 4, 4)
    #expect(counted.interval == 143 && counted.thumbnails.count == 7)
    #expect(counted.thumbnails.last?.endTime == 1001)
    let hundred = try track(1001, .count(100), 10, 10)
    #expect(hundred.thumbnails.count == 100 && abs(hundred.interval - 10.01) < 1e-12)
    let tiny = try track(0.005, .count(100), 10, 10)
    #expect(tiny.thumbnails.count == 5)
    // 20.02 s in 3 (29.97 fps): every tile is taken at the millisecond its WebVTT cue starts, HLS's tile duration
    // (DURATION, to the microsecond) puts each cue start in its own tile, and the last cue ends at the end.
    let thirds = try track(20.02, .count(3), 3, 2)
    let cueStarts = thirds.thumbnails.map { TimeFormatting.milliseconds($0.startTime) }
    #expect(zip(thirds.thumbnails, cueStarts).allSatisfy { abs($0.startTime - Double($1) / 1000) < 1e-9 },
            "\(thirds.thumbnails.map(\.startTime))")
    let tileSeconds = try #require(Double(TimeFormatting.microsecondsUp(thirds.interval)))
    #expect(cueStarts.map { Int((Double($0) / 1000 / tileSeconds).rounded(.down)) } == [0, 1, 2])
    #expect(thirds.thumbnails.last?.endTime == 20.02)
}

@Test func oneByOneGridMakesASheetPerThumbnail() throws {
    let single = try track(25, .interval(10), 1, 1)
    #expect(single.sheets.count == 3 && single.sheets.allSatisfy { $0.size == tile })
    #expect(single.sheets.map(\.duration) == [10, 10, 5])
    #expect(single.thumbnails.allSatisfy { $0.tileRect.x == 0 && $0.tileRect.y == 0 })
}

@Test func invalidTracksAreRefused() throws {
    #expect(throws: ThumbnailTrackError.invalidInterval(0)) { try track(10, .interval(0), 1, 1) }
    #expect(throws: ThumbnailTrackError.invalidCount(0)) { try track(10, .count(0), 1, 1) }
    #expect(throws: ThumbnailTrackError.invalidDuration(-1)) { try track(-1, .interval(1), 1, 1) }
    #expect(throws: ThumbnailTrackError.invalidGrid(columns: 0, rows: 2)) { try track(10, .interval(1), 0, 2) }
    #expect(throws: ThumbnailTrackError.invalidTileSize(PixelSize(width: 0, height: 90))) {
        try ThumbnailTrack(duration: 1, spacing: .count(1), tileSize: PixelSize(width: 0, height: 90), columns: 1,
                           rows: 1)
    }
}

@Test func sheetNamingPatterns() throws {
    let naming = try SheetNaming(pattern: "thumbs_%03d.jpg")
    #expect(naming.fileName(7, .png) == "thumbs_007.png")
    #expect(naming.dashTemplate(.jpeg) == "thumbs_$Number%03d$.jpg")
    #expect(try SheetNaming(pattern: "s%d-x").fileName(12, .jpeg) == "s12-x.jpg")
    for bad in ["sheet", "sheet-%s", "a/%04d", "%04d%d", "%00d", "%4d", "sheet $%02d", "%0ad"] {
        #expect(throws: ThumbnailTrackError.invalidFileNamePattern(bad)) { try SheetNaming(pattern: bad) }
    }
}

@Test func timesRoundToTheMillisecond() {
    #expect(TimeFormatting.webVTT(0) == "00:00:00.000")
    #expect(TimeFormatting.webVTT(9.5) == "00:00:09.500")
    #expect(TimeFormatting.webVTT(59.9996) == "00:01:00.000")
    #expect(TimeFormatting.webVTT(3723.0004) == "01:02:03.000")
    #expect(TimeFormatting.webVTT(2.9996) == "00:00:03.000")
    #expect(TimeFormatting.webVTT(360_000.25) == "100:00:00.250")
    #expect(TimeFormatting.decimalSeconds(10.0099) == "10.010")
    #expect(TimeFormatting.xsDuration(600) == "PT600S" && TimeFormatting.xsDuration(9.5) == "PT9.5S")
    #expect(TimeFormatting.xsDuration(1001.001) == "PT1001.001S")
}

/// BANDWIDTH is RFC 8216's peak segment bit rate: the highest over runs of sheets lasting 0.5 to 1.5 target
/// durations. A last sheet of one tile over 1 s is not a run of its own (it gave 16 000 bits/s, 20 times the rest).
@Test func bandwidthIsThePeakRateOverRunsNearTheTargetDuration() throws {
    let fiveByTwo = try track(1001, .interval(10), 5, 2)
    var bytes = Array(repeating: 10_000, count: 11)
    bytes[10] = 2_000
    // Target 100 s: each full sheet is 80 000 bits / 100 s; the last two together 96 000 bits / 101 s.
    #expect(fiveByTwo.peakBandwidth(sheetByteCounts: bytes) == 951)
    bytes[3] = 30_000  // a busier sheet is the peak, alone
    #expect(fiveByTwo.peakBandwidth(sheetByteCounts: bytes) == 2_400)
    #expect(fiveByTwo.estimatedPeakBandwidth(averageSheetBytes: 10_000) == 800)
    // A clip of 0.4 s (target 1 s) has no run of 0.5 s or more: its one sheet's 867 bytes over 0.4 s, not 0.
    let short = try track(0.4, .interval(10), 5, 2)
    #expect(short.peakBandwidth(sheetByteCounts: [867]) == 17_340)
}
