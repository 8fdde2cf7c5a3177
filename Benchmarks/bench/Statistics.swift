import Foundation

/// The wall-clock seconds of repeated runs of one piece of work, summarised as median with spread.
struct Timing: Codable {
    var seconds: [Double]

    var median: Double {
        let sorted = seconds.sorted()
        guard !sorted.isEmpty else { return .nan }
        let middle = sorted.count / 2
        return sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
    }

    var minimum: Double { seconds.min() ?? .nan }
    var maximum: Double { seconds.max() ?? .nan }

    /// "1.23 s (1.20–1.31)", or just the value for a single run.
    var summary: String {
        seconds.count > 1 ? "\(Format.seconds(median)) (\(Format.seconds(minimum))–\(Format.seconds(maximum)))"
                          : Format.seconds(median)
    }
}

/// Least-squares line through (x, y) points: `y ≈ intercept + slope * x`.
struct LinearFit: Codable {
    var slope: Double
    var intercept: Double

    init?(x: [Double], y: [Double]) {
        guard x.count == y.count, x.count >= 2 else { return nil }
        let count = Double(x.count)
        let meanX = x.reduce(0, +) / count
        let meanY = y.reduce(0, +) / count
        let covariance = zip(x, y).map { ($0 - meanX) * ($1 - meanY) }.reduce(0, +)
        let variance = x.map { ($0 - meanX) * ($0 - meanX) }.reduce(0, +)
        guard variance > 0 else { return nil }
        slope = covariance / variance
        intercept = meanY - slope * meanX
    }
}

/// Number formatting shared by the report and progress lines.
enum Format {
    static func seconds(_ value: Double) -> String {
        guard value.isFinite else { return "–" }
        if value >= 100 { return String(format: "%.0f s", value) }
        if value >= 10 { return String(format: "%.1f s", value) }
        if value >= 1 { return String(format: "%.2f s", value) }
        return String(format: "%.0f ms", value * 1000)
    }

    static func number(_ value: Double, digits: Int = 1) -> String {
        value.isFinite ? String(format: "%.\(digits)f", value) : "–"
    }

    /// Kilobytes under a megabyte, else megabytes with one decimal.
    static func size(_ bytes: Int?) -> String {
        guard let bytes else { return "–" }
        return bytes < 1_048_576 ? String(format: "%.0f KB", Double(bytes) / 1024)
            : String(format: "%.1f MB", Double(bytes) / 1_048_576)
    }

    /// Total size of `paths`; nil when one is missing.
    static func totalBytes(_ paths: [String]) -> Int? {
        var total = 0
        for path in paths {
            guard let size = (try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? Int else { return nil }
            total += size
        }
        return total
    }

    static func megabytes(_ bytes: Int?) -> String {
        guard let bytes else { return "–" }
        return String(format: "%.0f MB", Double(bytes) / 1_048_576)
    }
}
