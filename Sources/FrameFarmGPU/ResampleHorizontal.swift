/// Drives Shaders/resample_horizontal.comp: every job's plane groups filtered to the destination width, one
/// invocation per `FilterTable.groupSize` adjacent destination columns and `rowsPerInvocation` image rows.
struct ResampleHorizontalPass {
    static let workgroupWidth = 64
    /// The shader's ROWS (a specialization constant): each weight fetch is shared across ROWS rows, each of which
    /// keeps its sums in registers. With one column per invocation, 1, 2 and 4 took more instructions on lavapipe.
    /// With four columns, 4 rows took 13-15% less time than 8 on the preview's renders and the device screens and
    /// 5% less on a 100-tile sheet (session 17's machine; an earlier one found them equal); 2 rows, and 8 columns
    /// by 2 or 4 rows, were slower on thumbnails or on renders.
    static let rowsPerInvocation = 4

    let pipeline: ComputePipeline

    init(layout: PipelineLayout) throws {
        pipeline = try ComputePipeline(layout: layout, shader: ShaderLibrary.resample_horizontal,
                                       specialization: [UInt32(Self.workgroupWidth), UInt32(Self.rowsPerInvocation)])
    }

    /// One dispatch per plane group of each of `jobs` (indices into the batch's job table).
    func dispatches(for jobs: Range<Int>, of table: [ResampleJob]) -> [ComputeDispatch] {
        jobs.flatMap { index in
            let job = table[index]
            return [job.luma, job.chroma].enumerated().filter { $0.element.planeCount > 0 }.map { group, pass in
                ComputeDispatch(pipeline: pipeline,
                                constants: PassConstants(job: UInt32(index), group: UInt32(group), image: pass.imageIndex),
                                extent: ((Int(job.width) + FilterTable.groupSize - 1) / FilterTable.groupSize,
                                         Int(pass.rowCount)),
                                tileSize: (Self.workgroupWidth, Self.rowsPerInvocation))
            }
        }
    }
}
