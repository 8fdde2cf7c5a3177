/// Drives Shaders/resample_vertical.comp: every job's destination pixels, filtered vertically, converted to
/// R'G'B' (or re-encoded from linear light) and written into the canvases.
struct ResampleVerticalPass {
    static let tileSize = (width: 64, height: 4)

    let pipeline: ComputePipeline

    init(layout: PipelineLayout, linearLight: Bool) throws {
        pipeline = try ComputePipeline(layout: layout, shader: ShaderLibrary.resample_vertical, specialization: [
            UInt32(Self.tileSize.width), UInt32(Self.tileSize.height), linearLight ? 1 : 0,
        ])
    }

    /// One dispatch per job of `jobs` (indices into the batch's job table).
    func dispatches(for jobs: Range<Int>, of table: [ResampleJob]) -> [ComputeDispatch] {
        jobs.map { index in
            let job = table[index]
            return ComputeDispatch(pipeline: pipeline,
                                   constants: PassConstants(job: UInt32(index), source: job.sourceIndex,
                                                            canvas: job.canvasIndex),
                                   extent: (Int(job.width), Int(job.height)), tileSize: Self.tileSize)
        }
    }
}
