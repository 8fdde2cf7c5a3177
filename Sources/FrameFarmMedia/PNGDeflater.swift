import CDeflate

/// Writes the zlib stream (RFC 1950/1951) of a PNG's filtered RGB rows, built for speed on pictures: each position
/// is either a literal byte or a run repeating the bytes one pixel back (flat areas, bars, and the zeros the Up
/// filter leaves wherever a row equals the one above), coded with Huffman tables fitted to each block. A general
/// matcher looks up every position in a hash table and finds little more in filtered pictures: on a preview's
/// renders this wrote 4% fewer bytes than libdeflate's fastest level, three times as fast.
///
/// Ownership: owns its scratch; not thread-safe (one per encoder).
final class PNGDeflater {
    /// Input bytes per deflate block: each has its own code tables (bars and picture differ), and the block's
    /// tokens stay in cache.
    static let blockBytes = 1 << 18
    /// The distance every run repeats from: one RGB pixel.
    static let runDistance = 3
    private static let longestRun = 258
    /// Deflate's distance code for `runDistance`.
    private static let runDistanceSymbol = 2
    private static let endOfBlock = 256
    private static let literalSymbols = 286, distanceSymbols = 30
    /// The fixed code's canonical order also counts literal/length symbols 286 and 287, which never occur.
    private static let fixedLiteralSymbols = 288

    /// One per position of a block: below 256 a literal byte, else 256 + the length of a run.
    private let tokens = UnsafeMutablePointer<UInt16>.allocate(capacity: blockBytes)
    /// Tokens of the block by value.
    private static let tokenValues = 256 + longestRun + 1
    private let tokenFrequencies = UnsafeMutablePointer<UInt32>.allocate(capacity: tokenValues)
    private let literalFrequencies = UnsafeMutablePointer<UInt32>.allocate(capacity: literalSymbols)
    private let distanceFrequencies = UnsafeMutablePointer<UInt32>.allocate(capacity: distanceSymbols)
    private let literalLengths = UnsafeMutablePointer<UInt8>.allocate(capacity: fixedLiteralSymbols)
    private let distanceLengths = UnsafeMutablePointer<UInt8>.allocate(capacity: distanceSymbols)
    private let literalCodes = UnsafeMutablePointer<UInt32>.allocate(capacity: fixedLiteralSymbols)
    private let distanceCodes = UnsafeMutablePointer<UInt32>.allocate(capacity: distanceSymbols)
    /// Per token value: its whole code (a run's length code, extra bits and distance code together) and bit count.
    private let tokenCodes = UnsafeMutablePointer<UInt32>.allocate(capacity: tokenValues)
    private let tokenBitCounts = UnsafeMutablePointer<UInt8>.allocate(capacity: tokenValues)

    /// What `begin` writes: a whole zlib stream, or one piece of a stream whose pieces are deflated apart.
    enum Part {
        /// A zlib stream (RFC 1950): header, deflate data ending in the final block, Adler-32 of the input.
        case whole
        /// Raw deflate data without a final block, ended on a byte boundary by an empty stored block (what zlib
        /// calls a sync flush), so that the next piece's data may follow it byte for byte. Runs never look back
        /// before the piece's start, so it decodes the same after any bytes.
        case piece
        /// Raw deflate data ending in the final block, on a byte boundary.
        case lastPiece
    }

    /// The stream being written, between `begin` and `end`.
    private var writer: BitWriter?
    private var part = Part.whole
    /// Adler-32 of the bytes appended since `begin`: a piece's, for `combinedChecksum`.
    private(set) var checksum: UInt32 = 1
    private var bytesIn = 0
    private var wroteFinalBlock = false

    init() {}

    deinit {
        for pointer in [UnsafeMutableRawPointer(tokens), UnsafeMutableRawPointer(tokenFrequencies),
                        UnsafeMutableRawPointer(literalFrequencies),
                        UnsafeMutableRawPointer(distanceFrequencies), UnsafeMutableRawPointer(literalLengths),
                        UnsafeMutableRawPointer(distanceLengths), UnsafeMutableRawPointer(literalCodes),
                        UnsafeMutableRawPointer(distanceCodes), UnsafeMutableRawPointer(tokenCodes),
                        UnsafeMutableRawPointer(tokenBitCounts)] {
            pointer.deallocate()
        }
    }

    /// The most bytes a stream of `count` input bytes takes: each block is written stored when coding would not
    /// make it smaller.
    static func bound(_ count: Int) -> Int {
        let blocks = count / blockBytes + 1
        let storedBlocks = count / 65535 + blocks
        return 2 + count + 5 * storedBlocks + blocks + 4 + 8
    }

    /// Compresses `input` into `output` (at least `bound(input.count)` bytes) and returns the bytes written.
    func compress(_ input: UnsafeRawBufferPointer, into output: UnsafeMutableRawBufferPointer) -> Int {
        begin(into: output, inputCount: input.count)
        append(input, isLast: true)
        return end()
    }

    /// Starts a stream (or `part` of one) into `output`, which must hold `bound(inputCount)` bytes and outlive the
    /// stream: the stream's input may then be appended in pieces, so it never needs to be in memory at once.
    func begin(into output: UnsafeMutableRawBufferPointer, inputCount: Int, part: Part = .whole) {
        precondition(output.count >= Self.bound(inputCount), "output buffer below PNGDeflater.bound")
        var writer = BitWriter(output.baseAddress!.assumingMemoryBound(to: UInt8.self))
        if part == .whole { for byte in Self.zlibHeader { writer.put(UInt32(byte), 8) } }
        self.writer = writer
        self.part = part
        checksum = 1
        bytesIn = 0
        wroteFinalBlock = false
    }

    /// The stream's next bytes. Runs look back into the bytes appended before: the `runDistance` bytes in memory
    /// just before `bytes` must be the last ones appended (none are read at the stream's start).
    func append(_ bytes: UnsafeRawBufferPointer, isLast: Bool) {
        guard var writer else { preconditionFailure("PNGDeflater.append before begin") }
        let source = bytes.baseAddress.map { $0.assumingMemoryBound(to: UInt8.self) }
            ?? UnsafePointer(bitPattern: 1)!
        var start = 0
        repeat {
            let end = min(start + Self.blockBytes, bytes.count)
            writeBlock(source + start, count: end - start, history: min(bytesIn + start, Self.runDistance),
                       isFinal: isLast && part != .piece && end == bytes.count, to: &writer)
            start = end
        } while start < bytes.count
        // Never with no bytes: given no buffer, libdeflate (like zlib) returns the initial checksum instead.
        if !bytes.isEmpty { checksum = libdeflate_adler32(checksum, bytes.baseAddress, bytes.count) }
        bytesIn += bytes.count
        wroteFinalBlock = isLast
        self.writer = writer
    }

    /// Ends the stream and returns its length in bytes. A stream whose last `append` did not say `isLast` (or
    /// that had none) gets an empty final block, so it is still a whole stream; a `piece` gets its sync flush.
    func end() -> Int {
        if part != .piece && !wroteFinalBlock { append(UnsafeRawBufferPointer(start: nil, count: 0), isLast: true) }
        guard var writer else { preconditionFailure("PNGDeflater.end before begin") }
        if part == .piece {
            writer.put(0, 3)  // not final, stored
            writer.alignToByte()
            writer.put(0, 16)  // no bytes
            writer.put(0xFFFF, 16)
        }
        writer.alignToByte()
        if part == .whole { for shift in [24, 16, 8, 0] { writer.put(checksum >> UInt32(shift) & 0xFF, 8) } }
        self.writer = nil
        return writer.finish()
    }

    /// The zlib header of every stream: deflate with a 32 KiB window, the fastest-compression hint, no
    /// dictionary; (0x7801) % 31 == 0 (RFC 1950, 2.2).
    static let zlibHeader: [UInt8] = [0x78, 0x01]

    /// The Adler-32 of two byte sequences laid end to end, from each one's own and the second's length (RFC 1950,
    /// 8.2): A sums the bytes from 1 and B sums A after each byte. The second sequence's bytes all come after the
    /// first's, so its A gains the first's A less the starting 1, and its B gains that once per byte.
    static func combinedChecksum(_ first: UInt32, _ second: UInt32, secondCount: Int) -> UInt32 {
        let modulus: UInt64 = 65521
        let firstA = UInt64(first & 0xFFFF), firstB = UInt64(first >> 16)
        let secondA = UInt64(second & 0xFFFF), secondB = UInt64(second >> 16)
        let count = UInt64(secondCount) % modulus
        let a = (firstA + secondA + modulus - 1) % modulus
        let b = (firstB + secondB + count * ((firstA + modulus - 1) % modulus)) % modulus
        return UInt32(b << 16 | a)
    }

    /// One block of `count` bytes from `source`, after `history` bytes that runs may repeat.
    private func writeBlock(_ source: UnsafePointer<UInt8>, count: Int, history: Int, isFinal: Bool,
                            to writer: inout BitWriter) {
        let tokenCount = tokenize(source, count: count, history: history)
        HuffmanCode.lengths(of: literalFrequencies, count: Self.literalSymbols, limit: 15, into: literalLengths)
        literalLengths[Self.literalSymbols] = 0
        literalLengths[Self.literalSymbols + 1] = 0
        HuffmanCode.lengths(of: distanceFrequencies, count: Self.distanceSymbols, limit: 15, into: distanceLengths)
        let header = DynamicHeader(literalLengths: literalLengths, distanceLengths: distanceLengths)
        // Extra bits cost the same under either code, and stored blocks carry whole bytes: the smallest wins.
        let dynamicBits = header.bitCount + codedBits(literalLengths, distanceLengths)
        let fixedBits = Self.fixedLiteralLengths.withUnsafeBufferPointer { literal in
            Self.fixedDistanceLengths.withUnsafeBufferPointer { 3 + codedBits(literal.baseAddress!, $0.baseAddress!) }
        }
        let storedBits = 8 * (5 * (count / 65535 + 1) + count) + 7
        if storedBits <= min(dynamicBits, fixedBits) {
            writeStored(UnsafeRawBufferPointer(start: source, count: count), isFinal: isFinal, to: &writer)
            return
        }
        writer.put(isFinal ? 1 : 0, 1)
        if dynamicBits < fixedBits {
            writer.put(2, 2)
            header.write(to: &writer)
        } else {
            writer.put(1, 2)
            literalLengths.update(from: Self.fixedLiteralLengths, count: Self.fixedLiteralSymbols)
            distanceLengths.update(from: Self.fixedDistanceLengths, count: Self.distanceSymbols)
        }
        writeTokens(count: tokenCount, to: &writer)
    }

    /// Splits source[0..<end] into literals and runs, and counts each symbol (with one end-of-block).
    private func tokenize(_ source: UnsafePointer<UInt8>, count end: Int, history: Int) -> Int {
        // Counted per token value first: one table, and no length-symbol lookup per run.
        tokenFrequencies.initialize(repeating: 0, count: Self.tokenValues)
        var position = 0, count = 0
        @inline(__always) func emit(_ token: Int, advance: Int) {
            tokens[count] = UInt16(truncatingIfNeeded: token)
            tokenFrequencies[token] &+= 1
            count &+= 1
            position &+= advance
        }
        // A run needs a pixel behind it, and four bytes to compare at once.
        while position < min(end, Self.runDistance - history) { emit(Int(source[position]), advance: 1) }
        let raw = UnsafeRawPointer(source)
        while position + 4 <= end {
            let here = raw.loadUnaligned(fromByteOffset: position, as: UInt32.self)
            let behind = raw.loadUnaligned(fromByteOffset: position - Self.runDistance, as: UInt32.self)
            guard here == behind else {
                emit(Int(source[position]), advance: 1)
                continue
            }
            let longest = min(Self.longestRun, end - position)
            var length = 4
            while length < longest {
                if length + 8 <= longest {
                    let difference = raw.loadUnaligned(fromByteOffset: position + length, as: UInt64.self)
                        ^ raw.loadUnaligned(fromByteOffset: position + length - Self.runDistance, as: UInt64.self)
                    if difference != 0 {
                        length += difference.littleEndian.trailingZeroBitCount / 8
                        break
                    }
                    length += 8
                } else {
                    if source[position + length] != source[position + length - Self.runDistance] { break }
                    length += 1
                }
            }
            emit(256 + length, advance: length)
        }
        while position < end { emit(Int(source[position]), advance: 1) }
        literalFrequencies.initialize(repeating: 0, count: Self.literalSymbols)
        distanceFrequencies.initialize(repeating: 0, count: Self.distanceSymbols)
        literalFrequencies.update(from: tokenFrequencies, count: 256)
        for length in 3...Self.longestRun {
            let runs = tokenFrequencies[256 + length]
            literalFrequencies[Int(Self.lengthSymbol(length))] += runs
            distanceFrequencies[Self.runDistanceSymbol] += runs
        }
        literalFrequencies[Self.endOfBlock] = 1
        return count
    }

    /// Bits of the block's symbols and their extra bits under the given code lengths.
    private func codedBits(_ literalLengths: UnsafePointer<UInt8>, _ distanceLengths: UnsafePointer<UInt8>) -> Int {
        var bits = 0
        for symbol in 0..<Self.literalSymbols {
            let extraBits = symbol > 256 ? Int(Self.lengthExtraBits(symbol: symbol)) : 0
            bits += Int(literalFrequencies[symbol]) * (Int(literalLengths[symbol]) + extraBits)
        }
        return bits + Int(distanceFrequencies[Self.runDistanceSymbol]) * Int(distanceLengths[Self.runDistanceSymbol])
    }

    /// Deflate's fixed code (RFC 1951, 3.2.6).
    private static let fixedLiteralLengths: [UInt8] = (0..<fixedLiteralSymbols).map {
        $0 < 144 ? 8 : $0 < 256 ? 9 : $0 < 280 ? 7 : 8
    }
    private static let fixedDistanceLengths = [UInt8](repeating: 5, count: distanceSymbols)

    private func writeTokens(count: Int, to writer: inout BitWriter) {
        HuffmanCode.codes(for: literalLengths, count: Self.fixedLiteralSymbols, into: literalCodes)
        HuffmanCode.codes(for: distanceLengths, count: Self.distanceSymbols, into: distanceCodes)
        for byte in 0..<256 {
            tokenCodes[byte] = literalCodes[byte]
            tokenBitCounts[byte] = literalLengths[byte]
        }
        let distance = (code: distanceCodes[Self.runDistanceSymbol],
                        bits: UInt32(distanceLengths[Self.runDistanceSymbol]))
        for length in 3...Self.longestRun {
            let (symbol, base) = Self.lengthTable[length]
            let extra = (value: UInt32(length) - base, bits: Self.lengthExtraBits(symbol: Int(symbol)))
            (tokenCodes[256 + length], tokenBitCounts[256 + length]) = Self.runCode(
                length: (literalCodes[Int(symbol)], UInt32(literalLengths[Int(symbol)])), extra: extra, distance: distance)
        }
        for index in 0..<count {
            let token = Int(tokens[index])
            writer.put(tokenCodes[token], Int(tokenBitCounts[token]))
        }
        writer.put(literalCodes[Self.endOfBlock], Int(literalLengths[Self.endOfBlock]))
    }

    /// A run's whole code, written in one `BitWriter.put`: the length symbol's code, the length's extra bits, then
    /// the distance's code. It fits 32 bits only because every run has the one distance `runDistance`: its code is
    /// 1 bit in a dynamic block (two distance symbols, for a complete code) or 5 in a fixed one, so a run takes at
    /// most 15 + 5 + 5 bits. A second distance could take 15 bits and pass 32: that traps here, never overflows.
    static func runCode(length: (code: UInt32, bits: UInt32), extra: (value: UInt32, bits: UInt32),
                        distance: (code: UInt32, bits: UInt32)) -> (code: UInt32, bits: UInt8) {
        let bits = length.bits + extra.bits + distance.bits
        precondition(bits <= 32, "a run's code of \(bits) bits does not fit the 32-bit word BitWriter.put takes")
        let code = UInt64(length.code) | UInt64(extra.value) << length.bits | UInt64(distance.code) << (length.bits + extra.bits)
        return (UInt32(code), UInt8(bits))
    }

    /// Stored blocks of at most 65535 bytes each (RFC 1951, 3.2.4).
    private func writeStored(_ bytes: UnsafeRawBufferPointer, isFinal: Bool, to writer: inout BitWriter) {
        var offset = 0
        repeat {
            let length = min(65535, bytes.count - offset)
            writer.put(isFinal && offset + length == bytes.count ? 1 : 0, 1)
            writer.put(0, 2)
            writer.alignToByte()
            writer.put(UInt32(length), 16)
            writer.put(UInt32(~UInt16(length)), 16)
            writer.append(UnsafeRawBufferPointer(rebasing: bytes[offset..<(offset + length)]))
            offset += length
        } while offset < bytes.count
    }

    /// Length symbol 257...285 for a run of 3...258 bytes (RFC 1951, 3.2.5).
    private static func lengthSymbol(_ length: Int) -> UInt32 { lengthTable[length].symbol }

    private static func lengthExtraBits(symbol: Int) -> UInt32 {
        symbol < 265 || symbol == 285 ? 0 : UInt32(symbol - 261) / 4
    }

    /// Per run length, its symbol and the first length that symbol codes (the extra bits count up from it).
    private static let lengthTable: [(symbol: UInt32, base: UInt32)] = {
        var table = [(symbol: UInt32, base: UInt32)](repeating: (0, 0), count: longestRun + 1)
        var base = 3
        for symbol in 257...284 {
            let span = symbol == 284 ? 31 : 1 << lengthExtraBits(symbol: symbol)  // 284 stops at 257
            for length in base..<(base + span) { table[length] = (UInt32(symbol), UInt32(base)) }
            base += span
        }
        table[longestRun] = (285, UInt32(longestRun))
        return table
    }()
}

/// The code-length part of a dynamic block's header (RFC 1951, 3.2.7): the literal/length and distance code
/// lengths as one sequence, run-length coded, under a code of its own.
private struct DynamicHeader {
    /// Symbols 0...18 of the code-length alphabet, each with its extra bits.
    private let items: [(symbol: Int, extra: UInt32, extraBits: Int)]
    private let literalCount: Int, distanceCount: Int
    private let lengths: [UInt8], codes: [UInt32]
    private let sentCount: Int
    /// The order code-length code lengths are sent in.
    private static let order = [16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15]

    init(literalLengths: UnsafePointer<UInt8>, distanceLengths: UnsafePointer<UInt8>) {
        var literalCount = 286, distanceCount = 30
        while literalCount > 257, literalLengths[literalCount - 1] == 0 { literalCount -= 1 }
        while distanceCount > 1, distanceLengths[distanceCount - 1] == 0 { distanceCount -= 1 }
        self.literalCount = literalCount
        self.distanceCount = distanceCount
        let sequence = (0..<literalCount).map { literalLengths[$0] } + (0..<distanceCount).map { distanceLengths[$0] }
        var items: [(symbol: Int, extra: UInt32, extraBits: Int)] = []
        var index = 0
        while index < sequence.count {
            let length = sequence[index]
            var run = 1
            while index + run < sequence.count, sequence[index + run] == length { run += 1 }
            index += run
            if length == 0 {
                while run >= 11 {
                    let repeats = min(138, run)
                    items.append((18, UInt32(repeats - 11), 7))
                    run -= repeats
                }
                if run >= 3 {
                    items.append((17, UInt32(run - 3), 3))
                    run = 0
                }
            } else {
                items.append((Int(length), 0, 0))
                run -= 1
                while run >= 3 {
                    let repeats = min(6, run)
                    items.append((16, UInt32(repeats - 3), 2))
                    run -= repeats
                }
            }
            items += repeatElement((symbol: Int(length), extra: UInt32(0), extraBits: 0), count: run)
        }
        self.items = items
        var frequencies = [UInt32](repeating: 0, count: 19)
        for item in items { frequencies[item.symbol] += 1 }
        var lengths = [UInt8](repeating: 0, count: 19), codes = [UInt32](repeating: 0, count: 19)
        frequencies.withUnsafeBufferPointer { frequencies in
            lengths.withUnsafeMutableBufferPointer {
                HuffmanCode.lengths(of: frequencies.baseAddress!, count: 19, limit: 7, into: $0.baseAddress!)
            }
        }
        lengths.withUnsafeBufferPointer { lengths in
            codes.withUnsafeMutableBufferPointer {
                HuffmanCode.codes(for: lengths.baseAddress!, count: 19, into: $0.baseAddress!)
            }
        }
        var sentCount = 19
        while sentCount > 4, lengths[Self.order[sentCount - 1]] == 0 { sentCount -= 1 }
        self.sentCount = sentCount
        self.lengths = lengths
        self.codes = codes
    }

    /// The block header's bits, its 3-bit block type included.
    var bitCount: Int {
        3 + 5 + 5 + 4 + 3 * sentCount + items.reduce(0) { $0 + Int(lengths[$1.symbol]) + $1.extraBits }
    }

    func write(to writer: inout BitWriter) {
        writer.put(UInt32(literalCount - 257), 5)
        writer.put(UInt32(distanceCount - 1), 5)
        writer.put(UInt32(sentCount - 4), 4)
        for symbol in Self.order.prefix(sentCount) { writer.put(UInt32(lengths[symbol]), 3) }
        for item in items {
            writer.put(codes[item.symbol], Int(lengths[item.symbol]))
            writer.put(item.extra, item.extraBits)
        }
    }
}
