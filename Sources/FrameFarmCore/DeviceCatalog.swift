/// The set of devices a run renders for: lookup, groups, `--devices` parsing and the `devices` listings.

import Foundation

/// Named sets of devices accepted by `--devices` next to device ids.
public enum DeviceGroup: String, Codable, Sendable, CaseIterable {
    case all, phones, tablets, tv, mac, watch, vision, pip

    /// Whether a device of `kind` belongs to this group.
    public func contains(_ kind: DeviceKind) -> Bool {
        switch self {
        case .all: true
        case .phones: kind == .phone
        case .tablets: kind == .tablet
        case .tv: kind == .tv
        case .mac: kind == .mac
        case .watch: kind == .watch
        case .vision: kind == .vision
        case .pip: kind == .pip
        }
    }
}

/// An ordered set of devices with unique ids. A value type; thread-safe.
public struct DeviceCatalog: Sendable, Equatable {
    public private(set) var devices: [Device]

    init(uncheckedDevices: [Device]) {
        devices = uncheckedDevices
    }

    /// A catalog of `devices`, validated as a devices file's entries are.
    public init(devices: [Device]) throws {
        try DeviceFile.validate(devices)
        self.devices = devices
    }

    /// The valid ids, in catalog order.
    public var ids: [String] { devices.map(\.id) }

    public func device(id: String) -> Device? {
        devices.first { $0.id == id }
    }

    public func devices(in group: DeviceGroup) -> [Device] {
        devices.filter { group.contains($0.kind) }
    }

    /// Resolves a `--devices` value: comma-separated ids and group names, in the order given, each device once.
    public func select(_ specification: String) throws -> [Device] {
        var selected: [Device] = []
        for item in specification.split(separator: ",", omittingEmptySubsequences: false) {
            let name = item.trimmingCharacters(in: .whitespaces)
            guard !name.isEmpty else { throw DeviceCatalogError.emptySelection(specification) }
            let matches: [Device]
            if let group = DeviceGroup(rawValue: name) {
                matches = devices(in: group)
            } else if let device = device(id: name) {
                matches = [device]
            } else {
                throw DeviceCatalogError.unknownDevice(id: name, validIDs: ids)
            }
            for device in matches where !selected.contains(where: { $0.id == device.id }) {
                selected.append(device)
            }
        }
        return selected
    }

    /// This catalog with the devices of a `--devices-file` (the `devices --json` format) added, or replacing
    /// the devices with the same id in place.
    public func merging(devicesFile data: Data) throws -> DeviceCatalog {
        var merged = devices
        for device in try DeviceFile.decode(data) {
            if let index = merged.firstIndex(where: { $0.id == device.id }) {
                merged[index] = device
            } else {
                merged.append(device)
            }
        }
        return DeviceCatalog(uncheckedDevices: merged)
    }

    /// What `devices --json` prints: `{"devices": [...]}`, keys sorted, pretty printed, newline-terminated.
    public func jsonData() throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return try encoder.encode(DeviceFile(devices: devices)) + Data("\n".utf8)
    }

    /// What `devices` prints: one aligned row per device, insets as top,left,bottom,right in points.
    public func textTable() -> String {
        let header = ["ID", "NAME", "KIND", "PIXELS", "SCALE", "SAFE PORTRAIT (pt)", "SAFE LANDSCAPE (pt)",
                      "CORNER (pt)"]
        let rows = devices.map { device in
            [device.id, device.name, device.kind.rawValue, device.nativePixels.description,
             "@" + formatNumber(device.scale), formatInsets(device.safeAreaPortrait),
             formatInsets(device.safeAreaLandscape), device.cornerRadius.map(formatNumber) ?? "-"]
        }
        let table = [header] + rows
        let widths = header.indices.map { column in table.map { $0[column].count }.max() ?? 0 }
        return table.map { row in
            row.enumerated().map { column, cell in
                // Padded by characters, as the widths count: Foundation's padding(toLength:) counts UTF-16 units, and
                // cut an emoji's name short.
                column == row.count - 1 ? cell : cell + String(repeating: " ", count: widths[column] - cell.count)
            }.joined(separator: "  ")
        }.joined(separator: "\n") + "\n"
    }
}

/// Why a device selection or a devices file was refused; the description is the line the user sees.
public enum DeviceCatalogError: Error, Sendable, Equatable, CustomStringConvertible {
    case unknownDevice(id: String, validIDs: [String])
    case emptySelection(String)
    /// The file is not JSON of the `devices --json` shape.
    case malformedFile(reason: String)
    /// Device `index` (0-based, in file order) has a bad `field`.
    case invalidDevice(index: Int, id: String?, field: String, reason: String)
    case duplicateID(id: String, indices: [Int])

    public var description: String {
        switch self {
        case .unknownDevice(let id, let validIDs):
            let groups = DeviceGroup.allCases.map(\.rawValue).joined(separator: ", ")
            return "unknown device '\(id)'; valid ids: \(validIDs.joined(separator: ", ")); groups: \(groups)"
        case .emptySelection(let specification):
            return "empty device name in '\(specification)'; give ids or groups separated by commas"
        case .malformedFile(let reason):
            return "devices file: \(reason)"
        case .invalidDevice(let index, let id, let field, let reason):
            let name = id.map { " ('\($0)')" } ?? ""
            return "devices file: devices[\(index)]\(name): \(field) \(reason)"
        case .duplicateID(let id, let indices):
            let places = indices.map { "devices[\($0)]" }.joined(separator: ", ")
            return "devices file: id '\(id)' appears more than once (\(places))"
        }
    }
}

private func formatInsets(_ insets: SafeAreaInsets?) -> String {
    guard let insets else { return "-" }
    return [insets.top, insets.left, insets.bottom, insets.right].map(formatNumber).joined(separator: ",")
}

/// `44` for whole numbers, `21.5` otherwise.
func formatNumber(_ value: Double) -> String {
    value == value.rounded() && abs(value) < 1e15 ? String(Int(value)) : String(value)
}
