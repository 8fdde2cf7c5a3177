import Foundation

extension BenchRunner {
    /// Thumbnails (exact) for the same encode at growing lengths, then for 1, 2, 4 and 8 copies of the shortest
    /// at once: time per video-minute should stay flat and peak RSS bounded.
    func measureGrowth() throws -> GrowthResult {
        let specs = BenchInputs.growthSet(quick: settings.quick)
        // prepareInputs made them.
        let paths = specs.map { BenchInputs.path(of: $0, cache: settings.cache) }
        let output = settings.work + "/growth"
        func point(_ label: String, paths: [String], minutes: Double) -> GrowthResult.Point? {
            let measurement = runChild(scenario: "thumbnails", clips: paths, output: output, arguments: ["--seek", "exact"])
            guard let timing = measurement.timing else { return nil }
            return GrowthResult.Point(label: label, videoMinutes: minutes, videos: paths.count, timing: timing,
                                      peakRSSBytes: measurement.peakRSSBytes,
                                      secondsPerVideoMinute: timing.median / minutes)
        }
        let byLength = zip(specs, paths).compactMap { spec, path in
            point(spec.label, paths: [path], minutes: spec.durationSeconds / 60)
        }
        let copies = try distinctNames(for: paths[0], count: 8)
        let byConcurrency = [1, 2, 4, 8].compactMap { videos in
            point("\(videos) x \(specs[0].label) at once", paths: Array(copies.prefix(videos)),
                  minutes: Double(videos) * specs[0].durationSeconds / 60)
        }
        let fit = LinearFit(x: byLength.map(\.videoMinutes), y: byLength.map(\.timing.median))
        return GrowthResult(seek: "exact", byLength: byLength, byConcurrency: byConcurrency,
                            fittedSlopeSecondsPerMinute: fit?.slope, fittedInterceptSeconds: fit?.intercept)
    }

    /// `count` names for the video at `path` (symbolic links in the work folder), so a batch of copies is that
    /// many videos, each with its own output folder. One path given several times is one video: the inputs after
    /// the first find its outputs current and are skipped, and 8 "videos" took the time of 2.
    private func distinctNames(for path: String, count: Int) throws -> [String] {
        let folder = settings.work + "/growth-inputs"
        let files = FileManager.default
        try? files.removeItem(atPath: folder)
        try files.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let name = (path as NSString).lastPathComponent
        return try (1...count).map { index in
            let link = folder + "/copy-\(index)-" + name
            try files.createSymbolicLink(atPath: link, withDestinationPath: path)
            return link
        }
    }
}
