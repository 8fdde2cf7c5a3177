import Foundation
import FrameFarmCore
import Testing
@testable import FrameFarmMedia

@Suite struct SampleVideoTests {
    @Test func everyDecodedFrameCarriesItsOwnNumberInOrder() throws {
        let directory = TemporaryDirectory()
        let path = try makeSample(in: directory) { $0.bFrames = 2 }
        let reader = try FrameReader(path: path)
        var numbers: [Int?] = []
        while let frame = try reader.nextFrame() { numbers.append(readFrameCode(frame)) }
        #expect(numbers.count == 50)
        #expect(numbers == (0..<50).map { Optional($0) })
    }

    @Test func streamFactsMatchWhatWasWritten() throws {
        let directory = TemporaryDirectory()
        let path = try makeSample(in: directory) {
            $0.sampleAspectRatio = SampleAspectRatio(4, 3)
            $0.rotation = 90
            $0.frameRate = (30000, 1001)
        }
        let info = try MediaFile(path: path).info
        #expect(info.codecName == "h264")
        #expect(info.geometry.codedSize == PixelSize(width: 320, height: 180))
        #expect(info.geometry.sampleAspectRatio == SampleAspectRatio(4, 3))
        #expect(info.geometry.transform.rotation == 90)
        #expect(info.geometry.displaySize == PixelSize(width: 180, height: 427))
        #expect(abs((info.frameRate ?? 0) - 30000.0 / 1001) < 1e-6)
    }

    /// `keyframeIntervalSeconds` means exactly that with either encoder (the bench's GOP-2-s clips rely on it).
    @Test(arguments: ["libx264", "libx265"])
    func keyframesFallExactlyOnTheInterval(encoder: String) throws {
        let directory = TemporaryDirectory()
        let path = try makeSample(in: directory) {
            $0.encoder = encoder
            $0.durationSeconds = 6
            $0.keyframeIntervalSeconds = 1
        }
        let reader = try FrameReader(path: path, threads: 1, keyframesOnly: true)
        var times: [Double] = []
        while let frame = try reader.nextFrame() { times.append(frame.timeSeconds) }
        #expect(times.map { Int(($0 * 1000).rounded()) } == [0, 1000, 2000, 3000, 4000, 5000], "\(encoder)")
    }

    @Test(arguments: [0, 1])
    func exactSeekReturnsTheFrameOnScreen(threads: Int) throws {
        let directory = TemporaryDirectory()
        let path = try makeSample(in: directory) {
            $0.durationSeconds = 4
            $0.frameRate = (30000, 1001)
            $0.bFrames = 3
        }
        // Single-threaded readers also skip non-reference frames on the way to a target.
        let reader = try FrameReader(path: path, threads: threads)
        var last: Double?
        for target in [0.0, 0.5, 1.0, 1.7, 3.2, 0.9] {
            let frame = try #require(try reader.frame(at: target, lastTime: last))
            last = frame.timeSeconds
            // Frame n is on screen during [n * 1001/30000, (n + 1) * 1001/30000).
            #expect(readFrameCode(frame) == Int((target * 30000 / 1001 + 1e-9).rounded(.down)), "at \(target) s")
        }
    }

    /// Told what it reads next, a reader drains its decoder once a target's frame is in when that read seeks
    /// anyway (a keyframe between, a step back, nothing more), instead of decoding on past the target: the
    /// same frames, fewer decoded, with one decoding thread (which also fast-forwards) or frame threads. MP4 and
    /// Matroska have an index; MPEG-TS has none, so every read seeks.
    @Test(arguments: ["sample.mp4", "sample.mkv", "sample.ts"], [0, 1])
    func drainingWhenTheNextReadSeeksKeepsTheFrameAndDecodesLess(name: String, threads: Int) throws {
        let directory = TemporaryDirectory()
        let path = try makeSample(in: directory, name: name) {
            $0.durationSeconds = 4
            $0.frameRate = (30000, 1001)
            $0.bFrames = 3
            $0.keyframeIntervalSeconds = 1
        }
        // Mid-frame, clear of Matroska's millisecond rounding; 6 and 15 share a GOP, 43 and 87 do not.
        let frames = [6, 15, 43, 87, 99, 36]
        var decoded: [Bool: Int] = [:]
        for told in [false, true] {
            let reader = try FrameReader(path: path, threads: threads)
            let targets = frames.map { reader.info.startSeconds + (Double($0) + 0.5) * 1001 / 30000 }
            var last: Double?
            for (index, target) in targets.enumerated() {
                let next: NextRead = !told ? .unknown : index + 1 < targets.count ? .time(targets[index + 1]) : .nothing
                let frame = try #require(try reader.frame(at: target, lastTime: last, then: next))
                last = frame.timeSeconds
                #expect(readFrameCode(frame) == frames[index],
                        "\(name), \(threads) threads, frame \(frames[index]), told what follows: \(told)")
            }
            decoded[told] = reader.packetsSent
        }
        let (before, after) = (try #require(decoded[false]), try #require(decoded[true]))
        #expect(after < before,
                "\(name), \(threads) threads: \(after) packets sent when told what follows, \(before) when not")
    }

    /// An exact seek decodes the very pixels of a decode from the start: fast-forwarding discards only frames no
    /// other refers to. Skipping deblocking on the way (thumbnails only) is what makes them drift.
    @Test func exactSeekGivesTheSamePixelsAsDecodingFromTheStart() throws {
        let directory = TemporaryDirectory()
        let path = try makeSample(in: directory) {
            $0.durationSeconds = 4
            $0.preset = "veryfast"  // deblocking on (ultrafast turns it off)
            $0.bFrames = 3
        }
        let target = 3.5  // frame 87 of 25 fps, deep in the only GOP
        let sequential = try FrameReader(path: path, threads: 1)
        var truth: DecodedFrame?
        while let frame = try sequential.nextFrame(), frame.timeSeconds <= target + 1e-6 { truth = frame }
        let expected = luma(try #require(truth))
        let exact = try #require(try FrameReader(path: path, threads: 1).frame(at: target, lastTime: nil))
        #expect(luma(exact) == expected)
        let approximate = try #require(try FrameReader(path: path, threads: 1, skipsDeblocking: true)
            .frame(at: target, lastTime: nil))
        #expect(readFrameCode(approximate) == readFrameCode(exact))
        #expect(luma(approximate) != expected, "skipping deblocking on the way should show: is the test's sample deblocked?")
    }

    /// A target that falls exactly on a frame (a thumbnail time on a keyframe, as every 10-s time does on a
    /// 25-fps video with a keyframe every 2 s) is that frame: with B-frames, the decoder is drained after it
    /// instead of decoding the frames the stream's reordering delay holds back. Every frame shown is the one
    /// on screen at its target, times on a frame or between frames alike.
    @Test func aTargetOnAFrameDecodesNoFurther() throws {
        let directory = TemporaryDirectory()
        let path = try sixSecondsInTwoSecondGOPs(in: directory)
        for (target, frames) in [(2.0, 1), (4.0, 1), (2.5, 15)] {
            let reader = try FrameReader(path: path, threads: 1)
            let frame = try #require(try reader.frame(at: target, lastTime: nil, then: .nothing))
            #expect(readFrameCode(frame) == Int((target * 25 + 1e-6).rounded(.down)), "at \(target) s")
            // On the keyframe, only it; half a second in, at most the 13 frames up to it and the delay's two.
            #expect(reader.framesDecoded <= frames, "\(reader.framesDecoded) frames decoded for \(target) s")
        }
    }

    /// Keyframe seeks that fall back to the keyframe the last one returned (padding samples 2.25 s apart on a
    /// 20-s clip with keyframes 8.3 s apart) get that frame again undecoded; a read in between moves the reader,
    /// so the next seek decodes again. Frames are named by the numbers drawn in them: keyframes every 2 s at 25 fps.
    @Test func keyframeSeeksToTheSameKeyframeDecodeItOnce() throws {
        let directory = TemporaryDirectory()
        let path = try sixSecondsInTwoSecondGOPs(in: directory)
        let reader = try FrameReader(path: path, threads: 1, keyframesOnly: true)
        var decodes = 0
        var previous: Int?
        func seek(_ target: Double) throws {
            let keyframe = Int(target / 2) * 50
            let frame = try #require(try reader.keyframe(atOrBefore: target))
            #expect(readFrameCode(frame) == keyframe, "at \(target) s")
            if keyframe != previous { decodes += 1 }
            previous = keyframe
            #expect(reader.framesDecoded == decodes, "\(reader.framesDecoded) frames decoded by the seek to \(target) s")
        }
        for target in [0.3, 0.9, 1.5, 2.1, 2.7] { try seek(target) }
        // The next keyframe, read on from the one at 2 s: the reader is past it now.
        let next = try #require(try reader.nextFrame())
        #expect(readFrameCode(next) == 100)
        decodes += 1
        previous = nil
        for target in [2.9, 4.5, 5.0, 1.0] { try seek(target) }
        #expect(decodes == 6)
    }

    /// Keyframe thumbnails skip the keyframe's own deblocking: visible at full size, hidden by the 4x shrink
    /// that thumbnails need before it is allowed (a box average here, gentler than the real resampler's).
    @Test func keyframeWithoutDeblockingIsHiddenByAFourTimesShrink() throws {
        let directory = TemporaryDirectory()
        let path = try makeSample(in: directory) {
            $0.size = PixelSize(width: 640, height: 360)
            $0.keyframeIntervalSeconds = 1
            $0.preset = "veryfast"  // deblocking on (ultrafast turns it off)
        }
        let clean = try #require(try FrameReader(path: path, threads: 1, keyframesOnly: true).keyframe(atOrBefore: 1.5))
        let fast = try #require(try FrameReader(path: path, threads: 1, keyframesOnly: true, skipsDeblocking: true)
            .keyframe(atOrBefore: 1.5))
        #expect(readFrameCode(fast) == 25)
        #expect(readFrameCode(clean) == 25)
        let full = (luma(clean), luma(fast))
        #expect(full.0 != full.1, "the keyframe's deblocking should change pixels: is the test's sample deblocked?")
        let psnr = shrunkPSNR(full.0, full.1, width: 640)
        // A JPEG at quality 85 is 35-40 dB from its input; what deblocking changes must stay well below that.
        #expect(psnr >= 45, "4x shrunk keyframe without deblocking is \(psnr) dB from the clean one")
    }

    /// Exact thumbnails skip deblocking on every frame decoded, the one shown included: the drift it builds up
    /// deep in a GOP (frame 87 of its only one) stays below what the thumbnail's JPEG changes.
    @Test func exactFrameWithoutDeblockingIsHiddenByAFourTimesShrink() throws {
        let directory = TemporaryDirectory()
        let path = try makeSample(in: directory) {
            $0.size = PixelSize(width: 640, height: 360)
            $0.durationSeconds = 4
            $0.preset = "veryfast"  // deblocking on (ultrafast turns it off)
            $0.bFrames = 3
        }
        let target = 3.5
        let clean = try #require(try FrameReader(path: path, threads: 1).frame(at: target, lastTime: nil))
        let fast = try #require(try FrameReader(path: path, threads: 1, skipsDeblocking: true)
            .frame(at: target, lastTime: nil))
        #expect(readFrameCode(fast) == 87 && readFrameCode(clean) == 87)
        let full = (luma(clean), luma(fast))
        #expect(full.0 != full.1, "skipped deblocking should change pixels: is the test's sample deblocked?")
        let psnr = shrunkPSNR(full.0, full.1, width: 640)
        // Below a quality-85 JPEG's own 35-40 dB.
        #expect(psnr >= 42, "4x shrunk exact frame without deblocking is \(psnr) dB from the clean one")
    }

    @Test func exactSeekOnVariableFrameRateFindsTheFrameOnScreen() throws {
        let directory = TemporaryDirectory()
        let path = try makeSample(in: directory, name: "vfr.mkv") {
            $0.durationSeconds = 4
            $0.variableFrameRate = true
            $0.bFrames = 3
        }
        var times = [0.0]
        while times.count < 200 { times.append(times.last! + 0.04 * [1.0, 0.5, 1.5][(times.count - 1) % 3]) }
        let reader = try FrameReader(path: path, threads: 1)
        var last: Double?
        for target in [0.3, 0.95, 1.5, 2.26, 3.5, 1.0] {
            let frame = try #require(try reader.frame(at: target, lastTime: last))
            last = frame.timeSeconds
            let expected = times.lastIndex { $0 <= target + 1e-6 }
            #expect(readFrameCode(frame) == expected, "at \(target) s")
        }
    }

    /// A frame-threaded reader fast-forwards too: FFmpeg hands each packet's thread the skip setting it was sent
    /// with, so on the way to a frame deep in a GOP the B-frames no other frame refers to are passed, and the
    /// frame shown is still the one on screen.
    @Test func aFrameThreadedReaderFastForwardsThroughBFrames() throws {
        let directory = TemporaryDirectory()
        let (path, references) = try oneGOPWithBFrames(in: directory, seconds: 4)
        for target in [3.5, 2.02] {
            let onScreen = Int((target * 25 + 1e-6).rounded(.down))
            let reader = try FrameReader(path: path, threads: 2)
            let frame = try #require(try reader.frame(at: target, lastTime: nil, then: .nothing))
            #expect(readFrameCode(frame) == onScreen, "at \(target) s")
            // The references up to the target, and the few frames about it that decoding in full reaches.
            let needed = references.filter { $0 <= onScreen }.count
            #expect(reader.framesDecoded <= needed + 6, "\(reader.framesDecoded) frames decoded for frame \(onScreen)")
        }
    }

    /// A reference-only reader decodes just the frames other frames refer to, as the stream's own slice headers
    /// say (nal_ref_idc, read from the packets), and an exact read then gives the last of them at or before its
    /// time: the poster's candidates and the padding search's samples, which need only lie near their times.
    @Test func aReferenceOnlyReaderDecodesJustTheFramesOthersReferTo() throws {
        let directory = TemporaryDirectory()
        let (path, references) = try oneGOPWithBFrames(in: directory, seconds: 2)
        #expect(references.count >= 10 && references.count <= 30, "\(references.count) of 50 frames are references")
        let reader = try FrameReader(path: path, threads: 1, referenceFramesOnly: true)
        var codes: [Int?] = []
        while let frame = try reader.nextFrame() { codes.append(readFrameCode(frame)) }
        #expect(codes == references.sorted())
        for target in [0.1, 0.5, 0.98, 1.3, 1.9] {
            let onScreen = Int((target * 25 + 1e-6).rounded(.down))
            let frame = try #require(try FrameReader(path: path, threads: 1, referenceFramesOnly: true)
                .frame(at: target, lastTime: nil, then: .nothing))
            #expect(readFrameCode(frame) == references.filter { $0 <= onScreen }.max(), "at \(target) s")
        }
    }

    /// Without adaptive B-frames the encoder puts the B-frames asked for between every two P-frames, as camera
    /// and streaming encodes have them (the bench's clip with B-frames throughout): with x264's pyramid, two of
    /// every four frames are B-frames no other frame refers to. The frames still come out in order.
    @Test func fixedBFramesFillEveryGap() throws {
        let directory = TemporaryDirectory()
        let path = try makeSample(in: directory) {
            // The bench's size and preset, whose adaptive placement puts 2 B-frames in 25 frames of the pattern.
            $0.size = PixelSize(width: 1280, height: 720)
            $0.durationSeconds = 1
            $0.preset = "veryfast"
            $0.bFrames = 3
            $0.adaptiveBFrames = false
        }
        let references = try referenceFrames(of: path, frameRate: 25)
        #expect(references.count <= 15, "\(references.count) of 25 frames are references")
        let reader = try FrameReader(path: path)
        var codes: [Int?] = []
        while let frame = try reader.nextFrame() { codes.append(readFrameCode(frame)) }
        #expect(codes == (0..<25).map { $0 })
    }

    @Test func tenBitAndFourFourFourDecodeAsUploadableFormats() throws {
        let directory = TemporaryDirectory()
        for (encoder, pixelFormat) in [("libx265", "yuv420p10le"), ("libx264", "yuv444p")] {
            let path = try makeSample(in: directory, name: "\(pixelFormat).mkv") {
                $0.encoder = encoder
                $0.pixelFormat = pixelFormat
                $0.durationSeconds = 0.4
            }
            let reader = try FrameReader(path: path)
            let frame = try #require(try reader.nextFrame())
            #expect(readFrameCode(frame) == 0)
            #expect(frame.format.bitDepth == (pixelFormat.contains("10") ? 10 : 8))
            #expect(frame.format.chromaSubsamplingX == (pixelFormat == "yuv444p" ? 1 : 2))
        }
    }
}

@Suite struct InputLimitTests {
    @Test func framesOverThePixelLimitAreRefusedBeforeDecoding() throws {
        let directory = TemporaryDirectory()
        let path = try makeSample(in: directory) { $0.durationSeconds = 0.2 }
        #expect(throws: InputError.tooLarge(width: 320, height: 180, maxPixels: 50_000)) {
            try FrameReader(path: path, maxPixels: 50_000)
        }
        #expect(try FrameReader(path: path, maxPixels: 320 * 180).nextFrame() != nil)
    }
}

/// The luma plane's bytes, row after row without padding (8-bit frames).
private func luma(_ frame: DecodedFrame) -> [UInt8] {
    frame.withLumaPlane { base, bytesPerRow in
        (0..<frame.format.height).flatMap { y in
            Array(UnsafeRawBufferPointer(start: base + y * bytesPerRow, count: frame.format.width))
        }
    }
}

/// PSNR between two 8-bit planes `width` wide, each shrunk `factor` x `factor` first.
private func shrunkPSNR(_ a: [UInt8], _ b: [UInt8], width: Int, by factor: Int = 4) -> Double {
    let shrunk = (boxShrink(a, width: width, by: factor), boxShrink(b, width: width, by: factor))
    let meanSquare = zip(shrunk.0, shrunk.1).map { ($0 - $1) * ($0 - $1) }.reduce(0, +) / Double(shrunk.0.count)
    return 10 * log10(255 * 255 / max(meanSquare, 1e-12))
}

/// Means of `factor` x `factor` blocks of an 8-bit plane `width` wide.
private func boxShrink(_ plane: [UInt8], width: Int, by factor: Int) -> [Double] {
    let height = plane.count / width
    return (0..<(height / factor)).flatMap { row in
        (0..<(width / factor)).map { column in
            var sum = 0
            for y in 0..<factor { for x in 0..<factor { sum += Int(plane[(row * factor + y) * width + column * factor + x]) } }
            return Double(sum) / Double(factor * factor)
        }
    }
}

/// A sample of one GOP, `seconds` long at 25 fps, with three B-frames between every two P-frames (the tests'
/// ultrafast preset places them so), and the display indices of its reference frames.
/// 6 s at 25 fps, a keyframe every 2 s, 3 B-frames between references.
private func sixSecondsInTwoSecondGOPs(in directory: TemporaryDirectory) throws -> String {
    try makeSample(in: directory) {
        $0.durationSeconds = 6
        $0.keyframeIntervalSeconds = 2
        $0.bFrames = 3
    }
}

private func oneGOPWithBFrames(in directory: TemporaryDirectory, seconds: Double) throws -> (path: String, references: Set<Int>) {
    let path = try makeSample(in: directory) {
        $0.durationSeconds = seconds
        $0.keyframeIntervalSeconds = seconds
        $0.bFrames = 3
    }
    return (path, try referenceFrames(of: path, frameRate: 25))
}

/// The display indices (at `frameRate`) of the frames of an MP4's H.264 stream that other frames may refer to:
/// those whose slices carry a nal_ref_idc above zero, read from the packets' length-prefixed NAL units without
/// decoding.
private func referenceFrames(of path: String, frameRate: Double) throws -> Set<Int> {
    let file = try MediaFile(path: path)
    var references = Set<Int>()
    while let packet = try file.readVideoPacket() {
        let bytes = UnsafeRawBufferPointer(start: packet.pointer.pointee.data, count: Int(packet.pointer.pointee.size))
        var offset = 0, isReference = false
        while offset + 5 <= bytes.count {
            let length = bytes[offset..<offset + 4].reduce(0) { $0 << 8 | Int($1) }
            let header = bytes[offset + 4]
            if [1, 5].contains(header & 0x1F), header >> 5 & 3 != 0 { isReference = true }
            offset += 4 + length
        }
        if isReference, let pts = packet.presentationTimestamp {
            references.insert(Int((file.seconds(pts) * frameRate).rounded()))
        }
    }
    return references
}
