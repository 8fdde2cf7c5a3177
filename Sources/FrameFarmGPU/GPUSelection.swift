import Foundation

/// Which Vulkan device to use: the best one (discrete > integrated > virtual > CPU), or one named by index or by
/// a case-insensitive substring of its name. Parsed from `--gpu` or `FRAMEFARM_GPU` by the executables.
public enum GPUSelection: Sendable, Hashable, CustomStringConvertible {
    case automatic
    case index(Int)
    case nameContains(String)

    /// `"1"` selects device 1 in enumeration order, `"llvmpipe"` the first device whose name contains it,
    /// `""` or `"auto"` the best device.
    public init(argument: String) {
        let trimmed = argument.trimmingCharacters(in: .whitespaces)
        if trimmed.isEmpty || trimmed.lowercased() == "auto" {
            self = .automatic
        } else if let index = Int(trimmed), index >= 0 {
            self = .index(index)
        } else {
            self = .nameContains(trimmed)
        }
    }

    public var description: String {
        switch self {
        case .automatic: "auto"
        case .index(let index): "\(index)"
        case .nameContains(let name): name
        }
    }

    /// Picks one of `devices` (name, type rank where lower is better); nil when the selection matches none.
    func choose(among devices: [(name: String, rank: Int)]) -> Int? {
        switch self {
        case .automatic:
            return devices.indices.min { devices[$0].rank < devices[$1].rank }
        case .index(let index):
            return devices.indices.contains(index) ? index : nil
        case .nameContains(let name):
            return devices.firstIndex { $0.name.range(of: name, options: .caseInsensitive) != nil }
        }
    }
}
