import CVulkan

/// Host mirrors of the structs in Shaders/shader_interface.glsl. Scalars, with the shader's explicit padding where
/// std140 aligns to 16 bytes, so Swift's layout of these structs is the shaders'; `ShaderInterfaceTests` checks
/// every size and member offset against the compiled SPIR-V.

/// Binding numbers of the descriptor set layout every pass shares. Bulk data is read through texel views
/// (`uploadTexels`, `uploadQuads`, `planeTexels`, `intermediateTexels`) and written through storage buffers.
enum ShaderBinding: Int, CaseIterable {
    case uploadTexels = 0, sources, images, jobs, planeTexels, overlayCells, planes, intermediate, canvasPixels,
         canvases, intermediateTexels, uploadQuads

    var descriptorType: VkDescriptorType {
        switch self {
        case .uploadTexels, .uploadQuads, .planeTexels, .intermediateTexels: VK_DESCRIPTOR_TYPE_UNIFORM_TEXEL_BUFFER
        // Each dispatch's own descriptors: one struct bound at the item's dynamic offset (see `PassConstants`).
        case .sources, .images, .jobs, .canvases: VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER_DYNAMIC
        // Bound per dispatch at the canvas's offset, so that all canvases together may exceed what one binding
        // can reach; shaders index from the canvas's first pixel.
        case .canvasPixels: VK_DESCRIPTOR_TYPE_STORAGE_BUFFER_DYNAMIC
        case .overlayCells, .planes, .intermediate: VK_DESCRIPTOR_TYPE_STORAGE_BUFFER
        }
    }

    var isDynamic: Bool {
        [VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER_DYNAMIC, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER_DYNAMIC].contains(descriptorType)
    }
}

// Must match Shaders/shader_interface.glsl (std140)
struct SourceDescriptor {
    var byteOffset: UInt32 = 0
    var planeLayout: UInt32 = 0
    var bytesPerSample: UInt32 = 1
    var lumaOffset: UInt32 = 0
    var lumaStride: UInt32 = 0
    var cbOffset: UInt32 = 0
    var crOffset: UInt32 = 0
    var chromaStride: UInt32 = 0
    var lumaWidth: UInt32 = 0
    var lumaHeight: UInt32 = 0
    var chromaWidth: UInt32 = 0
    var chromaHeight: UInt32 = 0
    var chromaScaleX: Float = 1
    var chromaScaleY: Float = 1
    var chromaOffsetX: Float = 0
    var chromaOffsetY: Float = 0
    var transfer: UInt32 = 0
    var convertsColor: UInt32 = 0
    var toneMapPeak: Float = 0
    var pad0: UInt32 = 0
    /// Three rows of four.
    var matrix: (Float, Float, Float, Float, Float, Float, Float, Float, Float, Float, Float, Float) =
        (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
    /// Three rows of three, each padded to four.
    var gamut: (Float, Float, Float, Float, Float, Float, Float, Float, Float, Float, Float, Float) =
        (1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0)
}

// Must match Shaders/shader_interface.glsl (std140)
struct PrefilterImage: Hashable {
    var sourceIndex: UInt32 = 0
    var planeGroup: UInt32 = 0
    var originX: Int32 = 0
    var originY: Int32 = 0
    var lastX: Int32 = 0
    var lastY: Int32 = 0
    var shrinkX: UInt32 = 1
    var shrinkY: UInt32 = 1
    var width: UInt32 = 0
    var height: UInt32 = 0
    var outputOffset: UInt32 = 0
    var planeCount: UInt32 = 0
    var wordsPerRow: UInt32 = 0
    var stride: UInt32 = 0
}

// Must match Shaders/shader_interface.glsl (std140)
struct PlaneGroupPass {
    var planeCount: UInt32 = 0
    var imageIndex: UInt32 = 0
    var rowStart: UInt32 = 0
    var rowCount: UInt32 = 0
    var horizontalTable: UInt32 = 0
    var horizontalTaps: UInt32 = 0
    var verticalTable: UInt32 = 0
    var verticalTaps: UInt32 = 0
    var intermediateOffset: UInt32 = 0
    var pad0: UInt32 = 0
    var pad1: UInt32 = 0
    var pad2: UInt32 = 0
}

// Must match Shaders/shader_interface.glsl (std140)
struct ResampleJob {
    var sourceIndex: UInt32 = 0
    var canvasIndex: UInt32 = 0
    var destinationX: Int32 = 0
    var destinationY: Int32 = 0
    var width: UInt32 = 0
    var height: UInt32 = 0
    var transform: UInt32 = 0
    var intermediateStride: UInt32 = 0
    var luma = PlaneGroupPass()
    var chroma = PlaneGroupPass()
}

// Must match Shaders/shader_interface.glsl (std140)
struct CanvasDescriptor {
    /// MAX_CANVAS_OVERLAYS: a canvas's overlays travel in its uniform block.
    static let maxOverlays = 8

    var pixelOffset: UInt32 = 0  // host only: shaders see the canvas's own binding window
    var width: UInt32 = 0
    var height: UInt32 = 0       // of the window: rows firstRow ..< firstRow + height of the canvas
    var background: UInt32 = 0
    var overlayCount: UInt32 = 0
    var firstRow: UInt32 = 0
    var canvasHeight: UInt32 = 0
    var pad0: UInt32 = 0
    var overlays = InlineArray<8, OverlayDescriptor>(repeating: OverlayDescriptor())
}

extension CanvasDescriptor {
    /// The canvas rows this window holds.
    var rows: Range<Int> { Int(firstRow)..<Int(firstRow + height) }
}

// Must match Shaders/shader_interface.glsl (std140: eight scalars, so no padding)
struct OverlayDescriptor {
    var kind: UInt32 = 0
    var x: Int32 = 0
    var y: Int32 = 0
    var width: Int32 = 0
    var height: Int32 = 0
    var color: UInt32 = 0
    var thickness: Int32 = 0
    var radius: Float = 0
}

// Must match Shaders/shader_interface.glsl (push_constant PassConstants). The item indices also pick the dynamic
// offsets of the uniform blocks (`TableStrides`).
struct PassConstants {
    var job: UInt32 = 0
    var group: UInt32 = 0
    var image: UInt32 = 0
    var source: UInt32 = 0
    var canvas: UInt32 = 0
    var firstCell: UInt32 = 0
}
