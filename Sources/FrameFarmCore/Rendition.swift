/// `--rendition`: which rendition of a multivariant HLS playlist or a DASH manifest a job reads. Inputs with one
/// rendition ignore it.
public enum RenditionChoice: Sendable, Hashable, CustomStringConvertible {
    /// The smallest rendition whose picture is large enough for the outputs (`RenditionRequest.minimumWidth`).
    case auto
    case highest
    case lowest
    /// The rendition of this size.
    case size(PixelSize)
    /// The rendition at this position in the playlist, from 0.
    case index(Int)

    /// Parses `auto`, `highest`, `lowest`, `WIDTHxHEIGHT` or an index from 0.
    public init(parsing text: String) throws(ValueParseError) {
        switch text {
        case "auto": self = .auto
        case "highest": self = .highest
        case "lowest": self = .lowest
        default:
            if let index = Int(text), index >= 0 {
                self = .index(index)
                return
            }
            let parts = text.split(separator: "x").compactMap { Int($0) }
            guard parts.count == 2, parts.allSatisfy({ $0 > 0 }) else {
                throw ValueParseError(kind: "rendition", value: text, expected: "auto, highest, lowest, WIDTHxHEIGHT or an index from 0")
            }
            self = .size(PixelSize(width: parts[0], height: parts[1]))
        }
    }

    public var description: String {
        switch self {
        case .auto: "auto"
        case .highest: "highest"
        case .lowest: "lowest"
        case .size(let size): "\(size.width)x\(size.height)"
        case .index(let index): "\(index)"
        }
    }
}

/// What a batch asks of a multivariant input: the choice, and for `auto` the narrowest picture its outputs need.
public struct RenditionRequest: Sendable, Hashable {
    public var choice: RenditionChoice
    /// For `auto`: the least picture width the outputs need (thumbnails: twice their width); nil asks for the top
    /// rendition (a full-size poster, a preview for the largest screens).
    public var minimumWidth: Int?
    /// Why `minimumWidth` is what it is, for the manifest ("thumbnails 160 px wide, twice over").
    public var purpose: String

    public init(choice: RenditionChoice, minimumWidth: Int? = nil, purpose: String = "") {
        self.choice = choice
        self.minimumWidth = minimumWidth
        self.purpose = purpose
    }

    /// `pick` among the renditions read, where `leftOut` says why each of the others was left out of the ladder (an
    /// HLS rendition, a DASH representation that cannot be read): the reason says how many were (an index counts
    /// those read), and a request no rendition answers names them, as the one asked for may be among them.
    public func pick(_ candidates: [Rendition.Candidate], leftOut: [String]) throws(RenditionError) -> (index: Int, reason: String) {
        guard !leftOut.isEmpty else { return try pick(candidates) }
        do {
            let choice = try pick(candidates)
            return (choice.index, choice.reason + " (of the \(candidates.count) renditions read, \(leftOut.count) left out)")
        } catch {
            throw RenditionError(description: error.description + "; left out of the ladder, as players leave them: "
                                 + leftOut.joined(separator: "; "))
        }
    }

    /// The rendition `request` picks among `candidates` (in playlist order), and why; the reason goes into the
    /// manifest. Throws when a size or index names no rendition, listing those there are.
    public func pick(_ candidates: [Rendition.Candidate]) throws(RenditionError) -> (index: Int, reason: String) {
        precondition(!candidates.isEmpty)
        let byArea = candidates.indices.sorted {
            (candidates[$0].width * candidates[$0].height, candidates[$0].bandwidth ?? 0)
                < (candidates[$1].width * candidates[$1].height, candidates[$1].bandwidth ?? 0)
        }
        let listed = candidates.enumerated().map { "\($0.offset): \($0.element.width)x\($0.element.height)" }.joined(separator: ", ")
        switch choice {
        case .highest: return (byArea.last!, "highest: the largest picture")
        case .lowest: return (byArea.first!, "lowest: the smallest picture")
        case .index(let index):
            guard candidates.indices.contains(index) else {
                throw RenditionError(description: "no rendition \(index) (the input has \(listed))")
            }
            return (index, "--rendition \(index)")
        case .size(let size):
            guard let index = candidates.firstIndex(where: { $0.width == size.width && $0.height == size.height }) else {
                throw RenditionError(description: "no \(size.width)x\(size.height) rendition (the input has \(listed))")
            }
            return (index, "--rendition \(size.width)x\(size.height)")
        case .auto:
            guard let minimumWidth else { return (byArea.last!, "auto: the largest picture, for \(purpose)") }
            if let index = byArea.first(where: { candidates[$0].width >= minimumWidth }) {
                return (index, "auto: the smallest at least \(minimumWidth) px wide, for \(purpose)")
            }
            return (byArea.last!, "auto: none is \(minimumWidth) px wide (for \(purpose)), so the largest")
        }
    }
}

/// The rendition of a multivariant input a job read: `probe.rendition` in manifest.json.
public struct Rendition: Codable, Sendable, Equatable {
    /// One rendition as the playlist lists it.
    public struct Candidate: Sendable, Equatable {
        public var width: Int
        public var height: Int
        /// The variant's declared bits per second (HLS `BANDWIDTH`, DASH `bandwidth`).
        public var bandwidth: Int?

        public init(width: Int, height: Int, bandwidth: Int?) {
            self.width = width
            self.height = height
            self.bandwidth = bandwidth
        }
    }

    /// Position in the playlist, from 0, of `count` renditions.
    public var index: Int
    public var count: Int
    public var width: Int
    public var height: Int
    public var bandwidth: Int?
    /// How `--rendition` picked it.
    public var reason: String

    public init(index: Int, count: Int, width: Int, height: Int, bandwidth: Int?, reason: String) {
        self.index = index
        self.count = count
        self.width = width
        self.height = height
        self.bandwidth = bandwidth
        self.reason = reason
    }
}

/// A `--rendition` that names no rendition of an input.
public struct RenditionError: Error, Sendable, Equatable, CustomStringConvertible {
    public let description: String
}
