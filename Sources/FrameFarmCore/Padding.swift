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
    /// What `--remove-padding force` keeps: `contentRect` less the likely bars besides, one-sided or uneven bars
    /// that every sample showing them shows at one place, on fewer samples (or fewer agreeing) than proof needs.
    public var likelyContentRect: PixelRect
    /// For `.partial`: the picture inside the bars where they show, and the share of the usable samples (spread
    /// evenly over the video, so about the share of its duration) that show them.
    public var partialContentRect: PixelRect?
    public var partialShare: Double?
    /// Sampled frames that were not dark all over: the evidence the decision rests on.
    public var usableSamples: Int
    /// Per edge, how many usable samples show flat black ending where the likely bar ends.
    public var edgeSamples: EdgeCounts

    /// How sure the decision is: bars proven (`certain`), bars only likely (`force` would remove more than
    /// `auto`), or none seen at all.
    public var confidence: PaddingConfidence {
        if likelyContentRect != contentRect { return .likely }
        return kind == .throughout ? .certain : .none
    }

    /// No padding, decided from `usableSamples` frames.
    public static func none(_ size: PixelSize, usableSamples: Int) -> Padding {
        Padding(kind: .none, contentRect: PixelRect(size: size), usableSamples: usableSamples)
    }

    public init(kind: PaddingKind, contentRect: PixelRect, likelyContentRect: PixelRect? = nil,
                partialContentRect: PixelRect? = nil, partialShare: Double? = nil, usableSamples: Int,
                edgeSamples: EdgeCounts = EdgeCounts()) {
        self.kind = kind
        self.contentRect = contentRect
        self.likelyContentRect = likelyContentRect ?? contentRect
        self.partialContentRect = partialContentRect
        self.partialShare = partialShare
        self.usableSamples = usableSamples
        self.edgeSamples = edgeSamples
    }

    /// Fewer usable samples than this and no bar is certain: too little evidence is "none found", never a guess.
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
        let topBottom = usable.map { ($0.top, $0.bottom) }, leftRight = usable.map { ($0.left, $0.right) }
        var vertical = PairDecision(topBottom, extent: size.height)
        var horizontal = PairDecision(leftRight, extent: size.width)
        // Bars frame the picture: where a pair shows its bars, flat black stops at the other pair's edges (or where
        // their own bars end). Dark picture floating in black (credits, a subject on a black stage) is "bars" on
        // every side that don't agree with each other.
        let verticalFramed = vertical.frames(leftRight, theirBars: horizontal.likely, extent: size.width)
        let horizontalFramed = horizontal.frames(topBottom, theirBars: vertical.likely, extent: size.height)
        if !verticalFramed { vertical = PairDecision(edgeSamples: vertical.edgeSamples) }
        if !horizontalFramed { horizontal = PairDecision(edgeSamples: horizontal.edgeSamples) }
        // Too little evidence: nothing is certain, though a bar may be likely.
        if usable.count < fewestUsableSamples {
            (vertical.throughout, vertical.partial, horizontal.throughout, horizontal.partial) = ((0, 0), nil, (0, 0), nil)
        }
        func rect(_ vertical: (Int, Int), _ horizontal: (Int, Int)) -> PixelRect {
            PixelRect(x: horizontal.0, y: vertical.0, width: size.width - horizontal.0 - horizontal.1,
                      height: size.height - vertical.0 - vertical.1)
        }
        let counts = EdgeCounts(top: vertical.edgeSamples.0, bottom: vertical.edgeSamples.1,
                                left: horizontal.edgeSamples.0, right: horizontal.edgeSamples.1)
        let content = rect(vertical.throughout, horizontal.throughout)
        let likely = rect(vertical.likely, horizontal.likely)
        guard !content.isEmpty, !likely.isEmpty else {
            return Padding(kind: .none, contentRect: PixelRect(size: size), usableSamples: usable.count, edgeSamples: counts)
        }
        var padding = Padding(kind: content.size == size ? .none : .throughout, contentRect: content,
                              likelyContentRect: likely, usableSamples: usable.count, edgeSamples: counts)
        let partials = [vertical.partial, horizontal.partial].compactMap { $0 }
        let inside = rect(vertical.partial?.bars ?? vertical.throughout, horizontal.partial?.bars ?? horizontal.throughout)
        if !partials.isEmpty, !inside.isEmpty {
            padding.kind = .partial
            padding.partialContentRect = inside
            padding.partialShare = partials.map(\.share).max()
        }
        return padding
    }
}

/// A count per edge of the frame.
public struct EdgeCounts: Sendable, Equatable, Codable {
    public var top = 0, bottom = 0, left = 0, right = 0

    public init(top: Int = 0, bottom: Int = 0, left: Int = 0, right: Int = 0) {
        self.top = top
        self.bottom = bottom
        self.left = left
        self.right = right
    }

    /// The counts as the display shows the picture: flipped left-right when `mirrored`, then turned `rotation`
    /// degrees clockwise (a quarter turn brings the coded top edge to the right).
    public func displayed(rotation: Int, mirrored: Bool) -> EdgeCounts {
        var sides = mirrored ? EdgeCounts(top: top, bottom: bottom, left: right, right: left) : self
        for _ in 0..<(((rotation / 90) % 4 + 4) % 4) {
            sides = EdgeCounts(top: sides.left, bottom: sides.right, left: sides.bottom, right: sides.top)
        }
        return sides
    }
}

/// How sure a padding decision is (see `Padding.confidence`).
public enum PaddingConfidence: String, Codable, Sendable, CaseIterable {
    case certain, likely, none
}

/// One pair of opposite edges (top and bottom, or left and right) over the usable samples.
private struct PairDecision {
    /// Bars present in every usable sample.
    var throughout = (0, 0)
    /// At least the bars present throughout, and besides them a side's unproven bar: one that every sample that
    /// shows it shows at one place (two at least), with the picture never reaching that edge.
    var likely = (0, 0)
    /// Bars present in some samples while the picture reaches an edge of the pair in others.
    var partial: (bars: (Int, Int), share: Double)?
    /// Per edge, the samples that show flat black ending where its likely bar ends.
    var edgeSamples = (0, 0)
    /// Samples in which neither edge of the pair is open (the picture reaches neither): those that may show bars.
    private var closedSamples = 0

    /// No bars (the samples' per-edge counts kept).
    init(edgeSamples: (Int, Int) = (0, 0)) { self.edgeSamples = edgeSamples }

    /// Whether flat black stops at the other pair of edges (`others`, across `extent`, with bars `theirBars`)
    /// where it would if this pair's bars were real, in at least two of the samples that may show them and half
    /// of those: at those edges, or where their own bars end (dark but textured picture there is fine).
    func frames(_ others: [(EdgeEvidence, EdgeEvidence)], theirBars: (Int, Int), extent: Int) -> Bool {
        guard likely != (0, 0) || partial != nil else { return true }
        let least = max(1, Int((Double(extent) * Padding.minimumBarFraction).rounded(.up)))
        func meets(_ edge: EdgeEvidence, bar: Int) -> Bool { edge.flat < bar + least }
        let met = others.filter { meets($0.0, bar: theirBars.0) && meets($0.1, bar: theirBars.1) }.count
        return met >= max(2, (closedSamples + 1) / 2)
    }

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

        /// Samples that show the edge where the bar ends (give or take 2 rows): a matte's edge stays put, while
        /// the edge of dark picture (credits, a subject on black) moves from scene to scene.
        var consistent: Int { shown.filter { $0 - bound <= 2 }.count }

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
            // The few dark rows between flat black and the picture are the encoder's ringing off the picture's
            // edge (or a soft matte's fall-off): bar. Kept, they showed as a dark line along the picture.
            if edge.flat >= least && edge.dark - edge.flat <= Padding.edgeRamp { return .bar(edge.dark) }
            return .unclear(atMost: edge.flat)
        }
        let readings = samples.map { (reading($0.0), reading($0.1)) }
        let closed = readings.filter { !$0.0.isOpen && !$0.1.isOpen }
        closedSamples = closed.count
        let first = Edge(readings.map(\.0)), second = Edge(readings.map(\.1))
        func unproven(_ edge: Edge) -> Int { edge.bound >= least && edge.consistent >= 2 && edge.consistent == edge.shown.count ? edge.bound : 0 }
        likely = (unproven(first), unproven(second))
        edgeSamples = (first.consistent, second.consistent)
        defer { likely = (max(likely.0, throughout.0), max(likely.1, throughout.1)) }
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
        if first.isProven(samples: readings.count), first.bound >= least { throughout.0 = first.bound }
        if second.isProven(samples: readings.count), second.bound >= least { throughout.1 = second.bound }
    }

    /// Bars on both edges, each shown at one place in at least two samples and half of them: their common (symmetric)
    /// thickness, and beyond it a side's own where it is within the pair's tolerance or, in bars present
    /// throughout, proven by every sample. Nil when the edges don't both show a bar.
    private static func centred(_ first: Edge, _ second: Edge, samples: Int, throughout: Bool,
                                extent: Int) -> (Int, Int)? {
        let enough = max(2, (samples + 1) / 2)
        guard first.consistent >= enough, second.consistent >= enough else { return nil }
        let symmetric = min(first.bound, second.bound)
        guard symmetric > 0 else { return nil }
        let tolerance = Padding.symmetryTolerance(extent: extent)
        func side(_ edge: Edge) -> Int {
            edge.bound - symmetric <= tolerance || (throughout && edge.isProven(samples: samples)) ? edge.bound : symmetric
        }
        return (side(first), side(second))
    }
}
