import Foundation
import FrameFarmCore
import Testing
@testable import FrameFarmMedia

/// An ISO BMFF reader written for these tests, independent of the production `MP4Boxes`, so that a shared bug
/// cannot hide itself.
private struct BoxReader {
    struct Box {
        let type: String
        let start: Int
        let body: Int
        let end: Int
    }

    let bytes: [UInt8]

    func u8(_ at: Int) -> Int { Int(bytes[at]) }
    func u16(_ at: Int) -> Int { Int(bytes[at]) << 8 | Int(bytes[at + 1]) }
    func u32(_ at: Int) -> Int { u16(at) << 16 | u16(at + 2) }
    func u64(_ at: Int) -> Int { u32(at) << 32 | u32(at + 4) }

    func boxes(from start: Int, to end: Int) -> [Box] {
        var result: [Box] = []
        var position = start
        while position + 8 <= end {
            var size = u32(position), body = position + 8
            if size == 1 {
                size = u64(position + 8)
                body += 8
            } else if size == 0 {
                size = end - position
            }
            let type = String(bytes: bytes[(position + 4)..<(position + 8)], encoding: .ascii) ?? "????"
            result.append(Box(type: type, start: position, body: body, end: position + size))
            position += size
        }
        return result
    }

    var topLevel: [Box] { boxes(from: 0, to: bytes.count) }

    /// The first box at the end of a path of types below `box` (full boxes skip their 4-byte version and flags
    /// only where they hold children, which none on these paths does).
    func find(_ path: [String], in box: Box) -> Box? {
        var current = box
        for type in path {
            guard let next = boxes(from: current.body, to: current.end).first(where: { $0.type == type }) else {
                return nil
            }
            current = next
        }
        return current
    }
}

/// What the test reads from one moof: the decode time and the one sample it describes.
private struct FragmentSample {
    var sampleCount: Int
    var decodeTime: Int
    var duration: Int
    var size: Int
    var dataStart: Int
    var flags: Int
}

private extension BoxReader {
    func sample(in moof: Box) -> FragmentSample? {
        guard let tfhd = find(["traf", "tfhd"], in: moof), let tfdt = find(["traf", "tfdt"], in: moof),
              let trun = find(["traf", "trun"], in: moof) else { return nil }
        let tfhdFlags = u32(tfhd.body) & 0xFF_FFFF
        var position = tfhd.body + 8, base = moof.start
        var duration = 0, size = 0, flags = 0
        if tfhdFlags & 0x01 != 0 { base = u64(position); position += 8 }
        if tfhdFlags & 0x02 != 0 { position += 4 }
        if tfhdFlags & 0x08 != 0 { duration = u32(position); position += 4 }
        if tfhdFlags & 0x10 != 0 { size = u32(position); position += 4 }
        if tfhdFlags & 0x20 != 0 { flags = u32(position) }
        let decodeTime = u8(tfdt.body) == 1 ? u64(tfdt.body + 4) : u32(tfdt.body + 4)

        let trunFlags = u32(trun.body) & 0xFF_FFFF
        let count = u32(trun.body + 4)
        position = trun.body + 8
        var dataOffset = 0
        if trunFlags & 0x001 != 0 { dataOffset = Int(Int32(truncatingIfNeeded: u32(position))); position += 4 }
        if trunFlags & 0x004 != 0 { flags = u32(position); position += 4 }
        if trunFlags & 0x100 != 0 { duration = u32(position); position += 4 }
        if trunFlags & 0x200 != 0 { size = u32(position); position += 4 }
        if trunFlags & 0x400 != 0 { flags = u32(position) }
        return FragmentSample(sampleCount: count, decodeTime: decodeTime, duration: duration, size: size,
                              dataStart: base + dataOffset, flags: flags)
    }

    /// The first sample entry of the track's stsd, with the boxes inside it.
    func sampleEntry(in moov: Box) -> (type: String, width: Int, height: Int, children: [Box])? {
        guard let stsd = find(["trak", "mdia", "minf", "stbl", "stsd"], in: moov),
              let entry = boxes(from: stsd.body + 8, to: stsd.end).first else { return nil }
        // VisualSampleEntry: 8 bytes of SampleEntry, 16 reserved, width, height, ... 78 bytes before children.
        return (entry.type, u16(entry.body + 24), u16(entry.body + 26), boxes(from: entry.body + 78, to: entry.end))
    }

    func timescale(in moov: Box) -> Int? {
        guard let mdhd = find(["trak", "mdia", "mdhd"], in: moov) else { return nil }
        return u8(mdhd.body) == 1 ? u32(mdhd.body + 20) : u32(mdhd.body + 12)
    }
}

@Suite struct IFrameSequenceTests {
    static let width = 160, height = 90

    /// Solid colours with a horizontal ramp, so each JPEG has its own bytes and size.
    private func jpegs(count: Int) throws -> [Data] {
        let encoder = ImageEncoder()
        return try (0..<count).map { index in
            var image = RGBAImage(width: Self.width, height: Self.height,
                                  fill: (UInt8(40 * index), UInt8(200 - 30 * index), 90, 255))
            for y in 0..<Self.height {
                for x in 0..<(Self.width / (index + 1)) { image.pixels[(y * Self.width + x) * 4 + 2] = UInt8(x) }
            }
            return try encoder.encode(image, format: .jpeg, quality: 80)
        }
    }

    // Starts after 0 so that a muxer shifting the sequence to 0 fails the time checks.
    private let times = [0.5, 2.5, 5.001, 6.25]
    private let durations = [2.0, 2.501, 1.249, 2.0]

    private func writeSequence(in directory: TemporaryDirectory) throws -> (IFrameSequence, [Data], String) {
        let inputs = try jpegs(count: times.count)
        let path = directory.file("iframes.mp4")
        let sequence = try IFrameSequenceWriter.write(jpegs: inputs, width: Self.width, height: Self.height,
                                                      times: times, durations: durations, to: path)
        return (sequence, inputs, path)
    }

    @Test func fileIsInitSegmentThenOneMoofMdatPairPerJPEG() throws {
        let directory = TemporaryDirectory()
        let (sequence, inputs, path) = try writeSequence(in: directory)
        let reader = BoxReader(bytes: [UInt8](try Data(contentsOf: URL(fileURLWithPath: path))))
        let top = reader.topLevel
        #expect(top.last?.end == reader.bytes.count)
        try #require(top.count >= 2 + 2 * inputs.count)
        #expect(top[0].type == "ftyp" && top[0].start == 0)
        #expect(top[1].type == "moov")
        #expect(sequence.initSegmentLength == top[1].end)
        #expect(top[(2 + 2 * inputs.count)...].allSatisfy { $0.type == "mfra" })

        try #require(sequence.fragments.count == inputs.count)
        for (index, fragment) in sequence.fragments.enumerated() {
            let moof = top[2 + 2 * index], mdat = top[3 + 2 * index]
            #expect(moof.type == "moof" && mdat.type == "mdat", "fragment \(index)")
            #expect(fragment.byteOffset == moof.start && fragment.byteLength == mdat.end - moof.start)
            #expect(fragment.time == times[index] && fragment.duration == durations[index])
            let payload = Data(reader.bytes[mdat.body..<mdat.end])
            #expect(payload == inputs[index], "fragment \(index) holds its JPEG, byte for byte")
            #expect(payload.starts(with: [0xFF, 0xD8]) && payload.suffix(2) == Data([0xFF, 0xD9]))
        }
        // Ranges tile the file: init segment, fragments back to back, nothing in between.
        let ends = [sequence.initSegmentLength] + sequence.fragments.map { $0.byteOffset + $0.byteLength }
        #expect(zip(ends, sequence.fragments).allSatisfy { $0 == $1.byteOffset })
    }

    @Test func eachMoofDescribesOneKeySampleAtItsTime() throws {
        let directory = TemporaryDirectory()
        let (_, inputs, path) = try writeSequence(in: directory)
        let reader = BoxReader(bytes: [UInt8](try Data(contentsOf: URL(fileURLWithPath: path))))
        let top = reader.topLevel
        let timescale = try #require(reader.timescale(in: top[1]))
        #expect(timescale == 90_000)
        for index in inputs.indices {
            let moof = top[2 + 2 * index], mdat = top[3 + 2 * index]
            let sample = try #require(reader.sample(in: moof), "fragment \(index)")
            #expect(sample.sampleCount == 1)
            // Within a millisecond of what was asked.
            #expect(abs(Double(sample.decodeTime) / Double(timescale) - times[index]) < 0.001)
            #expect(abs(Double(sample.duration) / Double(timescale) - durations[index]) < 0.001)
            #expect(sample.size == inputs[index].count)
            #expect(sample.dataStart == mdat.body, "the trun data offset points at the mdat payload")
            #expect(sample.flags & 0x0001_0000 == 0, "sample_is_non_sync_sample clear: a key frame")
        }
    }

    /// The sample entry is 'mjpg', what Apple's HLS authoring spec names JPEG I-frame image sequences by and the
    /// stream line's CODECS says, not libavformat's 'mp4v' with an MPEG-4 object type.
    @Test func sampleEntryIsMJPG() throws {
        let directory = TemporaryDirectory()
        let (_, _, path) = try writeSequence(in: directory)
        let reader = BoxReader(bytes: [UInt8](try Data(contentsOf: URL(fileURLWithPath: path))))
        let entry = try #require(reader.sampleEntry(in: reader.topLevel[1]))
        #expect(entry.type == "mjpg")
        #expect(entry.width == Self.width && entry.height == Self.height)
        #expect(entry.children.map(\.type) == ["colr", "pasp"])
        // JFIF's YCbCr: BT.601 full range, of sRGB pixels (BT.709 primaries, the sRGB transfer, 13); square pixels.
        let colr = try #require(entry.children.first)
        #expect(String(bytes: reader.bytes[colr.body..<(colr.body + 4)], encoding: .ascii) == "nclx")
        let colour: [Int] = [reader.u16(colr.body + 4), reader.u16(colr.body + 6), reader.u16(colr.body + 8)]
        #expect(colour == [1, 13, 6])
        #expect(reader.u8(colr.body + 10) & 0x80 != 0 && colr.end == colr.body + 11)
        let pasp = entry.children[1]
        #expect(reader.u32(pasp.body) == 1 && reader.u32(pasp.body + 4) == 1)
        // The init segment declares no samples of its own: each fragment carries its one.
        let stsz = try #require(reader.find(["trak", "mdia", "minf", "stbl", "stsz"], in: reader.topLevel[1]))
        #expect(reader.u32(stsz.body + 8) == 0)
        #expect(reader.find(["mvex", "trex"], in: reader.topLevel[1]) != nil)
    }

    @Test func ffmpegReadsBackEveryFrameAtItsTime() throws {
        let directory = TemporaryDirectory()
        let (_, inputs, path) = try writeSequence(in: directory)
        let reader = try FrameReader(path: path)
        #expect(reader.info.codecName == "mjpeg")
        var frames: [DecodedFrame] = []
        while let frame = try reader.nextFrame() { frames.append(frame) }
        #expect(frames.count == inputs.count)
        for (frame, time) in zip(frames, times) {
            #expect(abs(frame.timeSeconds - time) < 0.001)
            #expect(frame.size == PixelSize(width: Self.width, height: Self.height))
        }
    }

    @Test func mismatchedInputsThrowBeforeWriting() throws {
        let directory = TemporaryDirectory()
        let path = directory.file("iframes.mp4")
        let inputs = try jpegs(count: 2)
        #expect(throws: MediaError.self) {
            try IFrameSequenceWriter.write(jpegs: inputs, width: 160, height: 90, times: [0], durations: [1],
                                           to: path)
        }
        #expect(throws: MediaError.self) {
            try IFrameSequenceWriter.write(jpegs: inputs, width: 160, height: 90, times: [1, 1], durations: [1, 1],
                                           to: path)
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).isEmpty)
    }

    @Test func unwritableDestinationThrowsAndLeavesNoTemporaryFile() throws {
        let directory = TemporaryDirectory()
        let inputs = try jpegs(count: 2)
        let missingFolder = directory.file("missing/iframes.mp4")
        #expect(throws: (any Error).self) {
            try IFrameSequenceWriter.write(jpegs: inputs, width: 160, height: 90, times: [0, 1], durations: [1, 1],
                                           to: missingFolder)
        }
        // A directory under the final name: everything is written, then the rename fails.
        let occupied = directory.file("iframes.mp4")
        try FileManager.default.createDirectory(atPath: occupied, withIntermediateDirectories: false)
        #expect(throws: (any Error).self) {
            try IFrameSequenceWriter.write(jpegs: inputs, width: 160, height: 90, times: [0, 1], durations: [1, 1],
                                           to: occupied)
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == ["iframes.mp4"])
        #expect(try FileManager.default.contentsOfDirectory(atPath: occupied).isEmpty)
    }
}
