import Foundation

extension BenchRunner {
    /// Thumbnails (exact) for the same encode at growing lengths, then for 1, 2, 4 and 8 copies of the shortest
    /// at once: time per video-minute should stay flat and peak RSS bounded.
    func measureGrowth() throws -> GrowthResult {
        let specs = BenchInputs.growthSet(quick: settings.quick)
        let paths = try specs.map { try BenchInputs.materialize($0, cache: settings.cache) }
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
        let byConcurrency = [1, 2, 4, 8].compactMap { videos in
            point("\(videos) x \(specs[0].label) at once", paths: Array(repeating: paths[0], count: videos),
                  minutes: Double(videos) * specs[0].durationSeconds / 60)
        }
        let fit = LinearFit(x: byLength.map(\.videoMinutes), y: byLength.map(\.timing.median))
        return GrowthResult(seek: "exact", byLength: byLength, byConcurrency: byConcurrency,
                            fittedSlopeSecondsPerMinute: fit?.slope, fittedInterceptSeconds: fit?.intercept)
    }
}
