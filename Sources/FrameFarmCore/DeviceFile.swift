/// The `devices --json` document, and decoding a `--devices-file` with errors that name the device and field.

import Foundation

/// The JSON document `devices --json` writes and `--devices-file` reads.
struct DeviceFile: Codable {
    var devices: [Device]

    /// Decodes and validates a devices file: every device complete and sane, ids unique within the file.
    static func decode(_ data: Data) throws -> [Device] {
        let file: DeviceFile
        do { try StrictJSON.check(Array(data)) } catch { throw DeviceCatalogError.malformedFile(reason: "not valid JSON: \(error)") }
        do {
            file = try JSONDecoder().decode(DeviceFile.self, from: data)
        } catch let error as DecodingError {
            throw describe(error, data: data)
        }
        if let unknown = unknownKey(in: data, decoded: file) { throw unknown }
        try validate(file.devices)
        return file.devices
    }

    /// The first key of the file that decoding passed over (a misspelt `cornerRadious` would leave square corners
    /// without a word): one the decoded devices, written back, do not have.
    private static func unknownKey(in data: Data, decoded file: DeviceFile) -> DeviceCatalogError? {
        guard let written = try? JSONSerialization.jsonObject(with: JSONEncoder().encode(file)),
              let given = try? JSONSerialization.jsonObject(with: data) else { return nil }
        func unknown(_ given: Any, _ written: Any, _ path: [String]) -> [String]? {
            if let given = given as? [String: Any], let written = written as? [String: Any] {
                for key in given.keys.sorted() where !(given[key] is NSNull) {
                    guard let value = written[key] else { return path + [key] }
                    if let found = unknown(given[key]!, value, path + [key]) { return found }
                }
            } else if let given = given as? [Any], let written = written as? [Any] {
                for (index, (item, value)) in zip(given, written).enumerated() {
                    if let found = unknown(item, value, path + ["[\(index)]"]) { return found }
                }
            }
            return nil
        }
        guard let path = unknown(given, written, []) else { return nil }
        let reason = "is not a key FrameFarm reads (misspelt? 'devices --json' writes every key)"
        guard path.count >= 3, path[0] == "devices", let index = Int(path[1].dropFirst().dropLast()) else {
            return .malformedFile(reason: path.joined(separator: ".").replacingOccurrences(of: ".[", with: "[") + " " + reason)
        }
        let field = path.dropFirst(2).joined(separator: ".").replacingOccurrences(of: ".[", with: "[")
        return .invalidDevice(index: index, id: index < file.devices.count ? file.devices[index].id : nil, field: field,
                              reason: reason)
    }

    /// Throws for the first device with a problem, then for the first id used twice.
    static func validate(_ devices: [Device]) throws {
        for (index, device) in devices.enumerated() {
            if let problem = device.problems.first {
                throw DeviceCatalogError.invalidDevice(index: index, id: device.id, field: problem.field,
                                                       reason: problem.reason)
            }
        }
        let indicesByID = Dictionary(grouping: devices.indices, by: { devices[$0].id })
        if let (id, indices) = indicesByID.filter({ $0.value.count > 1 }).min(by: { $0.value[0] < $1.value[0] }) {
            throw DeviceCatalogError.duplicateID(id: id, indices: indices)
        }
    }

    /// Turns a decoding error into one naming the device (by index and, where readable, id) and the field.
    private static func describe(_ error: DecodingError, data: Data) -> DeviceCatalogError {
        let ids = probeIDs(data)
        let (path, reason): ([CodingKey], String)
        switch error {
        case .keyNotFound(let key, let context): (path, reason) = (context.codingPath + [key], "is missing")
        case .typeMismatch(let type, let context): (path, reason) = (context.codingPath, "must be \(jsonName(type))")
        case .valueNotFound(let type, let context): (path, reason) = (context.codingPath, "must be \(jsonName(type))")
        case .dataCorrupted(let context): (path, reason) = (context.codingPath, context.debugDescription)
        @unknown default: return .malformedFile(reason: "\(error)")
        }
        if path.isEmpty, let fraction = fractionalPixels(data) {
            // Foundation's decoder calls a fraction (or a number past Int's range) where an integer belongs invalid
            // JSON, naming no field.
            return .invalidDevice(index: fraction.index, id: fraction.id, field: fraction.field, reason: "must be an integer")
        }
        if path.isEmpty, case .typeMismatch = error {
            return .malformedFile(reason: "must be an object whose \"devices\" lists the devices, as 'devices --json' writes")
        }
        // A word outside a closed set: say the words.
        let choices: [String]? = switch path.last?.stringValue {
        case "kind": DeviceKind.allCases.map(\.rawValue)
        case _ where path.contains { $0.stringValue == "orientations" }: Orientation.allCases.map(\.rawValue)
        default: nil
        }
        let described = choices.flatMap { words -> String? in
            guard case .dataCorrupted = error else { return nil }
            return "must be one of " + words.joined(separator: ", ")
        }
        guard path.count >= 2, path[0].stringValue == "devices", let index = path[1].intValue else {
            let field = path.isEmpty ? "" : fieldName(path) + " "
            let detail = path.isEmpty ? (error.underlyingDescription ?? reason) : reason
            return .malformedFile(reason: "\(field)\(detail)")
        }
        let field = path.count > 2 ? fieldName(Array(path.dropFirst(2))) : "device"
        return .invalidDevice(index: index, id: index < ids.count ? ids[index] : nil, field: field,
                              reason: described ?? reason)
    }

    /// The first device whose `nativePixels` holds a number with a fraction, read apart from the decoder.
    private static func fractionalPixels(_ data: Data) -> (index: Int, id: String?, field: String)? {
        guard let file = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
              let devices = file["devices"] as? [Any] else { return nil }
        for (index, device) in devices.enumerated() {
            guard let device = device as? [String: Any], let pixels = device["nativePixels"] as? [String: Any] else { continue }
            for side in ["width", "height"] {
                // Past Int's range too: the decoder calls 1e23 invalid JSON as well.
                if let value = pixels[side] as? Double, value.rounded() != value || abs(value) > 1e15 {
                    return (index, device["id"] as? String, "nativePixels.\(side)")
                }
            }
        }
        return nil
    }

    private static func fieldName(_ path: [CodingKey]) -> String {
        path.map { $0.intValue.map { "[\($0)]" } ?? ".\($0.stringValue)" }.joined().trimmingPrefix(".")
    }

    private static func jsonName(_ type: Any.Type) -> String {
        switch type {
        case is String.Type: "a string"
        case is Int.Type: "an integer"
        case is Double.Type: "a number"
        case is [Any].Type: "an array"
        case is [String: Any].Type: "an object"
        default: "a \(type)"
        }
    }

    /// The `id` of each device where it is a string, so an error can name the device even when decoding failed.
    private static func probeIDs(_ data: Data) -> [String?] {
        struct Probe: Decodable {
            var id: String?
            init(from decoder: Decoder) throws {
                let container = try? decoder.container(keyedBy: Key.self)
                id = try? container?.decodeIfPresent(String.self, forKey: .id)
            }
            enum Key: String, CodingKey { case id }
        }
        struct ProbeFile: Decodable { var devices: [Probe] }
        return (try? JSONDecoder().decode(ProbeFile.self, from: data))?.devices.map(\.id) ?? []
    }
}

extension DecodingError {
    /// The message of the error underneath (JSONSerialization's "Unexpected character..."), if any.
    fileprivate var underlyingDescription: String? {
        guard case .dataCorrupted(let context) = self, let underlying = context.underlyingError else { return nil }
        return (underlying as NSError).userInfo[NSDebugDescriptionErrorKey] as? String ?? "\(underlying)"
    }
}

extension String {
    fileprivate func trimmingPrefix(_ prefix: String) -> String {
        hasPrefix(prefix) ? String(dropFirst(prefix.count)) : self
    }
}
