import Foundation
import FrameFarmCore

extension ResamplingFilter {
    /// Half-width of the kernel at scale 1, in pixels.
    var support: Double {
        switch self {
        case .lanczos3: 3
        case .catmullRom: 2
        case .bilinear: 1
        }
    }

    /// The kernel at distance `x` (in pixels at scale 1).
    func weight(_ x: Double) -> Double {
        let distance = abs(x)
        switch self {
        case .lanczos3:
            if distance < 1e-9 { return 1 }
            if distance >= 3 { return 0 }
            let pix = Double.pi * distance
            return 3 * sin(pix) * sin(pix / 3) / (pix * pix)
        case .catmullRom:
            if distance < 1 { return (1.5 * distance - 2.5) * distance * distance + 1 }
            if distance < 2 { return ((-0.5 * distance + 2.5) * distance - 4) * distance + 2 }
            return 0
        case .bilinear:
            return max(0, 1 - distance)
        }
    }
}

/// How the destination pixels of one axis map onto an image's pixels: destination pixel i (centre i + 0.5)
/// samples the image at `start + (i + 0.5) * length / outputCount`, and taps clamp to `first...last`.
struct AxisMapping: Hashable {
    var filter: ResamplingFilter
    /// Continuous image coordinate of the crop's start and its length, in image pixels (centres at j + 0.5).
    var start: Double
    var length: Double
    var outputCount: Int
    var first: Int
    var last: Int
    /// The box size the image was pre-shrunk by along this axis (1: not shrunk); see `FilterTable`.
    var boxShrink: Int = 1
    /// Whether the table is laid out in quads (the horizontal pass's); see `FilterTable`.
    var quads = false

    /// Image pixels per destination pixel.
    var ratio: Double { length / Double(outputCount) }
}

/// Per destination pixel of one axis: the first image pixel and `taps` normalized weights, as the shaders read
/// them (`start` word, then the weights' float bits). Taps that fall outside `first...last` are folded onto the
/// edge pixel, so shaders never clamp and padding outside the crop never bleeds in.
///
/// In quads (`AxisMapping.quads`), an entry serves a group of `quadGroup` adjacent destination pixels (the
/// horizontal pass's invocation): a quad holding the group's first image quad (a quad-aligned start), then for
/// each of `taps` image quads, one quad of four weights per pixel of the group, zero outside the pixel's window.
/// So each image quad fetched serves the whole group. The group's quads never reach past its last pixel's quad,
/// so with the uniform quad count (shifted left near the end) they stay inside the row's padding to a quad.
struct FilterTable {
    /// Destination pixels per entry in the quad layout; must match COLUMNS in Shaders/resample_horizontal.comp.
    static let quadGroup = 4
    let taps: Int
    let words: [UInt32]

    init(_ mapping: AxisMapping) {
        let filter = mapping.filter
        let scale = max(1, mapping.ratio)
        let reach = filter.support * scale
        let rangeCount = mapping.last - mapping.first + 1
        var windows: [(start: Int, weights: [Double])] = []
        windows.reserveCapacity(mapping.outputCount)
        var taps = 1
        for i in 0..<mapping.outputCount {
            let centre = mapping.start + (Double(i) + 0.5) * mapping.ratio
            let lowest = Int((centre - reach - 0.5).rounded(.up))
            let highest = Int((centre + reach - 0.5).rounded(.down))
            let clampedLow = min(max(lowest, mapping.first), mapping.last)
            let clampedHigh = min(max(highest, mapping.first), mapping.last)
            var weights = [Double](repeating: 0, count: clampedHigh - clampedLow + 1)
            var total = 0.0
            for j in lowest...max(lowest, highest) {
                let w = filter.weight((Double(j) + 0.5 - centre) / scale)
                weights[min(max(j, mapping.first), mapping.last) - clampedLow] += w
                total += w
            }
            if abs(total) < 1e-12 {  // a centre exactly between bilinear taps at scale 1 cannot happen; be safe
                weights = weights.map { _ in 0 }
                weights[min(max(Int(centre.rounded(.down)), clampedLow), clampedHigh) - clampedLow] = 1
                total = 1
            }
            var window = (start: clampedLow, weights: weights.map { $0 / total })
            if mapping.boxShrink > 1 { window = Self.undoBoxBlur(window, shrink: mapping.boxShrink, range: mapping) }
            windows.append(window)
            taps = max(taps, window.weights.count)
        }
        if mapping.quads {
            (self.taps, self.words) = Self.quadLayout(windows, mapping: mapping)
            return
        }
        taps = min(taps, rangeCount)
        var words = [UInt32]()
        words.reserveCapacity(mapping.outputCount * (taps + 1))
        for window in windows {
            let start = max(mapping.first, min(window.start, mapping.last - taps + 1))
            words.append(UInt32(start))
            for t in 0..<taps {
                let index = start + t - window.start
                words.append(Float(window.weights.indices.contains(index) ? window.weights[index] : 0).bitPattern)
            }
        }
        self.taps = taps
        self.words = words
    }

    private static func quadLayout(_ windows: [(start: Int, weights: [Double])], mapping: AxisMapping)
        -> (quads: Int, words: [UInt32]) {
        let groups = stride(from: 0, to: windows.count, by: quadGroup).map {
            windows[$0..<min($0 + quadGroup, windows.count)]
        }
        func span(_ group: ArraySlice<(start: Int, weights: [Double])>) -> (first: Int, last: Int) {
            (group.map(\.start).min()!, group.map { $0.start + $0.weights.count - 1 }.max()!)
        }
        let quads = groups.map { span($0).last / 4 - span($0).first / 4 + 1 }.max() ?? 1
        let rowEnd = (mapping.last + 4) / 4 * 4
        var words = [UInt32]()
        words.reserveCapacity(groups.count * 4 * (1 + quads * quadGroup))
        for group in groups {
            // Never below 0: quads * 4 <= rowEnd, since every window ends at or before `last`.
            let first = min(span(group).first / 4 * 4, rowEnd - 4 * quads)
            words += [UInt32(first / 4), 0, 0, 0]
            for quad in 0..<quads {
                for member in 0..<quadGroup {
                    for pixel in first + 4 * quad..<first + 4 * quad + 4 {
                        let window = group.indices.contains(group.startIndex + member)
                            ? group[group.startIndex + member] : (start: 0, weights: [])
                        let index = pixel - window.start
                        words.append(Float(window.weights.indices.contains(index) ? window.weights[index] : 0)
                            .bitPattern)
                    }
                }
            }
        }
        return (quads, words)
    }

    /// A box average of k samples is the sample at its centre plus (k^2 - 1) / 24 of its second derivative; on box
    /// samples (k apart) that is m = p + a * (m[-1] - 2m + m[+1]) with a = (k^2 - 1) / (24 k^2) to second order.
    /// Folding the inverse 3-tap sharpen [-a, 1 + 2a, -a] into the weights makes shrink-then-reduce match the
    /// direct filter to fourth order, which lets the box take a larger share of the reduction.
    private static func undoBoxBlur(_ window: (start: Int, weights: [Double]), shrink: Int, range: AxisMapping)
        -> (start: Int, weights: [Double]) {
        let k = Double(shrink)
        let a = (k * k - 1) / (24 * k * k)
        let start = max(range.first, window.start - 1)
        let end = min(range.last, window.start + window.weights.count)
        var sharpened = [Double](repeating: 0, count: end - start + 1)
        for (offset, weight) in window.weights.enumerated() {
            let index = window.start + offset
            sharpened[index - start] += (1 + 2 * a) * weight
            sharpened[max(index - 1, range.first) - start] -= a * weight
            sharpened[min(index + 1, range.last) - start] -= a * weight
        }
        return (start, sharpened)
    }
}

/// Remembers filter tables by mapping: a renderer sees the same geometry frame after frame, so steady state
/// computes no weights. Thread-safety: none (one per renderer).
final class FilterTableCache {
    private var tables: [AxisMapping: FilterTable] = [:]
    private let capacity = 512

    func table(for mapping: AxisMapping) -> FilterTable {
        if let table = tables[mapping] { return table }
        if tables.count >= capacity { tables.removeAll(keepingCapacity: true) }
        let table = FilterTable(mapping)
        tables[mapping] = table
        return table
    }
}
