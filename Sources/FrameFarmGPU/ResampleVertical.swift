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

    static func addWork(for jobs: Range<Int>, of table: [ResampleJob], to builder: inout WorkListBuilder)
        -> PassWork {
        for index in jobs {
            builder.add(item: index, extent: (Int(table[index].width), Int(table[index].height)), tileSize: tileSize)
        }
        return builder.finish()
    }

    func dispatch(_ work: PassWork) -> ComputeDispatch { ComputeDispatch(pipeline: pipeline, work: work) }
}
