import Foundation
import FrameFarmCore
import Testing

private let catalog = DeviceCatalog.builtIn

@Test func builtInDevicesAreSane() throws {
    #expect(catalog.devices.count >= 14)
    #expect(Set(catalog.ids).count == catalog.ids.count)
    for device in catalog.devices {
        #expect(device.problems.isEmpty, "\(device.id): \(device.problems)")
        #expect((1...3).contains(device.scale), "\(device.id)")
        let natural: Orientation = [.phone, .tablet, .watch].contains(device.kind) ? .portrait : .landscape
        #expect(device.nativePixels.orientation == natural, "\(device.id)")
        switch device.kind {
        case .tv, .mac, .vision, .pip: #expect(device.orientations == [.landscape], "\(device.id)")
        case .watch: #expect(device.orientations == [.portrait], "\(device.id)")
        case .phone, .tablet: #expect(Set(device.orientations) == [.portrait, .landscape], "\(device.id)")
        }
        for screen in device.screens {
            #expect(!screen.safeArea.isEmpty && PixelRect(size: screen.size).contains(screen.safeArea),
                    "\(device.id) \(screen.orientation)")
            #expect(screen.size.orientation == screen.orientation)
            if let radius = screen.cornerRadius {
                #expect(radius > 0 && radius <= Double(min(screen.size.width, screen.size.height)) / 2)
            }
        }
    }
}

@Test func screensInPixels() throws {
    let phone = try #require(catalog.device(id: "iphone-16-pro")?.screen(.landscape))
    #expect(phone.size == PixelSize(width: 2622, height: 1206))
    #expect(phone.safeAreaInsets == PixelInsets(top: 0, left: 186, bottom: 63, right: 186))
    #expect(phone.cornerRadius == 186)
    let portrait = try #require(catalog.device(id: "iphone-xs")?.screen(.portrait))
    #expect(portrait.size == PixelSize(width: 1125, height: 2436))
    #expect(portrait.safeAreaInsets == PixelInsets(top: 132, left: 0, bottom: 102, right: 0))
    let television = try #require(catalog.device(id: "apple-tv-4k")?.screen(.landscape))
    #expect(television.safeArea == PixelRect(x: 160, y: 120, width: 3520, height: 1920))
    #expect(catalog.device(id: "apple-tv-4k")?.screen(.portrait) == nil)
    #expect(catalog.device(id: "iphone-se-3")?.screen(.landscape)?.cornerRadius == nil)
}

@Test func selectingDevices() throws {
    let picked = try catalog.select("iphone-xs, phones,tv")
    #expect(picked.map(\.id) == ["iphone-xs", "iphone-se-3", "iphone-16-pro", "iphone-16-pro-max", "apple-tv-hd",
                                 "apple-tv-4k"])
    #expect(try catalog.select("all").count == catalog.devices.count)
    #expect(try catalog.select("tablets").allSatisfy { $0.kind == .tablet })
    #expect(throws: DeviceCatalogError.emptySelection("phones,")) { try catalog.select("phones,") }
    do {
        _ = try catalog.select("iphone-99")
        Issue.record("expected an error")
    } catch let error as DeviceCatalogError {
        #expect(error == .unknownDevice(id: "iphone-99", validIDs: catalog.ids))
        #expect("\(error)".hasPrefix("unknown device 'iphone-99'; valid ids: iphone-se-3, iphone-xs, "))
    }
}

@Test func jsonRoundTripsAndIsStable() throws {
    let data = try catalog.jsonData()
    #expect(try catalog.jsonData() == data)
    let text = try #require(String(data: data, encoding: .utf8))
    #expect(text.hasPrefix("{\n  \"devices\" : [\n    {\n      \"cornerRadius\" : null,\n      \"id\" : "))
    let object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: [[String: Any]]])
    let keys = ["cornerRadius", "id", "kind", "name", "nativePixels", "orientations", "safeAreaLandscape",
                "safeAreaPortrait", "scale"]
    #expect(object["devices"]?.allSatisfy { $0.keys.sorted() == keys } == true)
    let reread = try DeviceCatalog.builtIn.merging(devicesFile: data)
    #expect(reread == catalog)
    let fromEmpty = try emptyCatalog().merging(devicesFile: data)
    #expect(fromEmpty.devices == catalog.devices)
}

@Test func textTableListsEveryDevice() {
    let lines = catalog.textTable().split(separator: "\n")
    #expect(lines.count == catalog.devices.count + 1)
    #expect(lines[0].hasPrefix("ID "))
    #expect(lines.contains { $0.hasPrefix("iphone-16-pro ") && $0.contains("0,62,21,62") && $0.contains("1206x2622") })
}

/// A name of characters wider than one UTF-16 unit (an emoji) is printed whole, and the columns after it line up.
@Test func textTableKeepsWideCharactersWhole() throws {
    let name = "Téléphone 📱 \"q\" & co, the longest name in the table"
    let phone = try #require(catalog.devices.first { $0.kind == .phone })
    var renamed = phone
    renamed.id = "my-phone"
    renamed.name = name
    let table = try DeviceCatalog(devices: [renamed, catalog.devices[0]]).textTable()
    let lines = table.split(separator: "\n").map(String.init)
    #expect(lines[1].contains(name + " "), "\(table)")
    // Counted in characters, as a terminal shows them (an emoji aside, which takes two cells).
    let kindAt = Array(lines[0]).firstIndex(of: "K")!
    for (line, kind) in zip(lines.dropFirst(), ["phone", catalog.devices[0].kind.rawValue]) {
        #expect(String(Array(line)[kindAt...]).hasPrefix(kind + " "), "\(table)")
    }
}

private func emptyCatalog() throws -> DeviceCatalog {
    try DeviceCatalog(devices: [])
}
