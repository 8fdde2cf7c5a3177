import Foundation
import FrameFarmCore

/// Everything the host works out for one batch before any GPU command: the shader tables (sources, prefilter
/// images, jobs, filter weights, canvases, overlays, work items), the scratch sizes, and how jobs are grouped
/// into chunks whose intermediates fit the scratch budget. Pure host code: no Vulkan.
struct BatchPlan {
    /// Jobs whose horizontal results share the intermediate buffer at once; chunks run one after another.
    struct JobChunk {
        var jobs: Range<Int>
    }

    var sources: [SourceDescriptor] = []
    /// Byte offset of each frame in the source region, and the region's size.
    var sourceOffsets: [Int] = []
    var sourceBytes = 0
    /// Whether any source needs HDR or gamut conversion (the passes then use their converting specialization).
    var convertsColor: Bool { sources.contains { $0.convertsColor != 0 } }
    var images: [PrefilterImage] = []
    var planeFloats = 0
    var jobs: [ResampleJob] = []
    var filterWords: [UInt32] = []
    var chunks: [JobChunk] = []
    var intermediateFloats = 0
    /// Each canvas of the batch, where it lies in the canvas buffer (aligned for binding).
    var canvases: [CanvasDescriptor] = []
    /// What the passes draw into, bound one at a time: each canvas whole or, where a canvas is larger than the
    /// device binds at once (a DCI 8K poster: 141 MB, over lavapipe's 128 MiB), consecutive windows of its rows,
    /// end to end so the canvas stays one run of pixels. Jobs and overlay cells name windows.
    var windows: [CanvasDescriptor] = []
    /// Pixels of the canvas buffer, and of the largest window (the range every window is bound with).
    var canvasPixels = 0
    var largestWindowPixels = 0
    /// Pixel ranges of the canvases buffer that keep the background, with its packed colour: every row of a
    /// canvas but those its jobs draw from edge to edge (a full-screen render fills nothing; a letterboxed one,
    /// its bars). Filling what the passes overwrite anyway was a single-threaded memset of every canvas.
    var backgroundFills: [(pixels: Range<Int>, color: UInt32)] = []
    var overlayCells: [UInt32] = []
    var overlayRanges: [(window: Int, first: Int, count: Int)] = []

    /// Indices into `windows` of each canvas's windows.
    private var windowsOfCanvas: [Range<Int>] = []
    private var sharedImages: [Int: Int] = [:]
    private var tableOffsets: [AxisMapping: (offset: Int, taps: Int)] = [:]

    /// - Parameter intermediateBudget: floats of intermediate a chunk may use (a single larger job still runs).
    /// - Parameter canvasAlignment: bytes each window's first pixel is aligned to (it is bound at that offset).
    /// - Parameter windowPixels: the most pixels one binding of the canvas buffer may hold.
    init(batch: RenderBatch, intermediateBudget: Int, canvasAlignment: Int, windowPixels: Int = .max,
         filterTables: FilterTableCache) throws {
        try Self.validate(batch)
        for source in batch.sources { addSource(source.format) }
        for (index, canvas) in batch.canvases.enumerated() {
            addCanvas(canvas, index: index, alignmentPixels: max(1, canvasAlignment / 4), windowPixels: windowPixels)
        }
        for job in batch.jobs {
            let format = batch.sources[job.sourceIndex].format
            jobs += planJob(job, format: format, filter: batch.filter, linearLight: batch.linearLight,
                            filterTables: filterTables, intermediateBudget: intermediateBudget).flatMap(inWindows)
        }
        assignChunks(budget: intermediateBudget)
        for (index, canvas) in batch.canvases.enumerated() {
            let drawn = batch.jobs.filter { $0.canvasIndex == index }.map(\.destination)
            let offset = Int(canvases[index].pixelOffset), width = canvas.size.width
            backgroundFills += Self.rowsNotDrawnAcross(canvas.size, by: drawn).map {
                ((offset + $0.lowerBound * width)..<(offset + $0.upperBound * width), canvases[index].background)
            }
        }
        for (index, canvas) in batch.canvases.enumerated() where !canvas.overlays.isEmpty {
            for window in windowsOfCanvas[index] {
                let cells = OverlayPass.cells(of: canvas, rows: windows[window].rows)
                if !cells.isEmpty { overlayRanges.append((window, overlayCells.count, cells.count)) }
                overlayCells += cells
            }
        }
    }

    // MARK: - Sources and canvases

    private mutating func addSource(_ format: FrameFormat) {
        let planes = format.packedPlanes
        let subsampling = (x: Double(format.chromaSubsamplingX), y: Double(format.chromaSubsamplingY))
        let siting = format.color.chromaSiting.chromaOffset
        var descriptor = SourceDescriptor()
        descriptor.byteOffset = UInt32(sourceBytes)
        descriptor.planeLayout = switch format.layout {
        case .planar: 0
        case .semiPlanar: 1
        case .gray: 2
        }
        descriptor.bytesPerSample = UInt32(format.bytesPerSample)
        descriptor.lumaOffset = UInt32(planes[0].byteOffset)
        descriptor.lumaStride = UInt32(planes[0].bytesPerRow)
        descriptor.lumaWidth = UInt32(format.width)
        descriptor.lumaHeight = UInt32(format.height)
        if planes.count > 1 {
            descriptor.cbOffset = UInt32(planes[1].byteOffset)
            descriptor.crOffset = UInt32(planes[planes.count - 1].byteOffset)
            descriptor.chromaStride = UInt32(planes[1].bytesPerRow)
            descriptor.chromaWidth = UInt32(format.chromaWidth)
            descriptor.chromaHeight = UInt32(format.chromaHeight)
        }
        descriptor.chromaScaleX = Float(1 / subsampling.x)
        descriptor.chromaScaleY = Float(1 / subsampling.y)
        descriptor.chromaOffsetX = Float(format.chromaSubsamplingX == 2 ? siting.x : 0)
        descriptor.chromaOffsetY = Float(format.chromaSubsamplingY == 2 ? siting.y : 0)
        descriptor.matrix = ColorTransform(format: format).shaderMatrix
        let output = OutputConversion(color: format.color)
        descriptor.transfer = output.transferCode
        descriptor.convertsColor = output.isNeeded ? 1 : 0
        descriptor.toneMapPeak = Float(output.toneMapPeak)
        descriptor.gamut = output.shaderGamut
        sources.append(descriptor)
        sourceOffsets.append(sourceBytes)
        sourceBytes += (format.byteCount + 15) & ~15
    }

    private mutating func addCanvas(_ canvas: CanvasSpec, index: Int, alignmentPixels: Int, windowPixels: Int) {
        canvasPixels = (canvasPixels + alignmentPixels - 1) / alignmentPixels * alignmentPixels
        var descriptor = CanvasDescriptor(pixelOffset: UInt32(canvasPixels), width: UInt32(canvas.size.width),
                                          height: UInt32(canvas.size.height), background: canvas.background.packed,
                                          overlayCount: UInt32(canvas.overlays.count),
                                          canvasHeight: UInt32(canvas.size.height))
        for (slot, overlay) in canvas.overlays.enumerated() { descriptor.overlays[slot] = OverlayPass.descriptor(overlay) }
        canvases.append(descriptor)
        let rows = Self.windowRows(of: canvas.size, alignmentPixels: alignmentPixels, windowPixels: windowPixels)
        let firstWindow = windows.count
        for firstRow in stride(from: 0, to: canvas.size.height, by: rows) {
            var window = descriptor
            window.pixelOffset += UInt32(firstRow * canvas.size.width)
            window.firstRow = UInt32(firstRow)
            window.height = UInt32(min(rows, canvas.size.height - firstRow))
            windows.append(window)
            largestWindowPixels = max(largestWindowPixels, canvas.size.width * Int(window.height))
        }
        windowsOfCanvas.append(firstWindow..<windows.count)
        canvasPixels += canvas.size.area
    }

    /// Rows of each window of a canvas of `size`: all of them where the canvas fits `windowPixels`, else the most
    /// that do and keep the next window's first pixel on the binding alignment (at least that many rows: a
    /// window still too large is then refused with the device's limit).
    static func windowRows(of size: PixelSize, alignmentPixels: Int, windowPixels: Int) -> Int {
        guard size.area > windowPixels else { return size.height }
        func gcd(_ a: Int, _ b: Int) -> Int { b == 0 ? a : gcd(b, a % b) }
        let step = alignmentPixels / gcd(size.width, alignmentPixels)
        return max(windowPixels / size.width / step, 1) * step
    }

    /// `job` once for each window of its canvas that its rows reach, placed relative to the window's first row.
    private func inWindows(_ job: ResampleJob) -> [ResampleJob] {
        let candidates = windowsOfCanvas[Int(job.canvasIndex)]
        let top = Int(job.destinationY)
        // Quarter turns show the coded width as the height (see displayPosition in resample_vertical.comp).
        let rows = top..<top + Int(job.transform & 1 == 1 ? job.width : job.height)
        return candidates.compactMap { index in
            guard candidates.count == 1 || windows[index].rows.overlaps(rows) else { return nil }
            var placed = job
            placed.canvasIndex = UInt32(index)
            placed.destinationY -= Int32(windows[index].firstRow)
            return placed
        }
    }

    /// Runs of rows of a canvas of `size` that the `drawn` rects (clipped to it) do not cover from edge to
    /// edge: those are filled with the background, the rest the resampling passes write whole.
    static func rowsNotDrawnAcross(_ size: PixelSize, by drawn: [PixelRect]) -> [Range<Int>] {
        let rects = drawn.map { $0.intersection(PixelRect(size: size)) }.filter { !$0.isEmpty }
        let edges = Set([0, size.height] + rects.flatMap { [$0.y, $0.maxY] }).sorted()
        var runs: [Range<Int>] = []
        for (top, bottom) in zip(edges, edges.dropFirst()) {
            // The band's rects as column spans, merged left to right: covered when they reach the right edge.
            var reach = 0
            for rect in rects.filter({ $0.y <= top && $0.maxY >= bottom }).sorted(by: { $0.x < $1.x }) {
                guard rect.x <= reach else { break }
                reach = max(reach, rect.maxX)
            }
            guard reach < size.width else { continue }
            if let last = runs.last, last.upperBound == top {
                runs[runs.count - 1] = last.lowerBound..<bottom
            } else {
                runs.append(top..<bottom)
            }
        }
        return runs
    }

    // MARK: - Jobs

    /// One axis of a job in one plane's pixels: the crop's continuous start and length, and the pixels it touches.
    private struct PlaneAxis {
        var start: Double
        var length: Double
        var first: Int
        var last: Int

        init(cropStart: Double, cropLength: Double, subsampling: Int, sitingOffset: Double, planeSize: Int) {
            let factor = Double(subsampling)
            start = cropStart / factor + (subsampling == 2 ? sitingOffset : 0)
            length = cropLength / factor
            // A crop edge within a millionth of a pixel boundary is on it: padding must not leak in by rounding.
            first = min(max(Int((cropStart / factor + 1e-6).rounded(.down)), 0), planeSize - 1)
            last = min(max(Int(((cropStart + cropLength) / factor - 1e-6).rounded(.up)) - 1, first), planeSize - 1)
        }
    }

    /// The job as the passes run it: one `ResampleJob`, or several bands of it where its intermediate alone
    /// passes the budget (`bands`).
    private mutating func planJob(_ job: RenderJob, format: FrameFormat, filter: ResamplingFilter, linearLight: Bool,
                                  filterTables: FilterTableCache, intermediateBudget: Int) -> [ResampleJob] {
        let crop = job.sourceCrop
        // Filtering happens in coded orientation; the vertical pass turns each pixel into place.
        let destination = job.transform.swapsAxes ? job.destination.size.transposed : job.destination.size
        var planned = ResampleJob(sourceIndex: UInt32(job.sourceIndex), canvasIndex: UInt32(job.canvasIndex),
                                  destinationX: Int32(job.destination.x), destinationY: Int32(job.destination.y),
                                  width: UInt32(destination.width), height: UInt32(destination.height),
                                  transform: UInt32(job.transform.rotation / 90) | (job.transform.mirrored ? 4 : 0),
                                  intermediateStride: UInt32((destination.width + 3) & ~3))
        let lumaX = PlaneAxis(cropStart: crop.x, cropLength: crop.width, subsampling: 1, sitingOffset: 0,
                              planeSize: format.width)
        let lumaY = PlaneAxis(cropStart: crop.y, cropLength: crop.height, subsampling: 1, sitingOffset: 0,
                              planeSize: format.height)
        let luma = planGroup(source: job.sourceIndex, group: 0, axes: (lumaX, lumaY),
                             planeSize: (format.width, format.height), planeCount: linearLight ? 3 : 1,
                             destination: destination, filter: filter, filterTables: filterTables)
        planned.luma = luma.pass
        var verticals = [luma.vertical]
        if format.layout != .gray && !linearLight {
            let siting = format.color.chromaSiting.chromaOffset
            let chromaX = PlaneAxis(cropStart: crop.x, cropLength: crop.width, subsampling: format.chromaSubsamplingX,
                                    sitingOffset: siting.x, planeSize: format.chromaWidth)
            let chromaY = PlaneAxis(cropStart: crop.y, cropLength: crop.height,
                                    subsampling: format.chromaSubsamplingY, sitingOffset: siting.y,
                                    planeSize: format.chromaHeight)
            let chroma = planGroup(source: job.sourceIndex, group: 1, axes: (chromaX, chromaY),
                                   planeSize: (format.chromaWidth, format.chromaHeight), planeCount: 2,
                                   destination: destination, filter: filter, filterTables: filterTables)
            planned.chroma = chroma.pass
            verticals.append(chroma.vertical)
        }
        return bands(of: planned, verticals: verticals, budget: intermediateBudget, filterTables: filterTables)
    }

    /// A job whose intermediate alone passes the budget (a full-size poster of a 6K or 8K frame: 8 bytes a
    /// pixel, over the 128 MiB lavapipe binds at once) as bands of destination rows, each filtering only the image
    /// rows its own rows read, with the job's weights (so the result is the job's), placed where its rows land
    /// under the display transform. The fewest bands (whole groups of rows) whose intermediates fit.
    private mutating func bands(of job: ResampleJob, verticals: [AxisMapping], budget: Int,
                                filterTables: FilterTableCache) -> [ResampleJob] {
        let total = Self.intermediateFloats(of: job), height = Int(job.height), group = FilterTable.groupSize
        guard total > budget, height > group else { return [job] }
        var count = total / budget + 1
        while true {
            let rows = ((height + count - 1) / count + group - 1) / group * group
            let spans = stride(from: 0, to: height, by: rows).map { first in
                verticals.map { Self.bandSpan(of: $0, rows: first..<min(first + rows, height), cache: filterTables) }
            }
            let fits = spans.allSatisfy { groups in
                zip([job.luma, job.chroma], groups).reduce(0) { $0 + Int($1.0.planeCount) * $1.1.rowCount }
                    * Int(job.intermediateStride) <= budget
            }
            guard fits || rows == group else { count += 1; continue }
            return spans.enumerated().map { index, groups in
                let first = index * rows, last = min(first + rows, height)
                var band = job
                band.height = UInt32(last - first)
                switch job.transform & 3 {  // see displayPosition in Shaders/resample_vertical.comp
                case 0: band.destinationY += Int32(first)
                case 1: band.destinationX += Int32(height - last)
                case 2: band.destinationY += Int32(height - last)
                default: band.destinationX += Int32(first)
                }
                for (keyPath, span) in zip([\ResampleJob.luma, \ResampleJob.chroma], groups) {
                    let table = filterTable(span.mapping, cache: filterTables)
                    band[keyPath: keyPath].rowStart += UInt32(span.firstRow)
                    band[keyPath: keyPath].rowCount = UInt32(span.rowCount)
                    band[keyPath: keyPath].verticalTable = UInt32(table.offset)
                    band[keyPath: keyPath].verticalTaps = UInt32(table.taps)
                }
                return band
            }
        }
    }

    /// What destination rows `rows` of a job read along its vertical axis `vertical`: the axis for those rows
    /// alone, counted from the first intermediate row they read (`firstRow`, from the job's), and how many rows
    /// from there they read.
    private static func bandSpan(of vertical: AxisMapping, rows: Range<Int>,
                                 cache: FilterTableCache) -> (mapping: AxisMapping, firstRow: Int, rowCount: Int) {
        func mapping(from firstRow: Int) -> AxisMapping {
            var band = vertical
            band.start += Double(rows.lowerBound) * vertical.ratio - Double(firstRow)
            band.length = vertical.ratio * Double(rows.count)
            band.outputCount = rows.count
            // No window of these rows starts above `firstRow` but by a rounding of the shifted centres, whose
            // tap at the kernel's edge weighs nothing: folding it onto the first row keeps every start in range.
            band.first = max(vertical.first - firstRow, 0)
            band.last -= firstRow
            return band
        }
        let firstRow = cache.table(for: mapping(from: 0)).groupStarts.min() ?? 0
        let table = cache.table(for: mapping(from: firstRow))
        return (mapping(from: firstRow), firstRow, (table.groupStarts.max() ?? 0) + table.taps)
    }

    /// Chooses the group's prefilter image (shared per source when unshrunk) and its two filter tables; returns
    /// the vertical one's mapping too, for `bands`.
    private mutating func planGroup(source: Int, group: Int, axes: (x: PlaneAxis, y: PlaneAxis),
                                    planeSize: (width: Int, height: Int), planeCount: Int, destination: PixelSize,
                                    filter: ResamplingFilter,
                                    filterTables: FilterTableCache) -> (pass: PlaneGroupPass, vertical: AxisMapping) {
        let (x, y) = axes
        let shrinkX = PrefilterPass.shrinkFactor(ratio: x.length / Double(destination.width))
        let shrinkY = PrefilterPass.shrinkFactor(ratio: y.length / Double(destination.height))
        let imageIndex: Int
        let origin: (x: Int, y: Int)
        if shrinkX == 1 && shrinkY == 1 {
            origin = (0, 0)
            let key = source * 2 + group
            if let shared = sharedImages[key] {
                imageIndex = shared
            } else {
                imageIndex = addImage(PrefilterImage(
                    sourceIndex: UInt32(source), planeGroup: UInt32(group), originX: 0, originY: 0,
                    lastX: Int32(planeSize.width - 1), lastY: Int32(planeSize.height - 1), shrinkX: 1, shrinkY: 1,
                    width: UInt32(planeSize.width), height: UInt32(planeSize.height), planeCount: UInt32(planeCount)))
                sharedImages[key] = imageIndex
            }
        } else {
            origin = (x.first, y.first)
            imageIndex = addImage(PrefilterImage(
                sourceIndex: UInt32(source), planeGroup: UInt32(group), originX: Int32(x.first),
                originY: Int32(y.first), lastX: Int32(x.last), lastY: Int32(y.last), shrinkX: UInt32(shrinkX),
                shrinkY: UInt32(shrinkY), width: UInt32((x.last - x.first) / shrinkX + 1),
                height: UInt32((y.last - y.first) / shrinkY + 1), planeCount: UInt32(planeCount)))
        }
        let rowFirst = (y.first - origin.y) / shrinkY
        let rowLast = (y.last - origin.y) / shrinkY
        let horizontal = filterTable(AxisMapping(
            filter: filter, start: (x.start - Double(origin.x)) / Double(shrinkX),
            length: x.length / Double(shrinkX), outputCount: destination.width,
            first: (x.first - origin.x) / shrinkX, last: (x.last - origin.x) / shrinkX, boxShrink: shrinkX,
            pixelsPerTap: 4), cache: filterTables)
        let verticalMapping = AxisMapping(
            filter: filter, start: (y.start - Double(origin.y)) / Double(shrinkY) - Double(rowFirst),
            length: y.length / Double(shrinkY), outputCount: destination.height,
            first: 0, last: rowLast - rowFirst, boxShrink: shrinkY)
        let vertical = filterTable(verticalMapping, cache: filterTables)
        let pass = PlaneGroupPass(planeCount: UInt32(planeCount), imageIndex: UInt32(imageIndex),
                                  rowStart: UInt32(rowFirst), rowCount: UInt32(rowLast - rowFirst + 1),
                                  horizontalTable: UInt32(horizontal.offset), horizontalTaps: UInt32(horizontal.taps),
                                  verticalTable: UInt32(vertical.offset), verticalTaps: UInt32(vertical.taps))
        return (pass, verticalMapping)
    }

    private mutating func addImage(_ image: PrefilterImage) -> Int {
        var image = image
        image.outputOffset = UInt32(planeFloats)
        // Rows padded to quads for the horizontal pass's four-pixel fetches; the prefilter zeroes the padding.
        image.stride = (image.width + 3) & ~3
        let source = sources[Int(image.sourceIndex)]
        let interleaved = image.planeGroup == 1 && source.planeLayout == 1
        // An invocation's words span all of its boxes.
        let boxes = PrefilterPass.boxesPerInvocation(planeCount: Int(image.planeCount))
        image.wordsPerRow = UInt32(PrefilterPass.wordsPerRow(
            originX: Int(image.originX), shrinkX: Int(image.shrinkX) * boxes,
            elementBytes: Int(source.bytesPerSample) * (interleaved ? 2 : 1)))
        planeFloats += Int(image.planeCount * image.stride * image.height)
        images.append(image)
        return images.count - 1
    }

    /// The table's word offset in this batch's filter table; identical mappings (every thumbnail of a sheet)
    /// share one copy. Tables are whole quads, so each starts on a quad as the shaders' quad fetches need.
    private mutating func filterTable(_ mapping: AxisMapping, cache: FilterTableCache) -> (offset: Int, taps: Int) {
        if let known = tableOffsets[mapping] { return known }
        let table = cache.table(for: mapping)
        let entry = (offset: filterWords.count, taps: table.taps)
        filterWords += table.words
        tableOffsets[mapping] = entry
        return entry
    }

    private static func intermediateFloats(of job: ResampleJob) -> Int {
        [job.luma, job.chroma].reduce(0) { $0 + Int($1.planeCount * $1.rowCount * job.intermediateStride) }
    }

    /// Groups consecutive jobs so each chunk's intermediates fit `budget` floats, and lays them out.
    private mutating func assignChunks(budget: Int) {
        var start = 0
        while start < jobs.count {
            var end = start
            var used = 0
            while end < jobs.count {
                let size = Self.intermediateFloats(of: jobs[end])
                if end > start && used + size > budget { break }
                jobs[end].luma.intermediateOffset = UInt32(used)
                jobs[end].chroma.intermediateOffset = UInt32(used + Int(jobs[end].luma.planeCount
                    * jobs[end].luma.rowCount * jobs[end].intermediateStride))
                used += size
                end += 1
            }
            intermediateFloats = max(intermediateFloats, used)
            chunks.append(JobChunk(jobs: start..<end))
            start = end
        }
    }

    // MARK: - Validation

    static func validate(_ batch: RenderBatch) throws {
        func fail(_ message: String) -> GPUError { .invalidBatch(message) }
        for (index, source) in batch.sources.enumerated() {
            let format = source.format
            guard format.width > 0, format.height > 0, [1, 2].contains(format.bytesPerSample),
                  [1, 2].contains(format.chromaSubsamplingX), [1, 2].contains(format.chromaSubsamplingY),
                  format.bitDepth >= 8, format.bitDepth + format.bitShift <= 8 * format.bytesPerSample
            else { throw fail("source \(index) has an unsupported format \(format)") }
        }
        for (index, canvas) in batch.canvases.enumerated() {
            guard canvas.size.width > 0, canvas.size.height > 0 else { throw fail("canvas \(index) is empty (\(canvas.size))") }
            guard canvas.overlays.count <= CanvasDescriptor.maxOverlays else {
                throw fail("canvas \(index) has \(canvas.overlays.count) overlays, more than \(CanvasDescriptor.maxOverlays)")
            }
        }
        for (index, job) in batch.jobs.enumerated() {
            guard batch.sources.indices.contains(job.sourceIndex) else {
                throw fail("job \(index) names source \(job.sourceIndex) of \(batch.sources.count)")
            }
            guard batch.canvases.indices.contains(job.canvasIndex) else {
                throw fail("job \(index) names canvas \(job.canvasIndex) of \(batch.canvases.count)")
            }
            guard !job.destination.isEmpty else { throw fail("job \(index) has an empty destination") }
            let crop = job.sourceCrop
            let format = batch.sources[job.sourceIndex].format
            let tolerance = 1e-6
            guard crop.width > 0, crop.height > 0, crop.x >= -tolerance, crop.y >= -tolerance,
                  crop.maxX <= Double(format.width) + tolerance, crop.maxY <= Double(format.height) + tolerance
            else { throw fail("job \(index) crop \(crop) is empty or outside the \(format.width)x\(format.height) source") }
        }
    }
}
