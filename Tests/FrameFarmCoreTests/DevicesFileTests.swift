import Foundation
import FrameFarmCore
import Testing

/// A valid device entry as JSON, with `changes` applied on top (a nil value removes the key).
private func entry(_ changes: [String: Any?] = [:]) -> [String: Any] {
    var device: [String: Any] = [
        "id": "kiosk-screen", "name": "Lobby kiosk", "kind": "tv",
        "nativePixels": ["width": 1080, "height": 1920], "scale": 1,
        "safeAreaPortrait": ["top": 0, "left": 0, "bottom": 100, "right": 0],
        "orientations": ["portrait"],
    ]
    for (key, value) in changes { device[key] = value }
    return device
}

private func file(_ devices: [[String: Any]]) throws -> Data {
    try JSONSerialization.data(withJSONObject: ["devices": devices])
}

private func mergeError(_ data: Data) -> DeviceCatalogError? {
    do {
        _ = try DeviceCatalog.builtIn.merging(devicesFile: data)
        return nil
    } catch {
        return error as? DeviceCatalogError
    }
}

@Test func devicesFileAddsAndOverrides() throws {
    var xs = entry(["id": "iphone-xs", "name": "iPhone XS (measured)", "kind": "phone",
                    "nativePixels": ["width": 1125, "height": 2436], "scale": 3, "cornerRadius": 40,
                    "orientations": ["portrait"]])
    xs["safeAreaPortrait"] = ["top": 47, "left": 0, "bottom": 34, "right": 0]
    let merged = try DeviceCatalog.builtIn.merging(devicesFile: try file([entry(), xs]))
    #expect(merged.devices.count == DeviceCatalog.builtIn.devices.count + 1)
    #expect(merged.ids.last == "kiosk-screen")
    let overridden = try #require(merged.device(id: "iphone-xs"))
    #expect(merged.ids.firstIndex(of: "iphone-xs") == DeviceCatalog.builtIn.ids.firstIndex(of: "iphone-xs"))
    #expect(overridden.name == "iPhone XS (measured)" && overridden.cornerRadius == 40)
    #expect(overridden.screen(.landscape) == nil)
    #expect(overridden.screen(.portrait)?.safeAreaInsets.top == 141)
    let kiosk = try #require(merged.device(id: "kiosk-screen")?.screen(.portrait))
    #expect(kiosk.size == PixelSize(width: 1080, height: 1920) && kiosk.cornerRadius == nil)
}

@Test func devicesFileErrorsNameTheDeviceAndField() throws {
    let cases: [([[String: Any]], DeviceCatalogError)] = [
        ([entry(), entry(["id": "b", "scale": nil])],
         .invalidDevice(index: 1, id: "b", field: "scale", reason: "is missing")),
        ([entry(["nativePixels": ["width": 0, "height": 1920]])],
         .invalidDevice(index: 0, id: "kiosk-screen", field: "nativePixels.width", reason: "must be from 1 to 16384")),
        // Past any screen made: refused, never a canvas of 30 GB.
        ([entry(["nativePixels": ["width": 1080, "height": 10_000_000_000]])],
         .invalidDevice(index: 0, id: "kiosk-screen", field: "nativePixels.height", reason: "must be from 1 to 16384")),
        ([entry(["scale": 1e300])],
         .invalidDevice(index: 0, id: "kiosk-screen", field: "scale", reason: "must be a positive number up to 16")),
        // Insets whose pixels would not fit an integer (they trapped): refused by the screen's size in points.
        ([entry(["safeAreaPortrait": ["top": 1e300, "left": 0, "bottom": 0, "right": 0]])],
         .invalidDevice(index: 0, id: "kiosk-screen", field: "safeAreaPortrait.top",
                        reason: "must be from 0 to the screen's longer side (1920.0 pt)")),
        // A group's name could never be picked by --devices (it names the group).
        ([entry(["id": "tv"])],
         .invalidDevice(index: 0, id: "tv", field: "id", reason: "must not be a group's name (tv names a group in --devices)")),
        ([entry(["nativePixels": ["width": 1080]])],
         .invalidDevice(index: 0, id: "kiosk-screen", field: "nativePixels.height", reason: "is missing")),
        ([entry(["scale": "two"])],
         .invalidDevice(index: 0, id: "kiosk-screen", field: "scale", reason: "must be a number")),
        ([entry(["safeAreaPortrait": ["top": 1000, "left": 0, "bottom": 920, "right": 0]])],
         .invalidDevice(index: 0, id: "kiosk-screen", field: "safeAreaPortrait",
                        reason: "leaves no safe area inside the 1080.0x1920.0 pt screen")),
        ([entry(["safeAreaPortrait": ["top": -1, "left": 0, "bottom": 0, "right": 0]])],
         .invalidDevice(index: 0, id: "kiosk-screen", field: "safeAreaPortrait.top",
                        reason: "must be from 0 to the screen's longer side (1920.0 pt)")),
        ([entry(["orientations": ["landscape"]])],
         .invalidDevice(index: 0, id: "kiosk-screen", field: "safeAreaLandscape",
                        reason: "is missing but orientations has landscape")),
        ([entry(["orientations": ["landscape"], "safeAreaLandscape": ["top": 0, "left": 0, "bottom": 0, "right": 0]])],
         .invalidDevice(index: 0, id: "kiosk-screen", field: "safeAreaPortrait",
                        reason: "is given but orientations has no portrait: no render would use it")),
        ([entry(["id": "Kiosk Screen"])],
         .invalidDevice(index: 0, id: "Kiosk Screen", field: "id",
                        reason: "must be kebab-case: lowercase letters and digits joined by '-'")),
        ([entry(["cornerRadius": 600])],
         .invalidDevice(index: 0, id: "kiosk-screen", field: "cornerRadius",
                        reason: "must be from 0 to half the short side (540.0 pt)")),
        ([entry(), entry(["name": "other"]), entry(["id": "x"])],
         .duplicateID(id: "kiosk-screen", indices: [0, 1])),
    ]
    for (devices, expected) in cases {
        #expect(mergeError(try file(devices)) == expected)
    }
}

@Test func devicesFileDecodingFailuresAreReadable() throws {
    // A word outside a closed set lists the words; a fraction where whole pixels belong names its field (the
    // decoder alone calls it invalid JSON); a file that is not an object says what it should be.
    #expect(mergeError(try file([entry(["kind": "toaster"])])) == .invalidDevice(
        index: 0, id: "kiosk-screen", field: "kind", reason: "must be one of phone, tablet, tv, mac, watch, vision, pip"))
    #expect(mergeError(try file([entry(["orientations": ["sideways"]])])) == .invalidDevice(
        index: 0, id: "kiosk-screen", field: "orientations[0]", reason: "must be one of landscape, portrait"))
    #expect(mergeError(try file([entry(["nativePixels": ["width": 1080, "height": 1920.5]])])) == .invalidDevice(
        index: 0, id: "kiosk-screen", field: "nativePixels.height", reason: "must be an integer"))
    #expect(mergeError(Data("[]".utf8)) == .malformedFile(
        reason: "must be an object whose \"devices\" lists the devices, as 'devices --json' writes"))
    let notJSON = try #require(mergeError(Data("{devices".utf8)))
    guard case .malformedFile = notJSON else {
        Issue.record("unexpected \(notJSON)")
        return
    }
    #expect(mergeError(Data(#"{"device": []}"#.utf8)) == .malformedFile(reason: "devices is missing"))
    // A key decoding passes over is named: a misspelt cornerRadius left square corners without a word.
    let unread = "is not a key FrameFarm reads (misspelt? 'devices --json' writes every key)"
    #expect(mergeError(try file([entry(["cornerRadious": 40])])) == .invalidDevice(
        index: 0, id: "kiosk-screen", field: "cornerRadious", reason: unread))
    #expect(mergeError(try file([entry(), entry(["id": "b", "safeAreaPortrait": ["top": 0, "left": 0, "bottom": 9, "right": 0, "rigth": 0]])]))
            == .invalidDevice(index: 1, id: "b", field: "safeAreaPortrait.rigth", reason: unread))
    #expect(mergeError(try JSONSerialization.data(withJSONObject: ["devices": [entry()], "version": 2])) == .malformedFile(
        reason: "version " + unread))
    #expect(mergeError(try file([entry(["cornerRadius": NSNull()])])) == nil, "null is an absent value")
    // A number past Int's range, a device that is no object, a byte-order mark: each named, never Foundation's words.
    let huge = String(decoding: try file([entry()]), as: UTF8.self).replacingOccurrences(of: "1080", with: "99999999999999999999999")
    #expect(mergeError(Data(huge.utf8)) == .invalidDevice(index: 0, id: "kiosk-screen", field: "nativePixels.width",
                                                           reason: "must be an integer"))
    #expect(mergeError(Data(#"{"devices": [1]}"#.utf8)) == .invalidDevice(index: 0, id: nil, field: "device", reason: "must be an object"))
    #expect(mergeError(Data([0xEF, 0xBB, 0xBF]) + (try file([entry()]))) == .malformedFile(
        reason: "not valid JSON: line 1, column 1: a byte-order mark, which JSON text does not start with (RFC 8259 8.1): "
            + "save the file as UTF-8 without one"))
    let message = "\(DeviceCatalogError.invalidDevice(index: 2, id: "b", field: "scale", reason: "is missing"))"
    #expect(message == "devices file: devices[2] ('b'): scale is missing")
}
