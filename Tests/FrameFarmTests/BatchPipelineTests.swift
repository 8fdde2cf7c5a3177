import Foundation
import Testing
@testable import FrameFarm
import FrameFarmMedia

/// What the pipeline does for every job: one `probe` section per input under the batch's policy, and outcomes
/// that say what became of each input.
@Suite struct BatchPipelineTests {
    private func run<Job: BatchJob>(_ job: Job, _ input: String, out: String, policy: ModePolicy?) -> BatchSummary {
        var settings = BatchSettings(outputRoot: out)
        settings.policy = policy
        return BatchPipeline(settings: settings, gpu: SharedGPU.service).run(job, inputs: [input])
    }

    private func smallJobs() -> (preview: PreviewJob, thumbnails: ThumbnailJob, poster: PosterJob) {
        var preview = PreviewOptions()
        preview.devices = [DeviceCatalog.builtIn.device(id: "pip-iphone")!]
        preview.frame = .seconds(0.5)
        var thumbnails = ThumbnailOptions()
        thumbnails.spacing = .count(3)
        var poster = PosterOptions()
        poster.widths = [160]
        return (PreviewJob(options: preview), ThumbnailJob(options: thumbnails), PosterJob(options: poster))
    }

    /// The largest files start first (a batch should not end with its longest video running alone), and each
    /// result still lands at its input's index.
    @Test func theLargestInputsStartFirst() throws {
        let directory = TemporaryDirectory()
        let sizes = [3, 40, 0, 40, 7]
        let paths = try sizes.enumerated().map { index, size in
            let path = directory.file("input\(index)")
            try Data(count: size).write(to: URL(fileURLWithPath: path))
            return path
        }
        // Ties keep input order; a missing file counts as empty.
        let order = BatchPipeline.largestFirst(paths + [directory.file("missing")])
        #expect(order == [1, 3, 4, 0, 2, 5])
        let started = Locked<[Int]>([])
        let results = Concurrent.map(count: order.count, width: 1, startOrder: order) { index in
            started.withLock { $0.append(index) }
            return index * 10
        }
        #expect(started.withLock { $0 } == order)
        #expect(results == [0, 10, 20, 30, 40, 50])
    }

    /// Records how many inputs it holds at once: each stays a while, so that inputs the pipeline lets overlap do.
    private struct OverlapProbeJob: BatchJob {
        static let command = "overlap-probe"
        struct Settings: Codable, Hashable, Sendable {}
        let options: Locked<(now: Int, most: Int)>
        init(options: Locked<(now: Int, most: Int)>) { self.options = options }
        func settings(policy: ModePolicy) -> Settings { Settings() }
        func recordedSettings(in manifest: VideoManifest) -> [String: String]? { nil }
        func process(_ input: InputContext) throws -> InputResult {
            let stream = try input.stream()
            _ = try input.makeOutputFolder()
            options.withLock { $0.now += 1; $0.most = max($0.most, $0.now) }
            Thread.sleep(forTimeInterval: 0.3)
            options.withLock { $0.now -= 1 }
            return InputResult(facts: MediaFacts(stream: stream, padding: .none(stream.info.geometry.codedSize, usableSamples: 0)),
                               files: [], warnings: [], record: { _ in })
        }
    }

    /// `inFlight` (`--jobs`) is how many inputs are processed at once: never more, and as many where there are
    /// inputs enough, more than there are cores too.
    @Test(arguments: [1, Concurrent.cores + 1]) func inputsInFlightAreAsManyAsAsked(inFlight: Int) throws {
        let directory = TemporaryDirectory()
        let sample = try makeSample(in: directory)
        let inputs = try (0..<(2 * inFlight)).map { index in
            let link = directory.file("clip-\(index).mp4")
            try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: sample)
            return link
        }
        var settings = BatchSettings(outputRoot: directory.file("out"))
        settings.inFlight = inFlight
        let overlap = Locked((now: 0, most: 0))
        let summary = BatchPipeline(settings: settings, gpu: SharedGPU.service).run(OverlapProbeJob(options: overlap),
                                                                                      inputs: inputs)
        #expect(summary.failed == 0, "\(summary.inputs.compactMap(\.error))")
        #expect(overlap.withLock { $0.most } == inFlight)
        #expect(RunRecord.all(outputRoot: directory.file("out")).map(\.jobs) == [inFlight])
    }

    /// The `probe` section once depended on which command ran last: thumbnails and poster wrote it under the hig
    /// policy whatever preview had been asked. Now a command run without a policy keeps the one recorded.
    @Test func theProbeSectionIsTheSameWhicheverCommandRunsLast() throws {
        let directory = TemporaryDirectory()
        let path = try makeSample(in: directory)  // 16:9: hig fits it on a 16:9 screen, max-crop:10 fills it
        let policy = try ModePolicy(parsing: "max-crop:10")
        let jobs = smallJobs()
        let previewFirst = directory.file("preview-first"), thumbnailsFirst = directory.file("thumbnails-first")
        #expect(run(jobs.preview, path, out: previewFirst, policy: policy).failed == 0)
        #expect(run(jobs.thumbnails, path, out: previewFirst, policy: nil).failed == 0)
        #expect(run(jobs.poster, path, out: previewFirst, policy: nil).failed == 0)
        #expect(run(jobs.thumbnails, path, out: thumbnailsFirst, policy: nil).failed == 0)
        #expect(run(jobs.poster, path, out: thumbnailsFirst, policy: nil).failed == 0)
        #expect(run(jobs.preview, path, out: thumbnailsFirst, policy: policy).failed == 0)
        let one = try #require(ManifestStore.read(previewFirst + "/sample/manifest.json"))
        let other = try #require(ManifestStore.read(thumbnailsFirst + "/sample/manifest.json"))
        // The padding's evidence is that of the samples the last command decoded (a poster's candidates, a
        // track's frames); the facts and the decision are the same.
        func decision(_ probe: ProbeReport) -> ProbeReport {
            var decision = probe
            (decision.paddingSamples, decision.paddingEdgeSamples) = (nil, nil)
            return decision
        }
        #expect(decision(one.probe) == decision(other.probe))
        #expect(one.probe.policy == policy && one.probe.defaultMode == .fill, "\(one.probe)")
        #expect(one.preview?.renders.filter(\.isDefault).map(\.mode) == [.fill])

        // Without any policy given, a fresh folder gets hig's pick.
        let plain = directory.file("plain")
        #expect(run(jobs.poster, path, out: plain, policy: nil).failed == 0)
        #expect(ManifestStore.read(plain + "/sample/manifest.json")?.probe.defaultMode == .fit)
    }

    @Test func outcomesSayWhatBecameOfEachInput() throws {
        let directory = TemporaryDirectory()
        let path = try makeSample(in: directory)
        let broken = directory.write("broken.mp4", Data("not a video".utf8))
        let out = directory.file("out")
        let jobs = smallJobs()
        var settings = BatchSettings(outputRoot: out)
        let pipeline = BatchPipeline(settings: settings, gpu: SharedGPU.service)
        let first = pipeline.run(jobs.poster, inputs: [path, broken])
        #expect(first.inputs.map(\.status) == [.done, .failed])
        #expect(first.inputs.map(\.ok) == [true, false])
        #expect(first.inputs[0].outputs.contains("manifest.json"))
        let again = pipeline.run(jobs.poster, inputs: [path])
        #expect(again.inputs.map(\.status) == [.upToDate] && again.inputs[0].warnings.isEmpty)
        settings.force = true
        #expect(BatchPipeline(settings: settings, gpu: SharedGPU.service).run(jobs.poster, inputs: [path])
            .inputs.map(\.status) == [.done])
        // The status is part of the JSON summary, under stable names.
        let json = String(decoding: try JSONEncoder().encode(again), as: UTF8.self)
        #expect(json.contains("\"status\":\"up-to-date\""), "\(json)")
    }

    /// Jobs run together (`thumbnails --poster`) make the same files as each run alone, keep one record per
    /// job, and a re-run with one job's settings changed redoes that job alone.
    @Test func severalJobsGoInOnePass() throws {
        let directory = TemporaryDirectory()
        let path = try makeSample(in: directory)
        let broken = directory.write("broken.mp4", Data("not a video".utf8))
        let jobs = smallJobs()
        let together = directory.file("together"), apart = directory.file("apart")
        let pipeline = BatchPipeline(settings: BatchSettings(outputRoot: together), gpu: SharedGPU.service)
        let summary = pipeline.run([jobs.thumbnails, jobs.poster], inputs: [path, broken])
        #expect(summary.command == "thumbnails+poster")
        #expect(summary.inputs.map(\.status) == [.done, .failed])
        // The unreadable input fails once, for its reason, with no job's name in front.
        #expect(summary.inputs[1].error?.hasPrefix("not a video file") == true, "\(summary.inputs[1].error ?? "")")
        #expect(run(jobs.thumbnails, path, out: apart, policy: nil).failed == 0)
        #expect(run(jobs.poster, path, out: apart, policy: nil).failed == 0)
        let manifest = try #require(ManifestStore.read(together + "/sample/manifest.json"))
        let files = (manifest.files(of: "thumbnails") ?? []) + (manifest.files(of: "poster") ?? [])
        #expect(files.contains("poster-160.jpg") && files.contains("thumbnails/sheet-0001.jpg"), "\(files)")
        for file in files {
            #expect(FileManager.default.contents(atPath: together + "/sample/" + file)
                    == FileManager.default.contents(atPath: apart + "/sample/" + file), "\(file)")
        }
        let records = RunRecord.all(outputRoot: together)
        #expect(Set(records.map(\.command)) == ["thumbnails", "poster"])
        for record in records {
            #expect(record.inputs.map(\.status) == [.done, .failed], "\(record.command)")
        }
        var widerPoster = PosterOptions()
        widerPoster.widths = [200]
        let again = pipeline.run([jobs.thumbnails, PosterJob(options: widerPoster)], inputs: [path])
        #expect(again.inputs.map(\.status) == [.done])
        #expect(again.inputs[0].statusByCommand == ["thumbnails": .upToDate, "poster": .done])
        // The track found up to date is listed with the poster made.
        #expect(again.inputs[0].outputs.contains("poster-200.jpg") && again.inputs[0].outputs.contains("thumbnails/sheet-0001.jpg"))
        let updated = try #require(ManifestStore.read(together + "/sample/manifest.json"))
        #expect(updated.thumbnails == manifest.thumbnails)
    }

    /// Every manifest keeps what lint's rules find in its probe section, and the contact sheet shows the warnings
    /// and errors among them (not the infos).
    @Test func manifestsKeepLintFindingsAndTheSheetShowsWarnings() throws {
        let directory = TemporaryDirectory()
        let sparse = try makeSample(in: directory, name: "sparse.mp4") {
            $0.durationSeconds = 9
            $0.keyframeIntervalSeconds = 4
        }
        let dense = try makeSample(in: directory, name: "dense.mp4") {
            $0.durationSeconds = 9
            $0.keyframeIntervalSeconds = 1
        }
        let out = directory.file("out")
        #expect(run(smallJobs().poster, sparse, out: out, policy: nil).failed == 0)
        #expect(run(smallJobs().poster, dense, out: out, policy: nil).failed == 0)
        let sparseLint = try #require(ManifestStore.read(out + "/sparse/manifest.json")?.lint)
        let denseLint = try #require(ManifestStore.read(out + "/dense/manifest.json")?.lint)
        #expect(sparseLint.contains { $0.rule == .keyframeInterval && $0.severity == .warning }, "\(sparseLint)")
        #expect(!denseLint.contains { $0.rule == .keyframeInterval }, "\(denseLint)")
        #expect(sparseLint.contains { $0.rule == .aspectClass } && denseLint.contains { $0.rule == .aspectClass })
        let sheet = try String(contentsOfFile: out + "/index.html", encoding: .utf8)
        #expect(sheet.components(separatedBy: "<code>keyframe-interval</code>").count == 2, "once, for sparse")
        #expect(!sheet.contains("<code>aspect-class</code>"))
    }

    /// `PNGDeflater` earns its place by speed only: libdeflate, the reference, writes the same pixels.
    @Test func bothPNGCompressorsWriteTheSamePixels() throws {
        let directory = TemporaryDirectory()
        let path = try makeSample(in: directory) { $0.letterbox = true }
        var renders: [PNGCompressor: [String: RGBAImage]] = [:]
        for compressor in PNGCompressor.allCases {
            var settings = BatchSettings(outputRoot: directory.file(compressor.rawValue))
            settings.pngCompressor = compressor
            let summary = BatchPipeline(settings: settings, gpu: SharedGPU.service).run(smallJobs().preview, inputs: [path])
            #expect(summary.failed == 0)
            let files = summary.inputs[0].outputs.filter { $0.hasSuffix(".png") }
            #expect(!files.isEmpty)
            renders[compressor] = try Dictionary(uniqueKeysWithValues: files.map {
                ($0, try readImage(settings.outputRoot + "/sample/" + $0))
            })
        }
        #expect(renders[.framefarm] == renders[.libdeflate])
    }
}
