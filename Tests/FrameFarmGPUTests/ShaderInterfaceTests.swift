@_spi(Reflection) import Swift
import Testing
@testable import FrameFarmGPU

extension GPUTests {
    /// The std430 structs the host writes must match what the compiled shaders read: member names in order, member
    /// offsets and array strides, taken from the SPIR-V the build embedded.
    @Suite struct ShaderInterfaceTests {
        /// The bits of SPIR-V reflection these checks need.
        struct Reflection {
            var names: [UInt32: String] = [:]
            var memberNames: [UInt32: [UInt32: String]] = [:]
            var memberOffsets: [UInt32: [UInt32: UInt32]] = [:]
            var arrayStrides: [UInt32: UInt32] = [:]
            var runtimeArrayElement: [UInt32: UInt32] = [:]

            init(_ words: [UInt32]) {
                func string(_ slice: ArraySlice<UInt32>) -> String {
                    let bytes = slice.flatMap { word in (0..<4).map { UInt8((word >> ($0 * 8)) & 0xFF) } }
                    return String(decoding: bytes.prefix { $0 != 0 }, as: UTF8.self)
                }
                var index = 5
                while index < words.count {
                    let count = Int(words[index] >> 16), opcode = words[index] & 0xFFFF
                    let operands = words[(index + 1)..<(index + count)]
                    let o = Array(operands)
                    switch opcode {
                    case 5: names[o[0]] = string(operands.dropFirst())
                    case 6: memberNames[o[0], default: [:]][o[1]] = string(operands.dropFirst(2))
                    case 29: runtimeArrayElement[o[0]] = o[1]
                    case 71 where o[1] == 6: arrayStrides[o[0]] = o[2]                 // ArrayStride
                    case 72 where o[2] == 35: memberOffsets[o[0], default: [:]][o[1]] = o[3]  // Offset
                    default: break
                    }
                    index += max(count, 1)
                }
            }

            /// The laid-out struct type named `name` (the one with Offset decorations).
            func structType(_ name: String) -> UInt32? {
                names.first { $0.value == name && memberOffsets[$0.key] != nil }?.key
            }

            func members(of type: UInt32) -> [(name: String, offset: UInt32)] {
                let offsets = memberOffsets[type] ?? [:]
                return offsets.keys.sorted().map { (memberNames[type]?[$0] ?? "?", offsets[$0]!) }
            }

            /// Stride of a runtime array whose elements are `type`.
            func runtimeArrayStride(of type: UInt32) -> UInt32? {
                runtimeArrayElement.first { $0.value == type }.flatMap { arrayStrides[$0.key] }
            }
        }

        static let shaders = [ShaderLibrary.prefilter, ShaderLibrary.resample_horizontal, ShaderLibrary.resample_vertical,
                              ShaderLibrary.overlay]

        /// Each stored property's name and byte offset as the compiler laid out `T` (the runtime's field
        /// metadata, read through the standard library's reflection SPI).
        static func swiftMembers<T>(of _: T) -> [(name: String, offset: Int)] {
            var members: [(name: String, offset: Int)] = []
            _ = _forEachField(of: T.self) { name, offset, _, _ in
                members.append((String(cString: name), offset))
                return true
            }
            return members
        }

        func check<T>(_ value: T, named name: String, isArrayElement: Bool = true) {
            let swiftMembers = Self.swiftMembers(of: value)
            var found = false
            for shader in Self.shaders {
                let reflection = Reflection(shader.words)
                guard let type = reflection.structType(name) else { continue }
                found = true
                let members = reflection.members(of: type)
                #expect(members.map(\.name) == swiftMembers.map(\.name), "\(name) members in \(shader.name)")
                // Every member's offset, not a sample: a reordered or resized member moves the ones after it.
                #expect(members.map { Int($0.offset) } == swiftMembers.map(\.offset), "\(name) offsets in \(shader.name)")
                #expect(Int(members.last!.offset) < MemoryLayout<T>.size, "\(name) in \(shader.name)")
                if isArrayElement, let stride = reflection.runtimeArrayStride(of: type) {
                    #expect(Int(stride) == MemoryLayout<T>.stride, "\(name) stride in \(shader.name)")
                }
            }
            #expect(found, "no shader declares \(name)")
        }

        @Test func hostStructsMatchTheShaders() {
            check(SourceDescriptor(), named: "SourceDescriptor")
            check(PrefilterImage(), named: "PrefilterImage")
            check(ResampleJob(), named: "ResampleJob")
            check(PlaneGroupPass(), named: "PlaneGroupPass", isArrayElement: false)
            check(CanvasDescriptor(), named: "CanvasDescriptor")
            check(OverlayDescriptor(), named: "OverlayDescriptor")
            check(PassConstants(), named: "PassConstants", isArrayElement: false)
        }

        /// The field metadata agrees with the offsets `MemoryLayout` gives.
        @Test func fieldMetadataAgreesWithMemoryLayout() {
            let job = Self.swiftMembers(of: ResampleJob())
            #expect(job.first { $0.name == "luma" }?.offset == MemoryLayout<ResampleJob>.offset(of: \.luma))
            #expect(job.first { $0.name == "chroma" }?.offset == MemoryLayout<ResampleJob>.offset(of: \.chroma))
            let source = Self.swiftMembers(of: SourceDescriptor())
            #expect(source.first { $0.name == "matrix" }?.offset == MemoryLayout<SourceDescriptor>.offset(of: \.matrix))
            #expect(source.first { $0.name == "gamut" }?.offset == MemoryLayout<SourceDescriptor>.offset(of: \.gamut))
        }

        /// Offsets of nested and array members, which a names-only check would miss.
        @Test func nestedMemberOffsets() throws {
            let reflection = Reflection(ShaderLibrary.resample_vertical.words)
            let job = try #require(reflection.structType("ResampleJob"))
            let offsets = Dictionary(uniqueKeysWithValues: reflection.members(of: job).map { ($0.name, Int($0.offset)) })
            #expect(offsets["luma"] == MemoryLayout<ResampleJob>.offset(of: \.luma))
            #expect(offsets["chroma"] == MemoryLayout<ResampleJob>.offset(of: \.chroma))
            let source = try #require(reflection.structType("SourceDescriptor"))
            let sourceOffsets = Dictionary(uniqueKeysWithValues: reflection.members(of: source).map { ($0.name, Int($0.offset)) })
            #expect(sourceOffsets["matrix"] == MemoryLayout<SourceDescriptor>.offset(of: \.matrix))
            #expect(sourceOffsets["gamut"] == MemoryLayout<SourceDescriptor>.offset(of: \.gamut))
            #expect(MemoryLayout<SourceDescriptor>.size - MemoryLayout<SourceDescriptor>.offset(of: \.gamut)! == 48)
            #expect(MemoryLayout<PassConstants>.size == 24)
        }
    }
}
