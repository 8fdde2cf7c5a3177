/// Drives Shaders/resample_horizontal.comp: every job's plane groups filtered to the destination width, one
/// invocation per destination column and `rowsPerInvocation` image rows.
struct ResampleHorizontalPass {
    static let workgroupWidth = 64
    /// Must match ROWS in Shaders/resample_horizontal.comp.
    static let rowsPerInvocation = 4

    let pipeline: ComputePipeline

    init(layout: PipelineLayout) throws {
        pipeline = try ComputePipeline(layout: layout, shader: ShaderLibrary.resample_horizontal,
                                       specialization: [UInt32(Self.workgroupWidth)])
    }

    /// Work for `jobs` (indices into the batch's job table): item = job * 2 + plane group.
    static func addWork(for jobs: Range<Int>, of table: [ResampleJob], to builder: inout WorkListBuilder)
        -> PassWork {
        for index in jobs {
            let job = table[index]
            for (group, pass) in [job.luma, job.chroma].enumerated() where pass.planeCount > 0 {
                builder.add(item: index * 2 + group, extent: (Int(job.width), Int(pass.rowCount)),
                            tileSize: (workgroupWidth, rowsPerInvocation))
            }
        }
        return builder.finish()
    }

    func dispatch(_ work: PassWork) -> ComputeDispatch { ComputeDispatch(pipeline: pipeline, work: work) }
}
