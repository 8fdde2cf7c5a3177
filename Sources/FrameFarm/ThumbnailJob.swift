import Dispatch
import Foundation
import FrameFarmGPU
import FrameFarmMedia

/// `framefarm thumbnails`: a trick-play track per video. Frames are decoded in parallel chunks, go to the GPU in
/// batches, and land as tiles straight in sprite-sheet canvases; a sheet is encoded as soon as its last tile is
/// in. Manifests (WebVTT, HLS image playlist, DASH, Apple I-frame sequence) are written last, all from one
/// `ThumbnailTrack`.
public struct ThumbnailJob: BatchJob {
    public static let command = "thumbnails"
    let options: ThumbnailOptions

    public init(options: ThumbnailOptions) { self.options = options }

    /// Frames per GPU submission.
    static let framesPerBatch = 8

    public func settings(policy: ModePolicy) -> ThumbnailSettings { options.settings }

    /// Twice the widest thumbnail: the resampling then has twice the detail it keeps.
    public var renditionNeed: (minimumWidth: Int?, purpose: String) {
        let widest = options.widths.max()!
        return (2 * widest, "thumbnails \(widest) px wide, twice over")
    }

    public func recordedSettings(in manifest: VideoManifest) -> [String: String]? { manifest.thumbnails?.settings }

    public func process(_ input: InputContext) throws -> InputResult {
        // Stage 1: the stream's facts, from demuxing alone.
        let stream = try input.stream()
        // Stage 2: decoding starts at once (the target times need only the duration; the frames wait in the
        // feeder's queue), and the padding is found meanwhile, from the feeder's own frames where it can be.
        let (feeder, paddingSources) = try startFeeder(stream, input: input)
        do {
            // Frames the padding search took from the feeder, rendered first.
            var heldFrames: [ThumbnailFrameFeeder.Item] = []
            let padding = try paddingSources.map {
                try Self.findPadding(in: feeder, sources: $0, stream: stream, input: input, held: &heldFrames)
            } ?? PaddingDetector.detect(stream, path: input.path, maxPixels: input.maxPixels)
            let facts = MediaFacts(stream: stream, padding: padding)
            // Stage 3: each width's track layout, then render and encode them all from the same frames.
            let geometry = stream.info.geometry
            let codedContent = facts.codedContent(options.removePadding)
            let contentSize = geometry.displayPixelRect(ofCoded: codedContent).size
            let sheetPixels = try input.gpu.sheetPixelLimit()
            let tracks = try options.widths.map { width in
                let tileSize = ThumbnailOptions.tileSize(for: contentSize, width: width, maxSide: options.maxSheetSide)
                let grid = options.grid(for: tileSize, maxPixels: sheetPixels)
                return try ThumbnailTrack(duration: stream.durationSeconds, spacing: options.spacing, tileSize: tileSize,
                                          columns: grid.columns, rows: grid.rows, format: options.format)
            }
            // The track is written into a staging folder that replaces thumbnails/ once all of it is written, and
            // is removed if the job fails.
            return try AtomicFile.replacingFolder(at: try input.makeOutputFolder() + "/thumbnails") { folder in
                let directories = try options.widths.count == 1 ? [folder] : options.widths.map { width in
                    let directory = folder + "/\(width)"
                    try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
                    return directory
                }
                let sheetWriters = try renderTracks(tracks, from: feeder, held: heldFrames, geometry: geometry,
                                                    codedContent: codedContent, start: stream.info.startSeconds,
                                                    directories: directories, input: input)
                return try writeManifests(tracks: tracks, sheetWriters: sheetWriters, facts: facts,
                                          corruptTimes: feeder.corruptTimes, folder: folder, directories: directories,
                                          input: input)
            }
        } catch {
            feeder.cancel()
            throw error
        }
    }

    /// Writes every width's manifests, and with several widths the index of them all, into `folder` (the track's
    /// staging folder), and says what the track is.
    private func writeManifests(tracks: [ThumbnailTrack], sheetWriters: [SheetWriter], facts: MediaFacts,
                                corruptTimes: [Double], folder: String, directories: [String],
                                input: InputContext) throws -> InputResult {
        let warnings = warnings(facts: facts, tracks: tracks, corruptTimes: corruptTimes)
        // Files as the manifest lists them: relative to the video's folder.
        let prefixes = options.widths.count == 1 ? ["thumbnails/"] : options.widths.map { "thumbnails/\($0)/" }
        let written = try zip(tracks, zip(sheetWriters, directories)).map { track, writerAndDirectory in
            try ThumbnailManifestFiles.write(track: track, directory: writerAndDirectory.1, options: options,
                                             sheetBytes: writerAndDirectory.0.sheetBytes, tiles: writerAndDirectory.0.tiles)
        }
        let allWidths = options.widths.count == 1 ? [] : try ThumbnailManifestFiles.writeIndexes(
            folder: folder, widths: options.widths, tracks: written).map { "thumbnails/" + $0 }
        let trackFiles = zip(tracks, prefixes).map { track, prefix in track.sheets.map { prefix + $0.fileName } }
        var section = ThumbnailsSection(
            settings: SettingsRecord.record(options.settings), gpu: input.gpu.record, tileWidth: tracks[0].tileSize.width,
            tileHeight: tracks[0].tileSize.height, columns: tracks[0].columns, rows: tracks[0].rows,
            intervalSeconds: tracks[0].interval, count: tracks[0].thumbnails.count, sheets: trackFiles[0],
            manifests: written[0].files.map { prefixes[0] + $0 } + allWidths,
            frameTimes: sheetWriters[0].frameTimes, warnings: warnings.map(\.description))
        if tracks.count > 1 {
            section.moreWidths = (1..<tracks.count).map { index in
                ThumbnailsSection.Track(tileWidth: tracks[index].tileSize.width, tileHeight: tracks[index].tileSize.height,
                                        columns: tracks[index].columns, rows: tracks[index].rows, sheets: trackFiles[index],
                                        manifests: written[index].files.map { prefixes[index] + $0 })
            }
        }
        return InputResult(facts: facts, files: section.files, warnings: warnings) { [section] in
            $0.thumbnails = section
        }
    }

    /// Starts decoding the track's frames on every core, and says which of them the padding search takes
    /// (`paddingSources`), which the feeder decodes first.
    private func startFeeder(_ stream: StreamFacts, input: InputContext) throws -> (ThumbnailFrameFeeder, PaddingSources?) {
        let info = stream.info, cores = ProcessInfo.processInfo.activeProcessorCount
        // Skipped deblocking moves the frame shown by a few dB at full size: hidden by a 4x shrink (of every width).
        let shrunkEnough = options.widths.max()! * 4 <= info.geometry.displaySize.width
        // Past the cut of a file cut short, each thumbnail shows the last frame before it.
        let targets = try ThumbnailTrack.startTimes(duration: stream.durationSeconds, spacing: options.spacing)
            .map { info.startSeconds + stream.heldTime($0) }
        let sources = Self.paddingSources(targets: targets, serving: Self.keyframeTargets(targets, mode: options.seek, stream: stream),
                                          durationSeconds: stream.availableSeconds, startSeconds: info.startSeconds)
        let feeder = ThumbnailFrameFeeder(path: input.path, analysis: stream.analysis, targets: targets,
                                          leading: sources?.targets ?? [], mode: options.seek,
                                          skipsDeblocking: shrunkEnough, workers: cores,
                                          capacity: Self.framesPerBatch + 2 * cores, maxPixels: input.maxPixels)
        return (feeder, sources)
    }

    /// The targets whose frame costs a keyframe's decoding, or little more: every one in keyframe mode; in exact
    /// mode those at most `framesPastKeyframe` frames after a keyframe (known when the probe's scan reached the
    /// end), such as every target of a 10-s track over 2-s GOPs. The scan's keyframe times are decode times moved
    /// by the first keyframe's reordering delay, so a later keyframe may show a frame or two after its time.
    static func keyframeTargets(_ targets: [Double], mode: SeekMode, stream: StreamFacts) -> [Int] {
        if mode == .keyframe { return Array(targets.indices) }
        guard let keyframes = stream.keyframeTimes, let frame = stream.frameTiming?.medianFrameSeconds else { return [] }
        let reach = Double(framesPastKeyframe) * frame + 1e-6
        return targets.indices.filter { index in
            keyframes.contains { keyframe in (-1e-6...reach).contains(targets[index] - keyframe) }
        }
    }

    /// How far past a keyframe's time an exact target still costs about a keyframe's decoding.
    static let framesPastKeyframe = 4

    /// A grid lowered to keep sheets within the limit (per width), a file cut short (with the thumbnails that
    /// show the last frame before the cut) and damaged data decoded.
    private func warnings(facts: MediaFacts, tracks: [ThumbnailTrack], corruptTimes: [Double]) -> [InputWarning] {
        var warnings: [InputWarning] = []
        for (width, track) in zip(options.widths, tracks) {
            if track.tileSize.width != width {
                warnings.append(.tilesNarrowed(width: width, tile: track.tileSize, maxSheetSide: options.maxSheetSide))
            }
            guard (track.columns, track.rows) != (options.columns, options.rows) else { continue }
            let withinSide = options.grid(for: track.tileSize)
            warnings.append(.sheetGridLowered(asked: SheetGrid(columns: options.columns, rows: options.rows,
                                                               maxSheetSide: options.maxSheetSide),
                                              columns: track.columns, rows: track.rows,
                                              width: tracks.count > 1 ? width : nil,
                                              byDevice: (track.columns, track.rows) != withinSide))
        }
        let track = tracks[0]
        if let cut = facts.cutShortAtSeconds {
            // The cut is the time of the first frame the file lacks: a thumbnail at it already holds the one before.
            let after = track.thumbnails.first { $0.startTime >= cut - 5e-7 }
            warnings.append(.cutShort(atSeconds: cut, ofSeconds: facts.durationSeconds, consequence: after.map {
                .thumbnailsHoldLastFrame(fromSeconds: $0.startTime, keyframe: options.seek == .keyframe)
            }))
        }
        if let damage = facts.stream.damage(times: corruptTimes) {
            warnings.append(.damagedData(damage, consequence: nil))
        }
        return warnings
    }

    /// The frames the padding is decided from, where the track's own can serve: those of `serving` targets,
    /// keyframes alone (`keyframeTargets`), which the feeder decodes first at the cost of a seek each. For each
    /// time `PaddingDetector` samples, the serving target nearest it, unless an earlier sample took that target;
    /// such samples are decoded apart (`extraTimes`), so the decision still rests on as many frames, and no frame
    /// is decoded twice: a 1-min 4K HEVC track of six thumbnails at keyframes decoded fifteen keyframes for
    /// itself and the search, now nine. Nil when no target serves (an exact track between keyframes, whose frames
    /// cost a GOP's decoding each): the detector samples keyframes of its own.
    struct PaddingSources: Equatable {
        /// Targets whose frames are samples.
        var targets: [Int]
        /// Sample times no target serves.
        var extraTimes: [Double]
    }

    static func paddingSources(targets: [Double], serving: [Int], durationSeconds: Double,
                               startSeconds: Double) -> PaddingSources? {
        guard !serving.isEmpty else { return nil }
        var sources = PaddingSources(targets: [], extraTimes: [])
        for time in PaddingDetector.sampleTimes(durationSeconds: durationSeconds, startSeconds: startSeconds) {
            let nearest = serving.min { abs(targets[$0] - time) < abs(targets[$1] - time) }!
            if sources.targets.contains(nearest) { sources.extraTimes.append(time) } else { sources.targets.append(nearest) }
        }
        return sources
    }

    /// The padding from the feeder's frames of `sources.targets` and the detector's of `sources.extraTimes`,
    /// which this thread decodes meanwhile (one reader: the feeder's workers keep the other cores busy, and each
    /// more reader of 4K HEVC fills five frames of memory); every frame taken from the feeder on the way is kept in
    /// `held`. A frame both bring (the same time) counts once.
    private static func findPadding(in feeder: ThumbnailFrameFeeder, sources: PaddingSources, stream: StreamFacts,
                                    input: InputContext, held: inout [ThumbnailFrameFeeder.Item]) throws -> Padding {
        // Samples that fail to decode only leave less evidence, which `Padding.decide` weighs as such; the track's
        // own decoding reports any damage.
        var bars = sources.extraTimes.isEmpty ? [:] : (try? PaddingDetector.inspect(
            path: input.path, analysis: stream.analysis, durationSeconds: stream.availableSeconds,
            startSeconds: stream.info.startSeconds, keyframeTimes: stream.keyframeTimes, times: sources.extraTimes,
            maxPixels: input.maxPixels, workers: 1).bars) ?? [:]
        var found = 0
        while found < sources.targets.count, let item = try feeder.next() {
            held.append(item)
            if sources.targets.contains(item.index) {
                found += 1
                bars.updateValue(PaddingDetector.bars(in: item.frame, codedSize: stream.info.geometry.codedSize), forKey: item.frame.timeSeconds)
            }
        }
        return Padding.decide(codedSize: stream.info.geometry.codedSize, frames: Array(bars.values))
    }

    /// Renders the `held` frames, then the feeder's, into every track's sheets, a batch at a time (each frame
    /// decoded once for all widths); each sheet is encoded as soon as its last tile is in.
    private func renderTracks(_ tracks: [ThumbnailTrack], from feeder: ThumbnailFrameFeeder,
                              held: [ThumbnailFrameFeeder.Item], geometry: DisplayGeometry, codedContent: PixelRect,
                              start: Double, directories: [String], input: InputContext) throws -> [SheetWriter] {
        var sheetWriters = zip(tracks, directories).map { track, directory in
            SheetWriter(track: track, directory: directory, options: options,
                        wantsTiles: options.manifests.contains(.iframes))
        }
        try input.gpu.withRenderer { renderer in
            var pending: [ThumbnailFrameFeeder.Item] = []
            var held = held[...]
            while true {
                let item = try held.popFirst() ?? feeder.next()
                if let item { pending.append(item) }
                guard pending.count >= Self.framesPerBatch || (item == nil && !pending.isEmpty) else {
                    if item == nil { break }
                    continue
                }
                try Self.render(pending, into: &sheetWriters, renderer: renderer, encoders: input.encoders,
                                geometry: geometry, codedContent: codedContent, start: start,
                                resampling: options.resampling)
                input.progress.add(items: pending.count)
                pending.removeAll()
            }
        }
        return sheetWriters
    }

    /// Renders `items` into the sheets of every track in one submission, so each frame is uploaded (and
    /// prefiltered) once for every width; more submissions only where the sheets touched are more than one may
    /// draw into (`Renderer.maxCanvasTargets`). Batches are submitted without waiting, so the next batch's frames
    /// are gathered and uploaded while the device draws this one. The sheets a submission completes (every
    /// width's, at the end of a short track) are encoded together, over the cores.
    static func render(_ items: [ThumbnailFrameFeeder.Item], into writers: inout [SheetWriter], renderer: Renderer,
                       encoders: EncoderPool, geometry: DisplayGeometry, codedContent: PixelRect, start: Double,
                       resampling: Resampling) throws {
        var draws: [(writer: Int, draw: SheetWriter.Draw)] = []
        for index in writers.indices {
            draws += try writers[index].draws(for: items, context: renderer.context, start: start).map { (index, $0) }
        }
        for first in stride(from: 0, to: draws.count, by: Renderer.maxCanvasTargets) {
            let group = draws[first..<min(first + Renderer.maxCanvasTargets, draws.count)]
            // Frames shared by several tiles (every width; keyframe mode and short videos) are uploaded once.
            var sources: [GPUFrame] = []
            var sourceIndex: [ObjectIdentifier: Int] = [:]
            var jobs: [RenderJob] = []
            for (canvasIndex, entry) in group.enumerated() {
                for tile in entry.draw.tiles {
                    let key = ObjectIdentifier(tile.frame)
                    if sourceIndex[key] == nil {
                        sourceIndex[key] = sources.count
                        sources.append(GPUFrame(tile.frame, geometry: geometry))
                    }
                    let index = sourceIndex[key]!
                    jobs.append(sources[index].job(RenderJob(sourceIndex: index, sourceCrop: SourceRect(codedContent),
                                                             destination: tile.rect, canvasIndex: canvasIndex,
                                                             transform: geometry.transform)))
                }
            }
            // Frame by frame, so that where the renderer must split a batch too large for the device to bind
            // (4K frames at several widths, on lavapipe), it cuts between frames, each still uploaded once.
            jobs.sort { $0.sourceIndex < $1.sourceIndex }
            let batch = RenderBatch(sources: sources.map(\.source), canvases: [], jobs: jobs, resampling: resampling)
            let ticket = try renderer.submit(batch, into: group.map(\.draw.canvas))
            var completed: [SheetWriter.Completed] = []
            for entry in group {
                if let sheet = try writers[entry.writer].submitted(entry.draw, ticket: ticket, renderer: renderer) {
                    completed.append(SheetWriter.Completed(writer: entry.writer, sheet: sheet.sheet, canvas: sheet.canvas))
                }
            }
            try SheetWriter.write(completed, into: &writers, encoders: encoders)
        }
    }
}

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

/// Writes the track's manifests from one ThumbnailTrack.
enum ThumbnailManifestFiles {
    /// What `write` wrote: the file names, the track's stream-inf lines for a multivariant playlist that
    /// reaches the track's folder through `uriPrefix` ("" beside it, "160/" from the folder of several widths),
    /// and its DASH Representation.
    struct Written {
        var files: [String] = []
        var streamInfLines: [(_ uriPrefix: String) -> String] = []
        var dash: DASHImageWriter.Representation?
    }

    static func write(track: ThumbnailTrack, directory: String, options: ThumbnailOptions, sheetBytes: [Int],
                      tiles: [Data]) throws -> Written {
        var written = Written()
        func save(_ name: String, _ text: String) throws {
            try AtomicFile.write(Data(text.utf8), to: directory + "/" + name)
            written.files.append(name)
        }
        let bandwidth = track.peakBandwidth(sheetByteCounts: sheetBytes)
        if options.manifests.contains(.vtt) { try save("thumbnails.vtt", WebVTTWriter.document(for: track)) }
        if options.manifests.contains(.hls) {
            try save("thumbnails.m3u8", HLSImagePlaylistWriter.playlist(for: track))
            written.streamInfLines.append { HLSImagePlaylistWriter.imageStreamInfLine(for: track, bandwidth: bandwidth, uri: $0 + "thumbnails.m3u8") }
            try save("thumbnails-stream-inf.txt", written.streamInfLines.last!("") + "\n")
        }
        if options.manifests.contains(.dash) {
            let representation = DASHImageWriter.Representation(track: track, bandwidth: bandwidth)
            written.dash = representation
            try save("thumbnails.mpd", DASHImageWriter.mpd(for: [representation]))
        }
        if options.manifests.contains(.iframes), !tiles.isEmpty {
            let sequence = try IFrameSequenceWriter.write(
                jpegs: tiles, width: track.tileSize.width, height: track.tileSize.height,
                times: track.thumbnails.map(\.startTime), durations: track.thumbnails.map { $0.endTime - $0.startTime },
                to: directory + "/iframes.mp4")
            written.files.append("iframes.mp4")
            try save("iframes.m3u8", IFramePlaylistWriter.playlist(initSegmentLength: sequence.initSegmentLength,
                                                                   fragments: sequence.fragments))
            written.streamInfLines.append {
                IFramePlaylistWriter.streamInfLine(fragments: sequence.fragments, resolution: track.tileSize, uri: $0 + "iframes.m3u8")
            }
            try save("iframes-stream-inf.txt", written.streamInfLines.last!("") + "\n")
        }
        return written
    }

    /// With several widths, in the thumbnails folder: `thumbnails-stream-inf.txt`, every width's stream-inf lines
    /// with URIs from there (`160/thumbnails.m3u8`), for a multivariant playlist beside it; and `thumbnails.mpd`,
    /// one image adaptation set with a Representation per width. Returns the names written.
    static func writeIndexes(folder: String, widths: [Int], tracks: [Written]) throws -> [String] {
        var names: [String] = []
        let lines = zip(widths, tracks).flatMap { width, track in track.streamInfLines.map { $0("\(width)/") } }
        if !lines.isEmpty {
            try AtomicFile.write(Data((lines.joined(separator: "\n") + "\n").utf8), to: folder + "/thumbnails-stream-inf.txt")
            names.append("thumbnails-stream-inf.txt")
        }
        let representations = zip(widths, tracks).compactMap { width, track in
            track.dash.map { DASHImageWriter.Representation(track: $0.track, bandwidth: $0.bandwidth,
                                                            id: "thumbnails-\(width)", folder: "\(width)/") }
        }
        if !representations.isEmpty {
            try AtomicFile.write(Data(DASHImageWriter.mpd(for: representations).utf8), to: folder + "/thumbnails.mpd")
            names.append("thumbnails.mpd")
        }
        return names
    }
}
