import Foundation

/// Peak resident set size of this process so far (`VmHWM` in /proc/self/status), in bytes. Each scenario runs
/// in its own child process, so this is the scenario's own peak.
enum PeakMemory {
    static func currentProcessPeakBytes() -> Int? {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return nil }
        for line in status.split(separator: "\n") where line.hasPrefix("VmHWM:") {
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            if fields.count >= 2, let kilobytes = Int(fields[1]) { return kilobytes * 1024 }
        }
        return nil
    }
}
