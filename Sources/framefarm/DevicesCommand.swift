import ArgumentParser
import Foundation
import FrameFarm

/// `--devices-file`, shared by every command that renders for devices.
struct DeviceCatalogOptions: ParsableArguments {
    @Option(help: "JSON file of devices to add or override (same schema as 'framefarm devices --json').")
    var devicesFile: String?

    /// The built-in catalog with the file's devices. A mistake in the file is one line naming it, as a policy
    /// file's is (the command's usage would not help), exit 2.
    func catalog() throws -> DeviceCatalog {
        guard let devicesFile else { return .builtIn }
        return try exitingOnUsageError { try Self.catalog(reading: devicesFile) }
    }

    private static func catalog(reading devicesFile: String) throws -> DeviceCatalog {
        guard let data = FileManager.default.contents(atPath: devicesFile) else {
            // What the system says of it: missing, not permitted, or a folder.
            let descriptor = open(devicesFile, O_RDONLY)
            var isFolder: ObjCBool = false
            let reason = descriptor < 0 ? String(cString: strerror(errno))
                : FileManager.default.fileExists(atPath: devicesFile, isDirectory: &isFolder) && isFolder.boolValue
                ? "a folder, not a file" : "unreadable"
            if descriptor >= 0 { close(descriptor) }
            throw ValidationError("\(devicesFile): cannot read the devices file (\(reason))")
        }
        do {
            return try DeviceCatalog.builtIn.merging(devicesFile: data)
        } catch {
            throw ValidationError("\(devicesFile): \(error)")
        }
    }
}

struct DevicesCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "devices",
        abstract: "List the device screens FrameFarm renders for.",
        discussion: "Sizes are native pixels; safe-area insets are points (multiply by the scale for pixels).")

    @OptionGroup var catalogOptions: DeviceCatalogOptions

    @Flag(help: "Print the catalog as JSON (the schema --devices-file takes).")
    var json = false

    func run() throws {
        let catalog = try catalogOptions.catalog()
        if json {
            try Terminal.writeResults(try catalog.jsonData() + Data("\n".utf8))
        } else {
            try Terminal.writeLine(catalog.textTable(), terminator: "")
        }
    }
}
