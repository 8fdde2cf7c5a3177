import CVulkan
import Foundation
import Testing
@testable import FrameFarmGPU

extension GPUTests {
    @Suite struct ContextTests {
        @Test func selectionParsing() {
            #expect(GPUSelection(argument: "") == .automatic)
            #expect(GPUSelection(argument: "auto") == .automatic)
            #expect(GPUSelection(argument: "1") == .index(1))
            #expect(GPUSelection(argument: "LLVMpipe") == .nameContains("LLVMpipe"))
            let devices = [(name: "llvmpipe (LLVM 15)", rank: 3), (name: "NVIDIA H100", rank: 0), (name: "Intel UHD", rank: 1)]
            #expect(GPUSelection.automatic.choose(among: devices) == 1)
            #expect(GPUSelection.nameContains("intel").choose(among: devices) == 2)
            #expect(GPUSelection.index(5).choose(among: devices) == nil)
        }

        @Test func contextDescribesItsDevice() throws {
            try TestGPU.withRenderer { renderer in
                let context = renderer.context
                #expect(!context.deviceName.isEmpty)
                if context.deviceName.contains("llvmpipe") { #expect(context.deviceType == .cpu) }
                #expect(context.validationEnabled == TestGPU.validationRequested)
            }
        }

        @Test func selectingByNameAndAMissingDevice() throws {
            let validation = TestGPU.validationRequested
            let named = try GPUContext(selection: .index(0), validation: validation)
            let byName = try GPUContext(selection: .nameContains(String(named.deviceName.prefix(4)).uppercased()),
                                        validation: validation)
            #expect(byName.deviceName == named.deviceName)
            #expect(named.validationMessages.isEmpty && byName.validationMessages.isEmpty)
            #expect(throws: GPUError.self) { _ = try GPUContext(selection: .nameContains("no such device anywhere")) }
            #expect(throws: GPUError.self) { _ = try GPUContext(selection: .index(99)) }
        }

        @Test func errorsNameTheCallAndResult() {
            let error = VulkanError(call: "vkCreateComputePipelines", result: VK_ERROR_OUT_OF_DEVICE_MEMORY)
            #expect(error.description == "vkCreateComputePipelines failed: VK_ERROR_OUT_OF_DEVICE_MEMORY")
            #expect(GPUError.noVulkanDevice(reason: "x").description.contains("mesa-vulkan-drivers"))
            #expect(GPUError.noVulkanDevice(reason: "x").description.contains("VK_LOADER_DEBUG"))
        }
    }
}
