/// How frames are scaled (`--filter`, `--linear-light`): chosen per run and recorded in every manifest's
/// settings (`filter`, `linearLight`), so a re-run with other choices redoes the outputs.
public struct Resampling: Sendable, Equatable {
    public var filter = ResamplingFilter.lanczos3
    /// Filter light (decode the transfer, filter, re-encode) rather than the encoded values: fine bright detail
    /// on dark keeps its brightness when shrunk, at some cost in speed.
    public var linearLight = false

    public init(filter: ResamplingFilter = .lanczos3, linearLight: Bool = false) {
        self.filter = filter
        self.linearLight = linearLight
    }
}

/// The kernel of the separable resampler; its support widens with the reduction factor, so downscaling does not
/// alias.
public enum ResamplingFilter: String, Sendable, CaseIterable {
    /// Windowed sinc, 3 lobes: sharpest, the default.
    case lanczos3
    /// The cubic with B = 0, C = 0.5: a little softer, with less ringing at hard edges.
    case catmullRom = "catmull-rom"
    /// Triangle: softest.
    case bilinear
}
