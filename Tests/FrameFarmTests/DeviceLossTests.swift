import Foundation
import FrameFarmMedia
import Testing
@testable import FrameFarm

/// Issue 7, item 2: a device loss or out-of-memory error fails only the input that hit it, with a message that
/// says so, and the service recreates the Vulkan context for the inputs after it. The error is injected (no
/// driver loses a device on demand); everything around it is the real engine on the real device.
@Suite struct DeviceLossTests {
    static let deviceLost: Int32 = -4
    static let outOfDeviceMemory: Int32 = -2

    @Test func deviceLossFailsOneInputAndTheRestRunOnANewContext() throws {
        let directory = TemporaryDirectory()
        let inputs = try (1...3).map { index in
            try makeSample(in: directory, name: "clip\(index).mp4") { options in
                options.size = PixelSize(width: 96, height: 54)
                options.durationSeconds = 1
            }
        }
        // Its own service: the shared one must not see the injected faults.
        let gpu = try GPUService(configuration: testConfiguration.gpu)
        var options = PreviewOptions()
        options.devices = [DeviceCatalog.builtIn.device(id: "pip-iphone")!]
        let out = directory.file("out")

        gpu.injectFault(call: "vkQueueSubmit", result: Self.deviceLost)
        let lost = PreviewJob.run(inputs: inputs, outputRoot: out, options: options, gpu: gpu)
        #expect(lost.succeeded == 2 && lost.failed == 1)
        let reason = lost.failures.first?.reason ?? ""
        #expect(reason == "the Vulkan device was lost (vkQueueSubmit failed: VK_ERROR_DEVICE_LOST); "
                + "the Vulkan context was recreated for the remaining inputs")
        #expect(gpu.recreations == 1)

        var posterOptions = PosterOptions()
        posterOptions.widths = [160]
        gpu.injectFault(call: "vkAllocateMemory", result: Self.outOfDeviceMemory)
        let oom = PosterJob.run(inputs: inputs, outputRoot: out, options: posterOptions, gpu: gpu)
        #expect(oom.succeeded == 2 && oom.failed == 1)
        #expect(oom.failures.first?.reason.hasPrefix(
            "the GPU ran out of memory (vkAllocateMemory failed: VK_ERROR_OUT_OF_DEVICE_MEMORY)") == true)
        #expect(gpu.recreations == 2)

        // A re-run redoes exactly the failed inputs, on the new context.
        let again = PreviewJob.run(inputs: inputs, outputRoot: out, options: options, gpu: gpu)
        #expect(again.failed == 0)
        #expect(again.inputs.filter { $0.status == .done }.map(\.path) == lost.failures.map(\.path))
        #expect(gpu.recreations == 2)
        #expect(gpu.validationMessages.isEmpty, "validation layer: \(gpu.validationMessages.prefix(3))")
    }
}
