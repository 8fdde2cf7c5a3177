import Testing
@testable import FrameFarmGPU

/// The grouped tables the resampling passes read, against each pixel's window: host code only.
@Suite struct FilterTableTests {
    /// Per destination pixel, image pixel -> weight, read back from the grouped layout.
    static func weightsByPixel(_ table: FilterTable, outputs: Int, pixelsPerTap width: Int) -> [[Int: Float]] {
        let group = FilterTable.groupSize
        let entryWords = 4 + table.taps * group * width
        return (0..<outputs).map { output in
            let base = output / group * entryWords
            let first = Int(table.words[base]) * width
            var pixels: [Int: Float] = [:]
            for tap in 0..<table.taps {
                let weights = base + 4 + (tap * group + output % group) * width
                for offset in 0..<width {
                    let weight = Float(bitPattern: table.words[weights + offset])
                    if weight != 0 { pixels[first + tap * width + offset, default: 0] += weight }
                }
            }
            return pixels
        }
    }

    static let mappings: [AxisMapping] = [
        AxisMapping(filter: .lanczos3, start: 0, length: 1920, outputCount: 160, first: 0, last: 1919),
        AxisMapping(filter: .lanczos3, start: 0, length: 320, outputCount: 160, first: 0, last: 319, boxShrink: 6),
        AxisMapping(filter: .catmullRom, start: 3.25, length: 57.5, outputCount: 97, first: 3, last: 61),
        AxisMapping(filter: .bilinear, start: 0, length: 7, outputCount: 3, first: 0, last: 6),
        AxisMapping(filter: .lanczos3, start: 0, length: 1, outputCount: 5, first: 0, last: 0),
        AxisMapping(filter: .lanczos3, start: 0, length: 5, outputCount: 2796, first: 0, last: 4),
        AxisMapping(filter: .lanczos3, start: 100.5, length: 33, outputCount: 41, first: 100, last: 133),
    ]

    @Test(arguments: mappings, [1, 4])
    func groupsHoldEachPixelsWindow(_ mapping: AxisMapping, pixelsPerTap: Int) {
        var grouped = mapping
        grouped.pixelsPerTap = pixelsPerTap
        let table = FilterTable(grouped)
        let actual = Self.weightsByPixel(table, outputs: mapping.outputCount, pixelsPerTap: pixelsPerTap)
        let paddedRowEnd = (mapping.last + pixelsPerTap) / pixelsPerTap * pixelsPerTap
        for (output, window) in FilterTable.windows(mapping).enumerated() {
            var expected: [Int: Float] = [:]
            for (offset, weight) in window.weights.enumerated() where Float(weight) != 0 {
                expected[window.start + offset] = Float(weight)
            }
            #expect(actual[output] == expected, "pixel \(output) of \(mapping)")
            #expect(window.start >= mapping.first && window.start + window.weights.count - 1 <= mapping.last)
            let entryWords = 4 + table.taps * FilterTable.groupSize * pixelsPerTap
            let firstTap = Int(table.words[output / FilterTable.groupSize * entryWords])
            #expect(firstTap >= 0 && (firstTap + table.taps) * pixelsPerTap <= paddedRowEnd,
                    "pixel \(output) reads taps \(firstTap)..<\(firstTap + table.taps), past the row's padding")
        }
    }

    /// Lanczos's zeros fall on pixel centres at scale 1: each pixel is its own image pixel, and the passes fetch
    /// one image quad per four columns and one row per row, not the 7-tap window's (a poster at its video's width).
    @Test func aOneToOneAxisTakesOneTapPerPixel() {
        let mapping = AxisMapping(filter: .lanczos3, start: 8, length: 1280, outputCount: 1280, first: 0, last: 1299)
        for (output, window) in FilterTable.windows(mapping).enumerated() {
            #expect(window.start == 8 + output && window.weights == [1], "pixel \(output)")
        }
        var quads = mapping
        quads.pixelsPerTap = 4
        #expect(FilterTable(quads).taps == 1)
        #expect(FilterTable(mapping).taps == FilterTable.groupSize)
    }

    @Test(arguments: mappings)
    func windowsAreNormalized(_ mapping: AxisMapping) {
        for window in FilterTable.windows(mapping) {
            #expect(abs(window.weights.reduce(0, +) - 1) < 1e-9)
        }
    }
}
