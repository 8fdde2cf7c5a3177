/// Whether a video has bars baked into its frames: none, throughout, or in part of it only (archive 4:3 footage
/// cut into a 16:9 programme, a windowboxed opening).
public enum PaddingKind: String, Codable, Sendable, CaseIterable {
    case none
    case throughout
    case partial
}

/// What one sampled frame shows at one edge: how far in from the edge it is flat black, and how far in it stays
/// dark (no pixel above the dark limit). Counts are rows for the top and bottom edges, columns for the sides.
public struct EdgeEvidence: Sendable, Equatable {
    /// Rows from the edge with nothing above black plus encoder noise: bar material.
    public var flat: Int
    /// Rows from the edge before the first with a lit pixel: where the picture visibly begins.
    public var dark: Int

    public init(flat: Int, dark: Int) {
        self.flat = flat
        self.dark = dark
    }
}

/// One sampled frame's evidence at its four edges.
public struct FrameBars: Sendable, Equatable {
    public var top: EdgeEvidence, bottom: EdgeEvidence, left: EdgeEvidence, right: EdgeEvidence

    public init(top: EdgeEvidence, bottom: EdgeEvidence, left: EdgeEvidence, right: EdgeEvidence) {
        self.top = top
        self.bottom = bottom
        self.left = left
        self.right = right
    }
}

/// The padding decision over a video's sampled frames. A wrong bar silently crops picture from every output, a
/// missed one only leaves a bar, so a bar must be proven: flat black that ends where the picture starts, in
/// several frames, and symmetric (pillarboxes and letterboxes are centred). A one-sided or uneven bar counts only
/// with much stronger evidence; short of it, only the symmetric part of a pair is taken, which is bar either way.
public struct Padding: Sendable, Equatable {
    public var kind: PaddingKind
    /// The picture without the bars found throughout, in coded pixels: what removing the padding keeps (the whole
    /// frame for none, and for bars present in part of the video only).
    public var contentRect: PixelRect
    /// For `.partial`: the picture inside the bars where they show, and the share of the usable samples (spread
    /// evenly over the video, so about the share of its duration) that show them.
    public var partialContentRect: PixelRect?
    public var partialShare: Double?
    /// Sampled frames that were not dark all over: the evidence the decision rests on.
    public var usableSamples: Int

    /// No padding, decided from `usableSamples` frames.
    public static func none(_ size: PixelSize, usableSamples: Int) -> Padding {
        Padding(kind: .none, contentRect: PixelRect(size: size), usableSamples: usableSamples)
    }

    public init(kind: PaddingKind, contentRect: PixelRect, partialContentRect: PixelRect? = nil,
                partialShare: Double? = nil, usableSamples: Int) {
        self.kind = kind
        self.contentRect = contentRect
        self.partialContentRect = partialContentRect
        self.partialShare = partialShare
        self.usableSamples = usableSamples
    }

    /// Fewer usable samples than this and no bar is reported: too little evidence is "none found", never a guess.
    public static let fewestUsableSamples = 3
    /// A one-sided or uneven bar needs this many usable samples, every one showing its edge at the same place.
    public static let fewestSamplesForUnevenBars = 6
    /// Bars thinner than this fraction of the frame are edge noise from encoders, not padding.
    public static let minimumBarFraction = 0.01
    /// Rows between flat black and the first lit pixel that still make one edge (ringing, a soft matte).
    public static let edgeRamp = 3
    /// How far the two bars of a pair may differ and still be the same centred bar (alignment to 2 or 4 rows).
    static func symmetryTolerance(extent: Int) -> Int { max(4, extent / 100) }

    /// Decides from each sampled frame's evidence (nil: a frame dark all over, which says nothing).
    public static func decide(codedSize size: PixelSize, frames: [FrameBars?]) -> Padding {
        let usable = frames.compactMap { $0 }
        guard usable.count >= fewestUsableSamples else { return .none(size, usableSamples: usable.count) }
        let vertical = PairDecision(usable.map { ($0.top, $0.bottom) }, extent: size.height)
        let horizontal = PairDecision(usable.map { ($0.left, $0.right) }, extent: size.width)
        func rect(_ vertical: (Int, Int), _ horizontal: (Int, Int)) -> PixelRect {
            PixelRect(x: horizontal.0, y: vertical.0, width: size.width - horizontal.0 - horizontal.1,
                      height: size.height - vertical.0 - vertical.1)
        }
        let content = rect(vertical.throughout, horizontal.throughout)
        guard !content.isEmpty else { return .none(size, usableSamples: usable.count) }
        let partials = [vertical.partial, horizontal.partial].compactMap { $0 }
        guard !partials.isEmpty else {
            return Padding(kind: content.size == size ? .none : .throughout, contentRect: content,
                           usableSamples: usable.count)
        }
        let inside = rect(vertical.partial?.bars ?? vertical.throughout, horizontal.partial?.bars ?? horizontal.throughout)
        guard !inside.isEmpty else {
            return Padding(kind: content.size == size ? .none : .throughout, contentRect: content, usableSamples: usable.count)
        }
        return Padding(kind: .partial, contentRect: content, partialContentRect: inside,
                       partialShare: partials.map(\.share).max(), usableSamples: usable.count)
    }
}

/// One pair of opposite edges (top and bottom, or left and right) over the usable samples.
private struct PairDecision {
    /// Bars present in every usable sample.
    var throughout = (0, 0)
    /// Bars present in some samples while the picture reaches an edge of the pair in others.
    var partial: (bars: (Int, Int), share: Double)?

    private enum Reading {
        /// Flat black ending where the picture starts, this many rows thick.
        case bar(Int)
        /// The picture reaches the edge.
        case open
        /// Dark picture next to the edge: any bar there is at most this thick.
        case unclear(atMost: Int)

        var isOpen: Bool { if case .open = self { true } else { false } }
    }

    /// What the samples say about one edge: the most its bar can be, and the thickness each sample that shows the
    /// bar's edge shows.
    private struct Edge {
        var bound = Int.max
        var shown: [Int] = []

        init(_ readings: [Reading]) {
            for reading in readings {
                switch reading {
                case .bar(let rows): bound = min(bound, rows); shown.append(rows)
                case .unclear(let rows): bound = min(bound, rows)
                case .open: bound = 0
                }
            }
            if bound == .max { bound = 0 }
        }

        /// Every one of `samples` (enough for an uneven bar) shows the edge, at one place give or take 2 rows.
        func isProven(samples: Int) -> Bool {
            samples >= Padding.fewestSamplesForUnevenBars && shown.count == samples
                && shown.max()! - shown.min()! <= 2
        }
    }

    init(_ samples: [(EdgeEvidence, EdgeEvidence)], extent: Int) {
        let least = max(1, Int((Double(extent) * Padding.minimumBarFraction).rounded(.up)))
        func reading(_ edge: EdgeEvidence) -> Reading {
            if edge.dark < least { return .open }
            if edge.flat >= least && edge.dark - edge.flat <= Padding.edgeRamp { return .bar(edge.flat) }
            return .unclear(atMost: edge.flat)
        }
        let readings = samples.map { (reading($0.0), reading($0.1)) }
        let closed = readings.filter { !$0.0.isOpen && !$0.1.isOpen }
        if closed.count >= 2,
           let bars = Self.centred(Edge(closed.map(\.0)), Edge(closed.map(\.1)), samples: closed.count,
                                   throughout: closed.count == readings.count, extent: extent) {
            if closed.count == readings.count {
                throughout = bars
            } else {
                partial = (bars, Double(closed.count) / Double(readings.count))
            }
            return
        }
        // A bar on one side only, shown by every sample at one place.
        let first = Edge(readings.map(\.0)), second = Edge(readings.map(\.1))
        if first.isProven(samples: readings.count), first.bound >= least { throughout.0 = first.bound }
        if second.isProven(samples: readings.count), second.bound >= least { throughout.1 = second.bound }
    }

    /// Bars on both edges, each shown in at least two samples and half of them: their common (symmetric)
    /// thickness, and beyond it a side's own where it is within the pair's tolerance or, in bars present
    /// throughout, proven by every sample. Nil when the edges don't both show a bar.
    private static func centred(_ first: Edge, _ second: Edge, samples: Int, throughout: Bool,
                                extent: Int) -> (Int, Int)? {
        let enough = max(2, (samples + 1) / 2)
        guard first.shown.count >= enough, second.shown.count >= enough else { return nil }
        let symmetric = min(first.bound, second.bound)
        guard symmetric > 0 else { return nil }
        let tolerance = Padding.symmetryTolerance(extent: extent)
        func side(_ edge: Edge) -> Int {
            edge.bound - symmetric <= tolerance || (throughout && edge.isProven(samples: samples)) ? edge.bound : symmetric
        }
        return (side(first), side(second))
    }
}
