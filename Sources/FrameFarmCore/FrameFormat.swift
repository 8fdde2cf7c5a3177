/// How a decoded frame's samples are laid out and what colours they mean. Shared by media (which produces
/// frames) and gpu (which consumes them) so neither imports the other.

/// The YUV->RGB matrix of a frame. BT.2020 is the non-constant-luminance variant.
public enum ColorMatrix: String, Codable, Sendable, CaseIterable {
    case bt601, bt709, bt2020

    /// Luma coefficients (Kr, Kb); Kg = 1 - Kr - Kb.
    public var lumaCoefficients: (red: Double, blue: Double) {
        switch self {
        case .bt601: (0.299, 0.114)
        case .bt709: (0.2126, 0.0722)
        case .bt2020: (0.2627, 0.0593)
        }
    }
}

/// Limited ("TV", Y 16-235 and C 16-240 at 8 bits) or full ("PC", 0-255) range.
public enum ColorRange: String, Codable, Sendable, CaseIterable {
    case limited, full
}

/// The transfer function the samples are encoded with. FrameFarm outputs the encoded R'G'B' unchanged, as players
/// do for SDR; only `--linear-light` resampling decodes it.
public enum TransferFunction: String, Codable, Sendable {
    case bt709, srgb, pq, hlg, linear, unknown
}

/// Where chroma samples sit relative to luma (FFmpeg's AVChromaLocation). `left` is MPEG-2/H.264's default:
/// co-sited horizontally with even luma columns, centred vertically between two luma rows.
public enum ChromaSiting: String, Codable, Sendable {
    case left, center, topLeft

    /// Offset, in chroma-plane pixels, to add to `lumaCoordinate / subsampling` along each axis where the axis is
    /// subsampled by 2 (continuous coordinates, pixel centres at i + 0.5).
    public var chromaOffset: (x: Double, y: Double) {
        switch self {
        case .left: (0.25, 0)
        case .center: (0, 0)
        case .topLeft: (0.25, 0.25)
        }
    }
}

/// Colour metadata of a frame, with FFmpeg's "unspecified" already resolved to a concrete choice.
public struct ColorDescription: Codable, Sendable, Equatable {
    public var matrix: ColorMatrix
    public var range: ColorRange
    public var transfer: TransferFunction
    public var chromaSiting: ChromaSiting

    public init(matrix: ColorMatrix, range: ColorRange, transfer: TransferFunction = .bt709,
                chromaSiting: ChromaSiting = .left) {
        self.matrix = matrix
        self.range = range
        self.transfer = transfer
        self.chromaSiting = chromaSiting
    }

    /// What FFmpeg-based players assume when a stream says nothing: BT.601 below 720 lines, BT.709 otherwise.
    public static func assumed(forHeight height: Int) -> ColorDescription {
        ColorDescription(matrix: height >= 720 ? .bt709 : .bt601, range: .limited)
    }
}

/// Sample layout of the planes the GPU uploads as-is. Anything else is converted to one of these on the CPU.
public enum PlaneLayout: String, Codable, Sendable {
    /// Y, Cb, Cr in three planes (yuv420p, yuv422p, yuv444p and their 10-bit variants).
    case planar
    /// Y plane, then one plane of interleaved Cb Cr pairs (nv12, p010).
    case semiPlanar
    /// Luma only; chroma is neutral.
    case gray
}

/// One plane inside a frame's contiguous byte buffer.
public struct PlaneGeometry: Codable, Sendable, Equatable {
    public var byteOffset: Int
    public var bytesPerRow: Int
    public var width: Int
    public var height: Int

    public init(byteOffset: Int, bytesPerRow: Int, width: Int, height: Int) {
        self.byteOffset = byteOffset
        self.bytesPerRow = bytesPerRow
        self.width = width
        self.height = height
    }
}

/// Everything the GPU needs to read a frame's bytes: the layout, sample size, subsampling and colour.
public struct FrameFormat: Codable, Sendable, Equatable {
    public var layout: PlaneLayout
    /// Coded luma size in pixels.
    public var width: Int
    public var height: Int
    /// 1 for 8-bit samples, 2 for 16-bit little-endian words.
    public var bytesPerSample: Int
    /// Significant bits per sample (8, 10, 12).
    public var bitDepth: Int
    /// Bits the value is shifted left inside its 16-bit word (6 for p010, 0 for yuv420p10le).
    public var bitShift: Int
    /// Chroma subsampling factors (1 or 2) along x and y.
    public var chromaSubsamplingX: Int
    public var chromaSubsamplingY: Int
    public var color: ColorDescription

    public init(layout: PlaneLayout, width: Int, height: Int, bytesPerSample: Int, bitDepth: Int, bitShift: Int = 0,
                chromaSubsamplingX: Int, chromaSubsamplingY: Int, color: ColorDescription) {
        self.layout = layout
        self.width = width
        self.height = height
        self.bytesPerSample = bytesPerSample
        self.bitDepth = bitDepth
        self.bitShift = bitShift
        self.chromaSubsamplingX = chromaSubsamplingX
        self.chromaSubsamplingY = chromaSubsamplingY
        self.color = color
    }

    /// Black and white luma in raw sample units (range, bit depth and the p010-style shift applied).
    public var lumaLevels: (black: Double, white: Double) {
        let scale = Double(1 << (bitDepth - 8)) * Double(1 << bitShift)
        return color.range == .limited ? (16 * scale, 235 * scale) : (0, 255 * scale)
    }

    public var chromaWidth: Int { (width + chromaSubsamplingX - 1) / chromaSubsamplingX }
    public var chromaHeight: Int { (height + chromaSubsamplingY - 1) / chromaSubsamplingY }

    /// Tightly packed planes (rows aligned to 4 bytes) in Y, Cb, Cr order; what `byteCount` bytes hold.
    public var packedPlanes: [PlaneGeometry] {
        func aligned(_ bytes: Int) -> Int { (bytes + 3) & ~3 }
        let lumaRow = aligned(width * bytesPerSample)
        let luma = PlaneGeometry(byteOffset: 0, bytesPerRow: lumaRow, width: width, height: height)
        switch layout {
        case .gray:
            return [luma]
        case .planar:
            let chromaRow = aligned(chromaWidth * bytesPerSample)
            let cb = PlaneGeometry(byteOffset: lumaRow * height, bytesPerRow: chromaRow,
                                   width: chromaWidth, height: chromaHeight)
            let cr = PlaneGeometry(byteOffset: cb.byteOffset + chromaRow * chromaHeight, bytesPerRow: chromaRow,
                                   width: chromaWidth, height: chromaHeight)
            return [luma, cb, cr]
        case .semiPlanar:
            let chromaRow = aligned(2 * chromaWidth * bytesPerSample)
            return [luma, PlaneGeometry(byteOffset: lumaRow * height, bytesPerRow: chromaRow,
                                        width: chromaWidth, height: chromaHeight)]
        }
    }

    public var byteCount: Int {
        let last = packedPlanes.last!
        return last.byteOffset + last.bytesPerRow * last.height
    }
}
