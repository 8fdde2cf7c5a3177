import CDeflate
import Foundation
import FrameFarmCore
import Testing
@testable import FrameFarmMedia

/// The deflater's streams are read back by independent inflaters: libdeflate's here, zlib's (through libpng) in
/// the image tests, which also refuses the incomplete code tables a looser decoder would let by.
@Suite struct PNGDeflaterTests {
    private func deflate(_ bytes: [UInt8]) -> [UInt8] {
        var output = [UInt8](repeating: 0, count: PNGDeflater.bound(bytes.count))
        let count = bytes.withUnsafeBytes { input in
            output.withUnsafeMutableBytes { PNGDeflater().compress(input, into: $0) }
        }
        return Array(output.prefix(count))
    }

    private func noise(_ count: Int, seed: UInt32 = 99) -> [UInt8] {
        var state = seed
        return (0..<count).map { _ in
            state = state &* 1_103_515_245 &+ 12345
            return UInt8(truncatingIfNeeded: state >> 16)
        }
    }

    struct Stream: CustomTestStringConvertible, Sendable {
        let name: String
        let bytes: [UInt8]
        var testDescription: String { name }
    }

    /// Edges of the run finder and the block splitter: nothing to repeat yet, runs of the shortest and longest
    /// lengths and one past, a run crossing a block boundary, a tail too short to compare.
    @Test(arguments: [
        Stream(name: "empty", bytes: []),
        Stream(name: "one byte", bytes: [7]),
        Stream(name: "one pixel", bytes: [1, 2, 3]),
        Stream(name: "one pixel and a byte", bytes: [0, 0, 0, 0]),
        Stream(name: "every byte value once", bytes: (0...255).map(UInt8.init)),
        Stream(name: "a few high bytes", bytes: [144, 200, 255, 150, 143, 0]),
        Stream(name: "shortest run", bytes: [9, 8, 7, 9, 8, 7, 9]),
        Stream(name: "longest run", bytes: [UInt8](repeating: 0, count: 3 + 258)),
        Stream(name: "longest run and one", bytes: [UInt8](repeating: 5, count: 3 + 259)),
        Stream(name: "runs after literals", bytes: [1, 2] + [UInt8](repeating: 3, count: 1000)),
        Stream(name: "runs across blocks", bytes: (0..<(PNGDeflater.blockBytes + 5000)).map {
            UInt8(truncatingIfNeeded: $0 % 3 == 0 ? 200 : $0 / 999)
        }),
    ])
    func inflatesBackToTheInput(_ stream: Stream) {
        #expect(inflateZlib(deflate(stream.bytes), expecting: stream.bytes.count) == stream.bytes)
    }

    /// Appended in uneven pieces of one buffer (so runs may look back across a piece's start), and ended without
    /// a last piece: still one whole stream of the input.
    @Test func piecesMakeOneStream() {
        let bytes = noise(300_000).enumerated().map { $0.offset % 7 < 4 ? 9 : $0.element % 4 }
        var output = [UInt8](repeating: 0, count: PNGDeflater.bound(bytes.count))
        let count = bytes.withUnsafeBytes { input in
            output.withUnsafeMutableBytes { output in
                let deflater = PNGDeflater()
                deflater.begin(into: output, inputCount: input.count)
                var start = 0
                for length in [1, 2, 5, 4000, 70_000, PNGDeflater.blockBytes] {
                    let end = min(start + length, input.count)
                    deflater.append(UnsafeRawBufferPointer(rebasing: input[start..<end]), isLast: false)
                    start = end
                }
                return deflater.end()
            }
        }
        #expect(inflateZlib(Array(output.prefix(count)), expecting: bytes.count) == bytes)
    }

    /// `combinedChecksum` against libdeflate's Adler-32 of the two sequences laid end to end, at lengths around
    /// the modulus (65521) and with one side empty.
    @Test func checksumsCombineAsTheirConcatenations() {
        let bytes = noise(400_000, seed: 7).map { $0 | 0x80 }  // high bytes, so that sums pass the modulus quickly
        func adler(_ slice: ArraySlice<UInt8>) -> UInt32 {
            slice.isEmpty ? 1 : slice.withUnsafeBytes { libdeflate_adler32(1, $0.baseAddress, $0.count) }
        }
        for (firstCount, secondCount) in [(0, 0), (0, 10), (10, 0), (1, 1), (65520, 1), (65521, 65521), (5552, 394_448),
                                          (300_000, 100_000)] {
            let first = bytes[..<firstCount], second = bytes[firstCount..<(firstCount + secondCount)]
            #expect(PNGDeflater.combinedChecksum(adler(first), adler(second), secondCount: secondCount)
                    == adler(bytes[..<(firstCount + secondCount)]), "\(firstCount) + \(secondCount) bytes")
        }
    }

    /// Pieces deflated by different deflaters (a run at each one's start, which must not look back into the
    /// piece before; an empty piece; a piece over several blocks), laid end to end between the zlib header and
    /// the combined checksum, are one stream that libdeflate, checking the checksum, inflates to the input.
    @Test func piecesDeflatedApartMakeOneStream() {
        let bytes = noise(700_000, seed: 3).enumerated().map { $0.offset % 11 < 6 ? 4 : $0.element % 3 }
        let cuts = [0, 5, 5, 1000, 600_000, bytes.count]
        var stream = PNGDeflater.zlibHeader, checksum: UInt32 = 1
        for (index, (start, end)) in zip(cuts, cuts.dropFirst()).enumerated() {
            let piece = Array(bytes[start..<end])
            var output = [UInt8](repeating: 0, count: PNGDeflater.bound(piece.count))
            let deflater = PNGDeflater()
            let count = piece.withUnsafeBytes { input in
                output.withUnsafeMutableBytes { output in
                    deflater.begin(into: output, inputCount: input.count,
                                   part: end == bytes.count ? .lastPiece : .piece)
                    deflater.append(input, isLast: true)
                    return deflater.end()
                }
            }
            stream += output.prefix(count)
            checksum = PNGDeflater.combinedChecksum(checksum, deflater.checksum, secondCount: piece.count)
            #expect(index == cuts.count - 2 || output.prefix(count).suffix(4) == [0, 0, 0xFF, 0xFF],
                    "piece \(index) ends in a sync flush")
        }
        stream += [24, 16, 8, 0].map { UInt8(truncatingIfNeeded: checksum >> $0) }
        #expect(inflateZlib(stream, expecting: bytes.count) == bytes)
    }

    /// Streams built from random pieces (runs of every length at several distances, noise, small differences),
    /// each of random size up to several blocks, from fixed seeds: every one must inflate to its input.
    @Test func randomStreamsInflateBackToTheirInput() {
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        func next(_ bound: Int) -> Int {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int((state >> 33) % UInt64(bound))
        }
        for _ in 0..<60 {
            var bytes: [UInt8] = []
            let target = next(3 * PNGDeflater.blockBytes / 2)
            while bytes.count < target {
                let length = 1 + next(600)
                switch next(4) {
                case 0: bytes += (0..<length).map { _ in UInt8(next(256)) }
                case 1: bytes += (0..<length).map { _ in [0, 1, 255, 2, 254][next(5)] }
                default:
                    let distance = 1 + next(6)
                    while bytes.count < distance { bytes.append(UInt8(next(256))) }
                    for _ in 0..<length { bytes.append(bytes[bytes.count - distance]) }
                }
            }
            #expect(inflateZlib(deflate(bytes), expecting: bytes.count) == bytes, "\(bytes.count) bytes")
        }
    }

    @Test func noiseIsStoredNotExpanded() {
        let bytes = noise(3 * 65535 + 17)
        let stream = deflate(bytes)
        #expect(inflateZlib(stream, expecting: bytes.count) == bytes)
        // zlib header and checksum, and 5 bytes per stored block of at most 65535.
        #expect(stream.count <= bytes.count + 6 + 5 * 4 + 1)
    }

    /// A repeated pixel is one literal per channel, then runs: coded as literals it would take a bit or more per
    /// byte, an eighth of the input.
    @Test func repeatedPixelsBecomeRuns() {
        let bytes = (0..<(1 << 20)).map { [UInt8(40), 200, 7][$0 % 3] }
        let stream = deflate(bytes)
        #expect(inflateZlib(stream, expecting: bytes.count) == bytes)
        #expect(stream.count < bytes.count / 100)
    }

    /// Small differences (what the Up filter leaves on smooth pictures) get short codes: under half the input
    /// where noise of the same length does not shrink at all.
    @Test func skewedBytesGetShortCodes() {
        let bytes = noise(200_000).map { [0, 0, 0, 1, 1, 255, 2, 254][Int($0 % 8)] as UInt8 }
        let stream = deflate(bytes)
        #expect(inflateZlib(stream, expecting: bytes.count) == bytes)
        #expect(stream.count < bytes.count / 2)
    }
}

/// A run's parts go out as one 32-bit word (`PNGDeflater.runCode`), which holds only while runs have one distance.
@Suite struct RunCodeTests {
    /// The bits of `value`, lowest first, as deflate sends them.
    private func bits(_ value: UInt64, _ count: UInt32) -> [Bool] { (0..<Int(count)).map { value >> $0 & 1 == 1 } }

    @Test func aRunsPartsFollowEachOtherLowBitsFirst() {
        // The widest a run can be: a 15-bit length code, 5 extra bits, a 5-bit (fixed) distance code.
        for (length, extra, distance) in [((UInt32(0x5A5A), UInt32(15)), (UInt32(0x13), UInt32(5)), (UInt32(0x0B), UInt32(5))),
                                          ((0x3, 2), (0, 0), (0x1, 1)), ((0x7FFF, 15), (0x1F, 5), (0x1F, 5))] {
            let run = PNGDeflater.runCode(length: length, extra: extra, distance: distance)
            #expect(Int(run.bits) == Int(length.1 + extra.1 + distance.1))
            #expect(bits(UInt64(run.code), UInt32(run.bits))
                == bits(UInt64(length.0), length.1) + bits(UInt64(extra.0), extra.1) + bits(UInt64(distance.0), distance.1))
        }
    }

    @Test func aSecondDistanceTrapsInsteadOfOverflowing() async {
        // A 15-bit distance code, as a second distance symbol could get, would need 35 bits.
        await #expect(processExitsWith: .failure) {
            _ = PNGDeflater.runCode(length: (0x7FFF, 15), extra: (0x1F, 5), distance: (0x7FFF, 15))
        }
    }
}

@Suite struct HuffmanCodeTests {
    private func lengths(_ frequencies: [UInt32], limit: Int = 15) -> [Int] {
        var lengths = [UInt8](repeating: 0, count: frequencies.count)
        frequencies.withUnsafeBufferPointer { frequencies in
            lengths.withUnsafeMutableBufferPointer {
                HuffmanCode.lengths(of: frequencies.baseAddress!, count: frequencies.count, limit: limit,
                                    into: $0.baseAddress!)
            }
        }
        return lengths.map(Int.init)
    }

    /// Kraft's sum over the used symbols: exactly 1 for a complete prefix code.
    private func isComplete(_ lengths: [Int]) -> Bool {
        lengths.filter { $0 > 0 }.reduce(0.0) { $0 + pow(2, -Double($1)) } == 1
    }

    /// Frequencies that are powers of two have the code lengths -log2(p) exactly.
    @Test func dyadicFrequenciesGetTheirExactLengths() {
        #expect(lengths([8, 4, 2, 1, 1, 0]) == [1, 2, 3, 4, 4, 0])
    }

    /// Fibonacci frequencies make the deepest trees: unlimited, 40 symbols would need codes 39 bits long.
    @Test func deepTreesAreLimitedAndStayComplete() {
        var fibonacci: [UInt32] = [1, 1]
        while fibonacci.count < 40 { fibonacci.append(fibonacci[fibonacci.count - 1] + fibonacci[fibonacci.count - 2]) }
        for limit in [7, 15] {
            let result = lengths(fibonacci, limit: limit)
            #expect(result.max()! == limit)
            #expect(isComplete(result))
        }
    }

    /// zlib refuses a code with a single symbol: a second one gets a code too.
    @Test func aLoneSymbolStillMakesACompleteCode() {
        let result = lengths([0, 0, 5, 0])
        #expect(result[2] == 1 && result.filter { $0 == 1 }.count == 2)
        #expect(isComplete(lengths([0, 0, 0])))
    }
}
