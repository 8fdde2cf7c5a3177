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
    /// Image pixels a shader fetches at once along this axis: 4 for the horizontal pass, which reads image rows
    /// a quad at a time, 1 for the vertical pass, which reads one row per tap; see `FilterTable`.
    var pixelsPerTap = 1

    /// Image pixels per destination pixel.
    var ratio: Double { length / Double(outputCount) }
}

/// The weights of one axis as the resampling shaders read them, in entries of `groupSize` adjacent destination
/// pixels (one invocation's): a quad whose first word is the group's first tap (in taps of `pixelsPerTap` image
/// pixels), then per tap one quad per `pixelsPerTap` image pixels, holding the four pixels' weights (the
/// horizontal pass: one image quad times a 4x4 weight matrix) or, with `pixelsPerTap` 1, a quad of the four
/// pixels' weights for one image row (the vertical pass). Each fetch of the image then serves the whole group,
/// and weights are zero outside a pixel's window.
///
/// Taps that fall outside `first...last` are folded onto the edge pixel, so shaders never clamp and padding
/// outside the crop never bleeds in. A group's taps never reach past its last pixel's tap, so with the uniform
/// tap count (shifted left near the end) they stay inside the row's padding to `pixelsPerTap`.
struct FilterTable {
    /// Destination pixels per entry; must match COLUMNS in Shaders/resample_horizontal.comp and ROWS in
    /// Shaders/resample_vertical.comp.
    static let groupSize = 4
    let taps: Int
    let words: [UInt32]
    /// Each entry's first image pixel (its first tap times `pixelsPerTap`).
    let groupStarts: [Int]

    typealias Window = (start: Int, weights: [Double])

    init(_ mapping: AxisMapping) {
        let windows = Self.windows(mapping)
        let width = mapping.pixelsPerTap
        // Each group's image span, and its windows padded with empty ones (pixels past the end weigh nothing).
        let groups = stride(from: 0, to: windows.count, by: Self.groupSize).map { start in
            let members = windows[start..<min(start + Self.groupSize, windows.count)]
            let span = (first: members.map(\.start).min()!,
                        last: members.map { $0.start + $0.weights.count - 1 }.max()!)
            let empty: Window = (start: 0, weights: [])
            return (span: span, members: Array(members) + repeatElement(empty, count: Self.groupSize - members.count))
        }
        let taps = groups.map { $0.span.last / width - $0.span.first / width + 1 }.max() ?? 1
        let rowEnd = (mapping.last + width) / width * width
        var words = [UInt32]()
        var groupStarts: [Int] = []
        words.reserveCapacity(groups.count * (4 + taps * Self.groupSize * width))
        for group in groups {
            // Never below `first` rounded down to a tap: taps * width <= rowEnd - that, as every window ends at or
            // before `last`.
            let first = min(group.span.first / width * width, rowEnd - width * taps)
            groupStarts.append(first)
            words += [UInt32(first / width), 0, 0, 0]
            for tap in 0..<taps {
                for window in group.members {
                    for pixel in first + tap * width..<first + (tap + 1) * width {
                        let index = pixel - window.start
                        words.append(Float(window.weights.indices.contains(index) ? window.weights[index] : 0)
                            .bitPattern)
                    }
                }
            }
        }
        self.taps = taps
        self.words = words
        self.groupStarts = groupStarts
    }

    /// Per destination pixel, its first image pixel and normalized weights (already inside `first...last`).
    static func windows(_ mapping: AxisMapping) -> [Window] {
        let filter = mapping.filter
        let scale = max(1, mapping.ratio)
        let reach = filter.support * scale
        return (0..<mapping.outputCount).map { i in
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
            trimNegligibleEnds(&window)
            return mapping.boxShrink > 1 ? undoBoxBlur(window, shrink: mapping.boxShrink, range: mapping) : window
        }
    }

    /// Drops the window's end weights that are zero but for rounding: where the kernel's zeros fall on pixel
    /// centres (any scale-1 axis, so every 1:1 render, such as a poster at its video's own width) only one weight
    /// is left, and the passes fetch a quarter of the image quads and rows that the 7-tap window would cost.
    private static func trimNegligibleEnds(_ window: inout Window) {
        let negligible = 1e-9
        guard let firstKept = window.weights.firstIndex(where: { abs($0) > negligible }),
              let lastKept = window.weights.lastIndex(where: { abs($0) > negligible }) else { return }
        window = (window.start + firstKept, Array(window.weights[firstKept...lastKept]))
    }

    /// A box average of k samples is the sample at its centre plus (k^2 - 1) / 24 of its second derivative; on box
    /// samples (k apart) that is m = p + a * (m[-1] - 2m + m[+1]) with a = (k^2 - 1) / (24 k^2) to second order.
    /// Folding the inverse 3-tap sharpen [-a, 1 + 2a, -a] into the weights makes shrink-then-reduce match the
    /// direct filter to fourth order, which lets the box take a larger share of the reduction.
    private static func undoBoxBlur(_ window: Window, shrink: Int, range: AxisMapping) -> Window {
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
