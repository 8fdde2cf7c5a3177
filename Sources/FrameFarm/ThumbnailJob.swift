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
                return try ThumbnailTrack(duration: stream.timelineSeconds, spacing: options.spacing, tileSize: tileSize,
                                          columns: grid.columns, rows: grid.rows, format: options.format)
            }
            // The track is written into a staging folder that replaces thumbnails/ once all of it is written, and
            // is removed if the job fails.
            let (result, oldSetLeftAt) = try AtomicFile.replacingFolder(at: try input.makeOutputFolder() + "/thumbnails") { folder in
                let directories = try options.widths.count == 1 ? [folder] : options.widths.map { width in
                    let directory = folder + "/\(width)"
                    try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
                    return directory
                }
                let sheetWriters = try renderTracks(tracks, from: feeder, held: heldFrames, geometry: geometry,
                                                    codedContent: codedContent, start: stream.timelineOriginSeconds,
                                                    directories: directories, input: input)
                return try writeManifests(tracks: tracks, sheetWriters: sheetWriters, facts: facts,
                                          corruptTimes: feeder.corruptTimes, folder: folder, directories: directories,
                                          input: input)
            }
            return result.warning(oldSetLeftAt.map { InputWarning.oldOutputsLeft(folder: "thumbnails", leftAt: $0) })
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
        let targets = try ThumbnailTrack.startTimes(duration: stream.timelineSeconds, spacing: options.spacing)
            .map { info.startSeconds + stream.heldTime(stream.videoSeconds(atTimeline: $0)) }
        let sources = Self.paddingSources(targets: targets, serving: Self.keyframeTargets(targets, mode: options.seek, stream: stream),
                                          durationSeconds: stream.availableSeconds, startSeconds: info.startSeconds)
        let feeder = ThumbnailFrameFeeder(path: input.path, analysis: stream.analysis, targets: targets,
                                          leading: sources?.targets ?? [], mode: options.seek,
                                          skipsDeblocking: shrunkEnough, workers: cores,
                                          capacity: Self.framesPerBatch + 2 * cores, maxPixels: input.maxPixels)
        return (feeder, sources)
    }

    /// The targets whose frame costs a keyframe's decoding, or little more: in keyframe mode one per keyframe
    /// shown (targets that fall back to the same keyframe show the same frame, one sample: a letterboxed clip of
    /// one keyframe kept its bars, decided from one frame); in exact mode those at most `framesPastKeyframe`
    /// frames after a keyframe (known when the probe's scan reached the end), such as every target of a 10-s track
    /// over 2-s GOPs. The scan's keyframe times are decode times moved by the first keyframe's reordering delay,
    /// so a later keyframe may show a frame or two after its time.
    static func keyframeTargets(_ targets: [Double], mode: SeekMode, stream: StreamFacts) -> [Int] {
        if mode == .keyframe {
            guard let keyframes = stream.keyframeTimes else { return Array(targets.indices) }
            var shown = Set<Double>()
            return targets.indices.filter { index in
                shown.insert(keyframes.last { $0 <= targets[index] + 5e-7 } ?? targets[index]).inserted
            }
        }
        guard let keyframes = stream.keyframeTimes, let frame = stream.frameTiming?.medianFrameSeconds else { return [] }
        let reach = Double(framesPastKeyframe) * frame + 1e-6
        return targets.indices.filter { index in
            keyframes.contains { keyframe in (-1e-6...reach).contains(targets[index] - keyframe) }
        }
    }

    /// How far past a keyframe's time an exact target still costs about a keyframe's decoding.
    static let framesPastKeyframe = 4

    /// A grid lowered to keep sheets within the limit (per width), thumbnails closer than frames, a file cut short
    /// (with the thumbnails that show the last frame before the cut) and damaged data decoded.
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
        if track.thumbnails.count > 1, let frame = facts.frameTiming?.medianFrameSeconds ?? facts.info.frameRate.map({ 1 / $0 }),
           case let spacing = track.thumbnails[1].startTime - track.thumbnails[0].startTime, spacing < frame * 0.99 {
            warnings.append(.thumbnailsCloserThanFrames(spacing: spacing, frameSeconds: frame))
        }
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
        var bars: [Double: FrameBars?] = [:]
        if !sources.extraTimes.isEmpty {
            do {
                bars = try PaddingDetector.inspect(
                    path: input.path, analysis: stream.analysis, durationSeconds: stream.availableSeconds,
                    startSeconds: stream.info.startSeconds, keyframeTimes: stream.keyframeTimes, times: sources.extraTimes,
                    maxPixels: input.maxPixels, workers: 1).bars
            } catch InputError.noDecodableFrames {
                // Samples that fail to decode only leave less evidence, which `Padding.decide` weighs as such; the
                // track's own decoding reports any damage. A read that fails (a server's 403 once a signature
                // expires, a stall) fails the input, as it does `poster`: the track kept its bars without a word.
            }
        }
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
