import FrameFarmMedia

/// Options of `framefarm sample` (see SampleOptions in the media layer).
public typealias SampleOptions = FrameFarmMedia.SampleOptions

/// `framefarm sample`: a synthetic test video with a clock and a machine-readable frame number in every frame.
public enum SampleMaker {
    public static func make(path: String, options: SampleOptions, progress: ((Double) -> Void)? = nil) throws {
        do {
            try SampleVideoWriter.write(to: path, options: options, progress: progress)
        } catch {
            throw InputFailure(path: path, error: error)
        }
    }
}
