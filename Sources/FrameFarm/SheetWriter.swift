import Foundation
import FrameFarmGPU
import FrameFarmMedia

/// Keeps the sprite-sheet canvases of a track while their tiles arrive (at most one per decode chunk is open at
/// a time); a sheet waits for the submissions drawing into it only when its last tile is in, and is then encoded
/// and written at once (`write`).
struct SheetWriter {
    let track: ThumbnailTrack
    let directory: String
    let options: ThumbnailOptions
    /// Also keep each tile as its own JPEG (the Apple I-frame sequence needs single images).
    let wantsTiles: Bool
    private var open: [Int: (canvas: PersistentCanvas, remaining: Int, inFlight: [RenderTicket])] = [:]
    private(set) var sheetBytes: [Int]
    private(set) var tiles: [Data]
    private(set) var frameTimes: [Double]

    /// The tiles a batch draws into one sheet of this track.
    struct Draw {
        var sheetIndex: Int
        var canvas: PersistentCanvas
        var tiles: [(frame: DecodedFrame, rect: PixelRect)]
    }

    /// A sheet of writer `writer` whose tiles are all drawn.
    struct Completed {
        var writer: Int
        var sheet: ThumbnailTrack.Sheet
        var canvas: PersistentCanvas
    }

    init(track: ThumbnailTrack, directory: String, options: ThumbnailOptions, wantsTiles: Bool) {
        self.track = track
        self.directory = directory
        self.options = options
        self.wantsTiles = wantsTiles
        sheetBytes = [Int](repeating: 0, count: track.sheets.count)
        tiles = [Data](repeating: Data(), count: wantsTiles ? track.thumbnails.count : 0)
        frameTimes = [Double](repeating: 0, count: track.thumbnails.count)
    }

    /// What `items` draw into this track: per sheet touched (usually one), its canvas, opened on its first tile,
    /// and each item's tile. Records the times of the frames shown.
    mutating func draws(for items: [ThumbnailFrameFeeder.Item], context: GPUContext, start: Double) throws -> [Draw] {
        let bySheet = Dictionary(grouping: items) { track.thumbnails[$0.index].sheetIndex }
        return try bySheet.keys.sorted().map { sheetIndex in
            let sheet = track.sheets[sheetIndex]
            if open[sheetIndex] == nil {
                open[sheetIndex] = (try PersistentCanvas(context: context, size: sheet.size), sheet.thumbnailRange.count, [])
            }
            let sheetItems = bySheet[sheetIndex]!
            for item in sheetItems {
                frameTimes[item.index] = ((item.frame.timeSeconds - start) * 1_000_000).rounded() / 1_000_000
            }
            return Draw(sheetIndex: sheetIndex, canvas: open[sheetIndex]!.canvas,
                        tiles: sheetItems.map { ($0.frame, track.thumbnails[$0.index].tileRect) })
        }
    }

    /// Records that the submission of `ticket` draws `draw`. Once a sheet's last tile is submitted, waits for the
    /// submissions drawing into it, closes it and returns it, drawn, to be written.
    mutating func submitted(_ draw: Draw, ticket: RenderTicket,
                            renderer: Renderer) throws -> (sheet: ThumbnailTrack.Sheet, canvas: PersistentCanvas)? {
        let sheetIndex = draw.sheetIndex
        open[sheetIndex]!.inFlight.append(ticket)
        open[sheetIndex]!.remaining -= draw.tiles.count
        guard open[sheetIndex]!.remaining == 0 else { return nil }
        for ticket in open[sheetIndex]!.inFlight { try renderer.finish(ticket) }
        defer { open[sheetIndex] = nil }
        return (track.sheets[sheetIndex], open[sheetIndex]!.canvas)
    }

    /// Encodes the `completed` sheets, and the tiles of those whose writer keeps them, all at once over the cores
    /// (`ParallelBatch.encode`), writes each sheet's file and records its size and the tiles in its writer. One
    /// thread encoding three widths' sheets and their tiles in turn bounds a short track on a many-core GPU host
    /// (3840x3600 and 60 tiles for 640 px).
    static func write(_ completed: [Completed], into writers: inout [SheetWriter], encoders: EncoderPool) throws {
        guard !completed.isEmpty else { return }
        /// What each image is: a whole sheet (`tile` nil) or one of its tiles.
        var images: [(sheet: Int, tile: Int?)] = [], requests: [EncodeRequest] = []
        for (sheet, entry) in completed.enumerated() {
            let writer = writers[entry.writer], size = entry.sheet.size
            images.append((sheet, nil))
            requests.append(EncodeRequest(PixelRect(x: 0, y: 0, width: size.width, height: size.height), of: entry.canvas,
                                          format: writer.options.format, quality: writer.options.quality))
            guard writer.wantsTiles else { continue }
            for tile in entry.sheet.thumbnailRange {
                images.append((sheet, tile))
                requests.append(EncodeRequest(writer.track.thumbnails[tile].tileRect, of: entry.canvas, format: .jpeg,
                                              quality: writer.options.quality))
            }
        }
        for (image, data) in zip(images, try ParallelBatch.encode(requests, with: encoders)) {
            let entry = completed[image.sheet]
            if let tile = image.tile {
                writers[entry.writer].tiles[tile] = data
            } else {
                try AtomicFile.write(data, to: writers[entry.writer].directory + "/" + entry.sheet.fileName)
                writers[entry.writer].sheetBytes[entry.sheet.index] = data.count
            }
        }
    }
}
