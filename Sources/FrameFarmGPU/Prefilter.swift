/// Drives Shaders/prefilter.comp: turns each source plane group into a float image, box-shrunk by an integer
/// factor when a job reduces by 4x or more (the windowed filter after it then reduces by 2x to 4x; the box's
/// blur is undone in its weights, see `FilterTable`), else just unpacked and shared by every job of the source.
struct PrefilterPass {
    static let tileSize = (width: 64, height: 4)
    /// Jobs reducing by at least this much along an axis get a box pre-shrink along it.
    static let shrinkThreshold = 2 * reductionGap
    /// Box sums are 32-bit integers in the shader: 64 x 64 samples of 65535 still fit.
    static let maxShrink = 64
    /// The least reduction left to the windowed filter after a box pre-shrink.
    static let reductionGap = 2.0

    let pipeline: ComputePipeline

    init(layout: PipelineLayout, linearLight: Bool, convertsColor: Bool) throws {
        pipeline = try ComputePipeline(layout: layout, shader: ShaderLibrary.prefilter, specialization: [
            UInt32(Self.tileSize.width), UInt32(Self.tileSize.height), linearLight ? 1 : 0, convertsColor ? 1 : 0,
        ])
    }

    /// Boxes each invocation sums, side by side: two, fetching each word of the pair once (a pair of 3-sample
    /// chroma boxes spans 2 words, as each box alone does; a 1080p frame to 160 px takes a tenth fewer
    /// instructions), except in linear light (3 planes), whose boxes are summed sample by sample.
    static func boxesPerInvocation(planeCount: Int) -> Int { planeCount == 3 ? 1 : 2 }

    /// The box size for an axis reducing by `ratio` plane pixels per destination pixel: the largest integer that
    /// leaves the windowed filter a reduction of at least `reductionGap` (libvips' shrink-then-reduce).
    static func shrinkFactor(ratio: Double) -> Int {
        ratio >= shrinkThreshold ? min(Int(ratio / reductionGap), maxShrink) : 1
    }

    /// The most 4-byte words one box's row of samples can touch. Box b's row starts at byte
    /// (originX + b * shrinkX) * elementBytes: its offset within a word takes the values r, r + g, ... below 4,
    /// with g = gcd(box bytes, 4) and r the origin's offset mod g. Fetching no more than the worst case needs
    /// matters on CPU drivers, where each fetch is a gather.
    static func wordsPerRow(originX: Int, shrinkX: Int, elementBytes: Int) -> Int {
        let boxBytes = shrinkX * elementBytes
        let step = gcd(boxBytes, 4)
        let worstOffset = (originX * elementBytes) % step + 4 - step
        return (worstOffset + boxBytes + 3) / 4
    }

    private static func gcd(_ a: Int, _ b: Int) -> Int { b == 0 ? a : gcd(b, a % b) }

    /// One dispatch per image, over its rows padded to quads (the padding is written as zeros), in pairs of boxes.
    func dispatches(for images: [PrefilterImage]) -> [ComputeDispatch] {
        images.enumerated().map { index, image in
            let boxes = Self.boxesPerInvocation(planeCount: Int(image.planeCount))
            return ComputeDispatch(pipeline: pipeline,
                                   constants: PassConstants(image: UInt32(index), source: image.sourceIndex),
                                   extent: ((Int(image.stride) + boxes - 1) / boxes, Int(image.height)),
                                   tileSize: Self.tileSize)
        }
    }
}
