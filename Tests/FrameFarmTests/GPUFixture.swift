import Foundation
import FrameFarmMedia
import Testing
@testable import FrameFarm

/// One GPU service for the engine tests (the Vulkan device is shared); any validation message fails the test
/// that checks `assertNoValidationMessages`.
enum SharedGPU {
    static let service: GPUService = {
        do {
            return try GPUService(configuration: testConfiguration.gpu)
        } catch {
            fatalError("No Vulkan device: \(error). Install mesa-vulkan-drivers (make test does).")
        }
    }()

    static func assertNoValidationMessages(sourceLocation: SourceLocation = #_sourceLocation) {
        let messages = service.validationMessages
        #expect(messages.isEmpty, "validation layer: \(messages.prefix(3).joined(separator: " | "))",
                sourceLocation: sourceLocation)
    }
}

/// What the variables `make test` sets ask for (FRAMEFARM_VALIDATION=1 above all): the tests are an edge of the
/// library, as the executables are.
let testConfiguration: Configuration = {
    // Under `make test-sanitize`, lavapipe stays mapped for the life of the test process (see the GPU tests'
    // `TestGPU.keepDriverLoaded`, which says why).
    if let driver = ProcessInfo.processInfo.environment["FRAMEFARM_TEST_CLI_PRELOAD"], !driver.isEmpty {
        _ = dlopen(driver, RTLD_NOW | RTLD_NODELETE)
    }
    do {
        return try Configuration(environment: ProcessInfo.processInfo.environment)
    } catch {
        fatalError("\(error)")
    }
}()

/// Reads a PNG or JPEG written by a job.
func readImage(_ path: String) throws -> RGBAImage {
    try ImageDecoder.decode(try Data(contentsOf: URL(fileURLWithPath: path)))
}
