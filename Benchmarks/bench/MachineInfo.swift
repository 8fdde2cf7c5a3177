import Foundation

/// The machine the figures come from, for the report header.
enum MachineInfo {
    static var cpuModel: String {
        guard let text = try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8) else { return "unknown CPU" }
        for line in text.split(separator: "\n") where line.hasPrefix("model name") {
            if let value = line.split(separator: ":", maxSplits: 1).last {
                return value.trimmingCharacters(in: .whitespaces)
            }
        }
        return "unknown CPU"
    }

    static var cores: Int { ProcessInfo.processInfo.activeProcessorCount }

    static var memory: String {
        let gigabytes = Double(ProcessInfo.processInfo.physicalMemory) / 1_073_741_824
        return "\(Format.number(gigabytes)) GiB RAM"
    }

    /// The FRAMEFARM_* variables set for this run (they switch engine paths, e.g. FRAMEFARM_CANVASES=device), sorted.
    static var engineEnvironment: [String] {
        ProcessInfo.processInfo.environment.filter { $0.key.hasPrefix("FRAMEFARM_") }.map { "\($0.key)=\($0.value)" }.sorted()
    }

    static var buildConfiguration: String {
        #if DEBUG
        let configuration = "debug (figures not meaningful: build with -c release)"
        #else
        let configuration = "release"
        #endif
        // `compiler` is the toolchain; `swift` is the language mode the package builds in (the report said "Swift 5"
        // for a 6.3 toolchain when it asked the wrong one).
        #if compiler(>=6.0)
        let toolchain = "Swift 6 toolchain"
        #else
        let toolchain = "Swift 5 toolchain"
        #endif
        #if swift(>=6.0)
        let mode = "Swift 6 language mode"
        #else
        let mode = "Swift 5 language mode"
        #endif
        return "\(configuration), \(toolchain), \(mode)"
    }

    static var date: String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime]
        return formatter.string(from: Date())
    }
}
