import Foundation
import FrameFarmMedia
import Testing
@testable import FrameFarm
import FrameFarmSamples

/// HDR video: its tags and peak read, tone mapping from the stated peak, and `sample --hdr`'s grading, whose render
/// must match the SDR sample's.
@Suite(.serialized) struct HDRVideoTests {
    /// HDR tags and the container's peak reach the GPU. The pattern's greys average a signal of about a third:
    /// as SDR that is 9% of white's light, as PQ about 13 cd/m², 6% of reference white (203), so the PQ-tagged copy
    /// comes out darker; a brighter stated peak tone-maps darker still; the frame codes stay legible.
    @Test func hdrTaggedVideosAreToneMappedWithTheirStatedPeak() throws {
        let directory = TemporaryDirectory()
        func meanTile(_ name: String, _ configure: @escaping (inout SampleOptions) -> Void) throws -> Double {
            let path = try makeSample(in: directory, name: name + ".mkv") {
                $0.durationSeconds = 1
                configure(&$0)
            }
            let out = directory.file("out-" + name)
            let (cues, folder, _) = try ThumbnailTests.track(path, out: out) { $0.spacing = .interval(10) }
            #expect(try ThumbnailTests.frameNumbers(cues, folder: folder) == [0], "\(name)")
            let sheet = try readImage(folder + cues[0].file)
            let rect = cues[0].rect
            var sum = 0
            for y in rect.y..<rect.maxY {
                for x in rect.x..<rect.maxX { sum += Int(sheet.pixel(x: x, y: y).green) }
            }
            return Double(sum) / Double(rect.width * rect.height)
        }
        let sdr = try meanTile("sdr") { _ in }
        let pq = try meanTile("pq") { $0.hdrTransfer = .pq }
        let pqBright = try meanTile("pq4000") {
            $0.hdrTransfer = .pq
            $0.hdrPeakLuminance = 4000
        }
        #expect(pq < sdr - 8, "PQ \(pq) vs SDR \(sdr)")
        #expect(pqBright < pq - 3, "peak 4000: \(pqBright) vs the default 1000: \(pq)")

        let sheet = try String(contentsOfFile: directory.file("out-pq4000") + "/index.html", encoding: .utf8)
        #expect(sheet.contains("HDR (PQ), shown tone-mapped to SDR"))
        let report = try Prober.probe(paths: [directory.file("pq4000.mkv")])[0].get()
        #expect(report.colorTransfer == .pq && report.colorPrimaries == .bt2020 && report.colorMatrix == .bt2020)
        #expect(report.peakLuminance == 4000)
    }

    /// HDR10 whose peak is only in the HEVC stream's SEI (FFmpeg's mp4 muxer writes no container metadata): the
    /// probe reads it from the first keyframe, and lint does not call the metadata missing.
    @Test func anHDR10PeakInTheStreamIsRead() throws {
        let directory = TemporaryDirectory()
        let path = try makeSample(in: directory, name: "hdr10.mp4") {
            $0.durationSeconds = 1
            $0.encoder = "libx265"
            $0.pixelFormat = "yuv420p10le"
            $0.codecTag = "hvc1"
            $0.hdrTransfer = .pq
            $0.hdrPeakLuminance = 4000
            $0.hdrPeakInStream = true
        }
        let report = try Prober.probe(paths: [path])[0].get()
        #expect(report.colorTransfer == .pq && report.peakLuminance == 4000)
        let lint = try CommandLineTests.run(["lint", path])
        #expect(!lint.stdout.contains("hdr-metadata-missing"), "\(lint.stdout)")
        // HLG without any: none is needed (a display maps HLG by its own peak), so none is asked for.
        let hlg = try makeSample(in: directory, name: "hlg.mp4") {
            $0.durationSeconds = 1
            $0.pixelFormat = "yuv420p10le"
            $0.hdrTransfer = .hlg
        }
        let hlgLint = try CommandLineTests.run(["lint", "--json", hlg])
        let results = try #require(try JSONSerialization.jsonObject(with: Data(hlgLint.stdout.utf8)) as? [[String: Any]])
        let rules = (results.first?["findings"] as? [[String: Any]] ?? []).compactMap { $0["rule"] as? String }
        #expect((results.first?["rulesRun"] as? [String])?.contains("hdr-metadata-missing") == true)
        #expect(!rules.contains("hdr-metadata-missing"), "\(rules)")
        #expect(try Prober.probe(paths: [hlg])[0].get().colorTransfer == .hlg)
    }

    /// `sample --hdr` grades the SDR picture as BT.2408 places SDR in HDR (white at 203 cd/m², BT.2020), in PQ and
    /// in HLG. Stating its true peak (203), it needs no tone mapping, so a correct HDR decode shows it as the SDR
    /// sample looks: the poster of each matches the SDR one pixel for pixel within the codecs' loss, and the frame
    /// code reads. The grading's constants are written from the standards apart from FrameFarm's colour code.
    @Test func anHDRSampleIsShownAsTheSDRSampleLooks() throws {
        let directory = TemporaryDirectory()
        func poster(_ name: String, _ options: [String]) throws -> RGBAImage {
            let made = try CommandLineTests.run(["sample", "--out", directory.file(name + ".mkv"), "--duration", "1",
                                                 "--size", "320x180", "--preset", "ultrafast"] + options)
            #expect(made.status == 0, "\(made.stderr)")
            let run = try CommandLineTests.run(["poster", directory.file(name + ".mkv"), "--out", directory.file("out"), "--at", "0.5"])
            #expect(run.status == 0, "\(run.stderr)")
            return try readImage(directory.file("out/\(name)/poster.jpg"))
        }
        let sdr = try poster("sdr", [])
        for transfer in ["pq", "hlg"] {
            let hdr = try poster(transfer, ["--hdr", transfer, "--hdr-peak", "203"])
            #expect(hdr.size == sdr.size && hdr.frameCode() == 12, "\(transfer)")
            Self.expectLooksAlike(hdr, sdr, transfer)
            let report = try Prober.probe(paths: [directory.file(transfer + ".mkv")])[0].get()
            #expect(report.colorTransfer == TransferFunction(rawValue: transfer) && report.colorPrimaries == .bt2020)
            #expect(report.peakLuminance == 203 && report.pixelFormat == "yuv420p10le", "\(transfer) \(report.pixelFormat)")
        }
        let refused = try CommandLineTests.run(["sample", "--out", directory.file("x.mp4"), "--hdr", "pq", "--hdr-peak", "1000"])
        #expect(refused.status == 2 && refused.stderr.contains("--hdr-peak needs --encoder libx265"), "\(refused.stderr)")
    }

    /// Within the codecs' loss of each other: mean difference under 6 of 255, each channel's mean within 4.
    static func expectLooksAlike(_ image: RGBAImage, _ reference: RGBAImage, _ name: String) {
        var difference = 0, channelSums = [0, 0, 0]
        for y in 0..<reference.height {
            for x in 0..<reference.width {
                let a = reference.pixel(x: x, y: y), b = image.pixel(x: x, y: y)
                let deltas = [Int(b.red) - Int(a.red), Int(b.green) - Int(a.green), Int(b.blue) - Int(a.blue)]
                difference += deltas.map(abs).reduce(0, +)
                for channel in 0..<3 { channelSums[channel] += deltas[channel] }
            }
        }
        let pixels = Double(reference.width * reference.height)
        #expect(Double(difference) / pixels / 3 < 6, "\(name): mean difference \(Double(difference) / pixels / 3)")
        #expect(channelSums.allSatisfy { abs(Double($0) / pixels) < 4 }, "\(name): channel means off by \(channelSums.map { Double($0) / pixels })")
    }

    /// HDR tags in the Matroska container alone (its Colour element), the stream's own unspecified, as a tester's
    /// remux left them: FFmpeg's analysis overwrote the container's with the stream's, so the PQ picture was read as
    /// BT.709 and came out washed out, and `probe` said "transfer unknown". Players take the container's; so does
    /// FrameFarm now, in `probe` and in every frame.
    @Test func colourTagsInTheContainerAloneAreRead() throws {
        let directory = TemporaryDirectory()
        func poster(_ name: String, _ configure: @escaping (inout SampleOptions) -> Void) throws -> RGBAImage {
            let path = try makeSample(in: directory, name: name + ".mkv") {
                $0.durationSeconds = 1
                configure(&$0)
            }
            let run = try CommandLineTests.run(["poster", path, "--out", directory.file("out"), "--at", "0.5"])
            #expect(run.status == 0, "\(run.stderr)")
            return try readImage(directory.file("out/\(name)/poster.jpg"))
        }
        let sdr = try poster("sdr") { _ in }
        let hdr = try poster("container") {
            // HEVC: FFmpeg's H.264 decoder keeps a container's tags where the stream has none; its HEVC decoder
            // replaced them with "unspecified".
            $0.encoder = "libx265"
            $0.hdr = .pq
            $0.hdrPeakLuminance = 203
            $0.colorTagsInContainerOnly = true
        }
        #expect(hdr.frameCode() != nil)
        Self.expectLooksAlike(hdr, sdr, "PQ tagged in the container")
        let report = try Prober.probe(paths: [directory.file("container.mkv")])[0].get()
        #expect(report.colorTransfer == .pq && report.colorPrimaries == .bt2020 && report.colorMatrix == .bt2020, "\(report)")
        #expect(report.colorTagsMissing == nil, "\(report.colorTagsMissing ?? [])")
    }
}
