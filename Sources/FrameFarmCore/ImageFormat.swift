/// Still-image file formats FrameFarm writes (sprite sheets, previews, posters).
public enum ImageFormat: String, Codable, Sendable, CaseIterable {
    case jpeg, png, webp

    public var fileExtension: String { self == .jpeg ? "jpg" : rawValue }
    public var mimeType: String { "image/\(rawValue)" }
}
