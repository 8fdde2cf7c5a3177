/// Drives Shaders/prefilter.comp: turns each source plane group into a float image, box-shrunk by an integer
/// factor when a job reduces by 6x or more (so the windowed filter after it reduces by 3x to 6x), else unpacked.
struct PrefilterPass {
    static let tileSize = (width: 64, height: 4)
    /// Jobs reducing by at least this much along an axis get a box pre-shrink along it.
    static let shrinkThreshold = 2 * reductionGap
    /// The least reduction left to the windowed filter after a box pre-shrink.
    static let reductionGap = 2.0

    let pipeline: ComputePipeline

    init(layout: PipelineLayout, linearLight: Bool) throws {
        pipeline = try ComputePipeline(layout: layout, shader: ShaderLibrary.prefilter, specialization: [
            UInt32(Self.tileSize.width), UInt32(Self.tileSize.height), linearLight ? 1 : 0,
        ])
    }

    /// The box size for an axis reducing by `ratio` plane pixels per destination pixel: the largest integer that
    /// leaves the windowed filter a reduction of at least 3x (libvips' shrink-then-reduce with a gap of 3).
    static func shrinkFactor(ratio: Double) -> Int {
        ratio >= shrinkThreshold ? Int(ratio / reductionGap) : 1
    }

    /// One dispatch per image.
    func dispatches(for images: [PrefilterImage]) -> [ComputeDispatch] {
        images.enumerated().map { index, image in
            ComputeDispatch(pipeline: pipeline,
                            constants: PassConstants(image: UInt32(index), source: image.sourceIndex),
                            extent: (Int(image.width), Int(image.height)), tileSize: Self.tileSize)
        }
    }
}
