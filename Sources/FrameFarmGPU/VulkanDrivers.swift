import Foundation

/// The Vulkan drivers worth the loader's time on this machine. Making an instance, the loader opens every driver
/// whose manifest it finds, to ask it for devices; Mesa's drivers for PCI GPUs are large libraries (9-11 MB for
/// radeon and intel), and opening them on a machine without such a GPU cost a one-clip `framefarm thumbnails` run
/// 52 ms of its 384 ms of CPU time (`perf stat`, lavapipe, 2 cores). `framefarm` names the others in
/// `VK_DRIVER_FILES` when it starts, unless the user set the loader's own variables.
public enum VulkanDrivers {
    /// Mesa's drivers for PCI GPUs, by manifest name, and the PCI vendor of the GPUs each drives.
    static let mesaPCIDrivers: [(manifest: String, vendor: String)] = [
        ("intel_icd.", "0x8086"), ("intel_hasvk_icd.", "0x8086"), ("radeon_icd.", "0x1002"),
        ("nouveau_icd.", "0x10de"), ("virtio_icd.", "0x1af4"),
    ]

    /// The loader's variables that choose drivers; set by the user, they win.
    static let userVariables = ["VK_DRIVER_FILES", "VK_ICD_FILENAMES", "VK_ADD_DRIVER_FILES"]

    /// The driver manifests to name in `VK_DRIVER_FILES`: every one the loader would find in `folders` (its own
    /// search path under `environment`, the process's, which the executables hand over, by default) but Mesa's
    /// PCI drivers whose vendor has no display device in `pciDevices`. Nil, leaving the loader to its own search,
    /// when the user set one of its driver variables, when the PCI devices cannot be read (a container without
    /// /sys), or when no driver would be left out.
    public static func manifestsForThisMachine(environment: [String: String], folders: [String]? = nil,
                                               pciDevices: String = "/sys/bus/pci/devices") -> [String]? {
        guard !userVariables.contains(where: { environment[$0] != nil }),
              let devices = try? FileManager.default.contentsOfDirectory(atPath: pciDevices) else { return nil }
        func read(_ path: String) -> String? {
            (try? String(contentsOfFile: path, encoding: .utf8))?.trimmingCharacters(in: .whitespacesAndNewlines).lowercased()
        }
        // Display controllers are PCI class 0x03.
        let vendors = Set(devices.compactMap { device -> String? in
            let folder = pciDevices + "/" + device
            guard read(folder + "/class")?.hasPrefix("0x03") == true else { return nil }
            return read(folder + "/vendor")
        })
        let found = manifests(in: folders ?? searchFolders(environment))
        let kept = found.filter { path in
            let name = (path as NSString).lastPathComponent
            guard let driver = mesaPCIDrivers.first(where: { name.hasPrefix($0.manifest) }) else { return true }
            return vendors.contains(driver.vendor)
        }
        return kept.isEmpty || kept.count == found.count ? nil : kept
    }

    /// The lavapipe libraries the loader will open (its manifests in `VK_DRIVER_FILES` or `VK_ICD_FILENAMES`, files
    /// or folders, else in its search folders), each to be opened deep-bound first
    /// (`VulkanLoader.deepBindBeforeTheFirstInstance`). lavapipe brings LLVM, whose 9000 symbol bindings otherwise each
    /// search the 170 libraries FFmpeg's dependencies put in the process's global scope before reaching LLVM's
    /// own: making the first Vulkan context took 34-38 ms of a one-clip `framefarm poster`, 24-27 ms deep-bound.
    /// A manifest's relative path with a slash is relative to the manifest's folder; a bare name is left to
    /// dlopen's search, as the loader leaves it. None where the user filters the loader's drivers
    /// (`VK_LOADER_DRIVERS_SELECT`, `VK_LOADER_DRIVERS_DISABLE`): it may not open lavapipe at all.
    public static func lavapipeLibraries(environment: [String: String]) -> [String] {
        let filtered = ["VK_LOADER_DRIVERS_SELECT", "VK_LOADER_DRIVERS_DISABLE"].contains { environment[$0] != nil }
        if filtered { return [] }
        let named = (environment["VK_DRIVER_FILES"] ?? environment["VK_ICD_FILENAMES"])
            .map { $0.split(separator: ":").map(String.init) }
        return manifests(in: named ?? searchFolders(environment)).compactMap { manifest in
            guard let data = FileManager.default.contents(atPath: manifest),
                  let json = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
                  let library = (json["ICD"] as? [String: Any])?["library_path"] as? String,
                  (library as NSString).lastPathComponent.hasPrefix("libvulkan_lvp.") else { return nil }
            guard !library.hasPrefix("/"), library.contains("/") else { return library }
            return ((manifest as NSString).deletingLastPathComponent as NSString).appendingPathComponent(library)
        }
    }

    /// The driver manifests `entries` name, as the loader reads them: a file is one, a folder holds them (its
    /// `.json` files, in name order); a missing entry names none.
    private static func manifests(in entries: [String]) -> [String] {
        entries.flatMap { entry -> [String] in
            var isFolder: ObjCBool = false
            guard FileManager.default.fileExists(atPath: entry, isDirectory: &isFolder) else { return [] }
            guard isFolder.boolValue else { return [entry] }
            let names = (try? FileManager.default.contentsOfDirectory(atPath: entry)) ?? []
            return names.filter { $0.hasSuffix(".json") }.sorted().map { entry + "/" + $0 }
        }
    }

    /// Where the loader looks for driver manifests on Linux, in its order: the user's and the system's
    /// configuration folders, /etc, then the user's and the system's data folders, each with `vulkan/icd.d`.
    static func searchFolders(_ environment: [String: String]) -> [String] {
        // Without HOME the loader skips the user's folders too.
        let home = environment["HOME"]
        func list(_ name: String, _ fallback: String?) -> [String] {
            (environment[name].flatMap { $0.isEmpty ? nil : $0 } ?? fallback ?? "").split(separator: ":").map(String.init)
        }
        let roots = list("XDG_CONFIG_HOME", home.map { $0 + "/.config" }) + list("XDG_CONFIG_DIRS", "/etc/xdg") + ["/etc"]
            + list("XDG_DATA_HOME", home.map { $0 + "/.local/share" }) + list("XDG_DATA_DIRS", "/usr/local/share:/usr/share")
        var seen = Set<String>()
        return roots.map { $0 + "/vulkan/icd.d" }.filter { seen.insert($0).inserted }
    }
}
