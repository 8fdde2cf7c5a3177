/// FrameFarm's version, for `framefarm --version` (with the libraries it runs with) and bug reports.
public enum FrameFarmVersion {
    /// The one place the version is written.
    public static let current = "0.20.0"
}
