/// Still-image file formats FrameFarm writes (sprite sheets, previews, posters).
public enum ImageFormat: String, Codable, Sendable, CaseIterable {
    case jpeg, png, webp

    public var fileExtension: String { self == .jpeg ? "jpg" : rawValue }
    public var mimeType: String { "image/\(rawValue)" }
    /// The longest side the format holds: libjpeg-turbo's `JPEG_MAX_DIMENSION`, WebP's 14-bit sizes, PNG's 31-bit.
    public var maxSide: Int {
        switch self {
        case .jpeg: 65500
        case .webp: 16383
        case .png: Int(Int32.max)
        }
    }
}
