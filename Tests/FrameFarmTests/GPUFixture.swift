import Foundation
import FrameFarmMedia
import Testing
@testable import FrameFarm

/// One GPU service for the engine tests (the Vulkan device is shared); any validation message fails the test
/// that checks `assertNoValidationMessages`.
enum SharedGPU {
    static let service: GPUService = {
        do {
            return try GPUService(gpu: nil)
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

/// Reads a PNG or JPEG written by a job.
func readImage(_ path: String) throws -> RGBAImage {
    try ImageDecoder.decode(try Data(contentsOf: URL(fileURLWithPath: path)))
}
