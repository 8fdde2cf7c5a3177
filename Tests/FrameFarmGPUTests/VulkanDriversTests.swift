import Foundation
import Testing
@testable import FrameFarmGPU

/// Which driver manifests `framefarm` names to the Vulkan loader, over a made-up machine: a folder of manifests
/// and a folder of PCI devices as /sys lists them.
@Suite final class VulkanDriversTests {
    let root = NSTemporaryDirectory() + "framefarm-drivers-\(UUID().uuidString)"
    var manifests: String { root + "/icd.d" }
    var pci: String { root + "/pci" }

    init() throws {
        try FileManager.default.createDirectory(atPath: manifests, withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: pci, withIntermediateDirectories: true)
        for name in ["lvp_icd.x86_64.json", "radeon_icd.x86_64.json", "intel_icd.x86_64.json",
                     "intel_hasvk_icd.x86_64.json", "nvidia_icd.json", "README"] {
            _ = FileManager.default.createFile(atPath: manifests + "/" + name, contents: Data("{}".utf8))
        }
        // A host bridge from Intel (not a display controller) and a virtio network card.
        try device("0000:00:00.0", vendor: "0x8086", class: "0x060000")
        try device("0000:00:03.0", vendor: "0x1af4", class: "0x020000")
    }

    deinit { try? FileManager.default.removeItem(atPath: root) }

    func device(_ address: String, vendor: String, class deviceClass: String) throws {
        let folder = pci + "/" + address
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        try (vendor + "\n").write(toFile: folder + "/vendor", atomically: true, encoding: .utf8)
        try (deviceClass + "\n").write(toFile: folder + "/class", atomically: true, encoding: .utf8)
    }

    func chosen(_ environment: [String: String] = ["HOME": "/home/u"], pci: String? = nil) -> [String]? {
        VulkanDrivers.manifestsForThisMachine(environment: environment, folders: [manifests], pciDevices: pci ?? self.pci)?
            .map { ($0 as NSString).lastPathComponent }
    }

    @Test func mesasDriversForAbsentGPUsAreLeftOut() throws {
        #expect(chosen() == ["lvp_icd.x86_64.json", "nvidia_icd.json"])
        // An AMD display controller (class 0x0300): radeon stays.
        try device("0000:01:00.0", vendor: "0x1002", class: "0x030000")
        #expect(chosen() == ["lvp_icd.x86_64.json", "nvidia_icd.json", "radeon_icd.x86_64.json"])
        // An Intel GPU as a "display controller, other" (0x0380): both Intel drivers stay, nothing is left out.
        try device("0000:00:02.0", vendor: "0x8086", class: "0x038000")
        #expect(chosen() == nil)
    }

    @Test func theUsersChoiceAndAnUnreadableMachineLeaveTheLoaderAlone() {
        #expect(chosen(["VK_DRIVER_FILES": "/x/lvp.json"]) == nil)
        #expect(chosen(["VK_ICD_FILENAMES": "/x/lvp.json"]) == nil)
        #expect(chosen(["VK_ADD_DRIVER_FILES": "/x/extra.json"]) == nil)
        #expect(chosen(pci: root + "/no-sysfs") == nil)
    }

    /// lavapipe's library, as each manifest names it, from the manifests the loader is told to read; other drivers
    /// and files that are not manifests are passed over.
    @Test func lavapipesLibraryIsFoundWhereItsManifestSaysAsTheLoaderResolvesIt() throws {
        let folder = root + "/named"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        func manifest(_ name: String, library: String) {
            let json = #"{"file_format_version": "1.0.0", "ICD": {"library_path": "\#(library)"}}"#
            _ = FileManager.default.createFile(atPath: folder + "/" + name, contents: Data(json.utf8))
        }
        manifest("a_lvp.json", library: "/usr/lib/x86_64-linux-gnu/libvulkan_lvp.so")
        manifest("b_lvp_relative.json", library: "../lib/libvulkan_lvp.so")
        manifest("c_lvp_bare.json", library: "libvulkan_lvp.so")
        manifest("d_radeon.json", library: "/usr/lib/x86_64-linux-gnu/libvulkan_radeon.so")
        _ = FileManager.default.createFile(atPath: folder + "/e_broken.json", contents: Data("{\"ICD\": ".utf8))
        #expect(VulkanDrivers.lavapipeLibraries(environment: ["VK_DRIVER_FILES": folder])
                == ["/usr/lib/x86_64-linux-gnu/libvulkan_lvp.so", folder + "/../lib/libvulkan_lvp.so",
                    "libvulkan_lvp.so"])
        // Files named one by one, in the older variable too; a missing one is passed over, as the loader does.
        let named = [folder + "/d_radeon.json", root + "/gone.json", folder + "/c_lvp_bare.json"].joined(separator: ":")
        #expect(VulkanDrivers.lavapipeLibraries(environment: ["VK_ICD_FILENAMES": named]) == ["libvulkan_lvp.so"])
        #expect(VulkanDrivers.lavapipeLibraries(environment: ["VK_DRIVER_FILES": folder + "/d_radeon.json"]).isEmpty)
        // Drivers filtered by the loader's own variables: lavapipe may not be opened at all.
        for filter in ["VK_LOADER_DRIVERS_SELECT", "VK_LOADER_DRIVERS_DISABLE"] {
            let environment = ["VK_DRIVER_FILES": folder, filter: "*nvidia*"]
            #expect(VulkanDrivers.lavapipeLibraries(environment: environment).isEmpty, "\(filter)")
        }
    }

    @Test func theLoadersSearchPathFollowsTheXDGVariables() {
        let folders = VulkanDrivers.searchFolders(["HOME": "/home/u", "XDG_DATA_DIRS": "/opt/share:/usr/share"])
        #expect(folders == ["/home/u/.config/vulkan/icd.d", "/etc/xdg/vulkan/icd.d", "/etc/vulkan/icd.d",
                            "/home/u/.local/share/vulkan/icd.d", "/opt/share/vulkan/icd.d", "/usr/share/vulkan/icd.d"])
        #expect(VulkanDrivers.searchFolders([:]) == ["/etc/xdg/vulkan/icd.d", "/etc/vulkan/icd.d",
                                                     "/usr/local/share/vulkan/icd.d", "/usr/share/vulkan/icd.d"])
    }
}
