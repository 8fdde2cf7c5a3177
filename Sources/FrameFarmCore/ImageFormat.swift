/// Still-image file formats FrameFarm writes (sprite sheets, previews, posters).
public enum ImageFormat: String, Codable, Sendable, CaseIterable {
    case jpeg, png

    public var fileExtension: String { self == .jpeg ? "jpg" : "png" }
    public var mimeType: String { "image/\(rawValue)" }
}
