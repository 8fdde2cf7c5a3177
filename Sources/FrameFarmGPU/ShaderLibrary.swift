import Foundation

/// SPIR-V of every shader in `Shaders/`, compiled at build time by the ShaderCompiler plugin; one static per file.
enum ShaderLibrary {}

/// One compiled compute shader.
struct SPIRVModule: Sendable {
    let name: String
    let words: [UInt32]

    init(name: String, base64: String) {
        self.name = name
        let bytes = Data(base64Encoded: base64) ?? Data()
        words = bytes.withUnsafeBytes { Array($0.bindMemory(to: UInt32.self)) }
    }
}
