import Testing
@testable import FrameFarmGPU

/// The horizontal pass's quad-laid-out tables against the scalar tables the vertical pass reads: host code only.
@Suite struct FilterTableTests {
    /// Per destination pixel, image pixel -> weight, from either layout.
    static func weightsByPixel(_ table: FilterTable, outputs: Int, quads: Bool) -> [[Int: Float]] {
        (0..<outputs).map { output in
            var pixels: [Int: Float] = [:]
            func add(_ pixel: Int, _ word: Int) {
                let weight = Float(bitPattern: table.words[word])
                if weight != 0 { pixels[pixel, default: 0] += weight }
            }
            if quads {
                // Per group of quadGroup pixels: the first image quad, then per image quad a weight quad per pixel.
                let group = FilterTable.quadGroup
                let base = output / group * 4 * (1 + group * table.taps)
                let first = Int(table.words[base]) * 4
                for quad in 0..<table.taps {
                    let weights = base + 4 + (quad * group + output % group) * 4
                    for offset in 0..<4 { add(first + quad * 4 + offset, weights + offset) }
                }
            } else {
                let base = output * (table.taps + 1)
                for tap in 0..<table.taps { add(Int(table.words[base]) + tap, base + 1 + tap) }
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

    @Test(arguments: mappings)
    func quadsHoldTheScalarWeights(_ mapping: AxisMapping) {
        var quadMapping = mapping
        quadMapping.quads = true
        let scalar = FilterTable(mapping), quads = FilterTable(quadMapping)
        let expected = Self.weightsByPixel(scalar, outputs: mapping.outputCount, quads: false)
        let actual = Self.weightsByPixel(quads, outputs: mapping.outputCount, quads: true)
        let paddedRowEnd = (mapping.last + 4) / 4 * 4
        let entryWords = 4 * (1 + FilterTable.quadGroup * quads.taps)
        for output in 0..<mapping.outputCount {
            #expect(actual[output] == expected[output], "pixel \(output) of \(mapping)")
            let firstQuad = Int(quads.words[output / FilterTable.quadGroup * entryWords])
            #expect(firstQuad >= 0 && (firstQuad + quads.taps) * 4 <= paddedRowEnd,
                    "pixel \(output) reads quads \(firstQuad)..<\(firstQuad + quads.taps), past the row's padding")
        }
    }
}
