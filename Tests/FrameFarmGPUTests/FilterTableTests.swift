import Testing
@testable import FrameFarmGPU

/// The horizontal pass's quad-laid-out tables against the scalar tables the vertical pass reads: host code only.
@Suite struct FilterTableTests {
    /// Per destination pixel, image pixel -> weight, from either layout.
    static func weightsByPixel(_ table: FilterTable, outputs: Int, quads: Bool) -> [[Int: Float]] {
        let entry = quads ? 4 * (table.taps + 1) : table.taps + 1
        let weightsPerEntry = quads ? 4 * table.taps : table.taps
        return (0..<outputs).map { output in
            let base = output * entry
            let first = quads ? Int(table.words[base]) * 4 : Int(table.words[base])
            let weightsStart = base + (quads ? 4 : 1)
            var pixels: [Int: Float] = [:]
            for offset in 0..<weightsPerEntry {
                let weight = Float(bitPattern: table.words[weightsStart + offset])
                if weight != 0 { pixels[first + offset, default: 0] += weight }
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
        for output in 0..<mapping.outputCount {
            #expect(actual[output] == expected[output], "pixel \(output) of \(mapping)")
            let firstQuad = Int(quads.words[output * 4 * (quads.taps + 1)])
            #expect(firstQuad >= 0 && (firstQuad + quads.taps) * 4 <= paddedRowEnd,
                    "pixel \(output) reads quads \(firstQuad)..<\(firstQuad + quads.taps), past the row's padding")
        }
    }
}
