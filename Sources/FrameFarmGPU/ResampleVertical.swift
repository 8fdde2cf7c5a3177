/// Drives Shaders/resample_vertical.comp: every job's destination pixels, filtered vertically, converted to
/// R'G'B' (or re-encoded from linear light) and written into the canvases; each invocation does a block of
/// `columnsPerInvocation` x `FilterTable.groupSize` pixels, so each quad it fetches serves several.
struct ResampleVerticalPass {
    /// Pixels per workgroup: 16 x 4 invocations.
    static let tileSize = (width: 64, height: 4 * FilterTable.groupSize)
    /// Must match COLUMNS in Shaders/resample_vertical.comp.
    static let columnsPerInvocation = 4

    let pipeline: ComputePipeline

    init(layout: PipelineLayout, linearLight: Bool, convertsColor: Bool) throws {
        pipeline = try ComputePipeline(layout: layout, shader: ShaderLibrary.resample_vertical, specialization: [
            UInt32(Self.tileSize.width / Self.columnsPerInvocation),
            UInt32(Self.tileSize.height / FilterTable.groupSize), linearLight ? 1 : 0, convertsColor ? 1 : 0,
        ])
    }

    /// One dispatch per job of `jobs` (indices into the batch's job table).
    func dispatches(for jobs: Range<Int>, of table: [ResampleJob], windows: [CanvasDescriptor]) -> [ComputeDispatch] {
        jobs.map { index in
            let job = table[index]
            return ComputeDispatch(pipeline: pipeline,
                                   constants: PassConstants(job: UInt32(index), source: job.sourceIndex,
                                                            canvas: job.canvasIndex),
                                   extent: (Int(job.width), Int(job.height)), tileSize: Self.tileSize,
                                   canvasWindow: Int(windows[Int(job.canvasIndex)].pixelOffset) * 4)
        }
    }
}
