/// How a decoded frame's samples are laid out and what colours they mean. Shared by media (which produces
/// frames) and gpu (which consumes them) so neither imports the other.

/// The YUV->RGB matrix of a frame. BT.2020 is the non-constant-luminance variant. `rgb`: the planes are R'G'B'
/// themselves, stored G, B, R (FFmpeg's planar `gbrp` order) where Y', Cb, Cr would be, with no matrix at all.
public enum ColorMatrix: String, Codable, Sendable, CaseIterable {
    case bt601, bt709, bt2020, rgb
    /// SMPTE 240M, early HDTV's (1035i) and still tagged by some archives and encoders: read as BT.601 it is a
    /// green 20 levels too bright.
    case smpte240m

    /// Luma coefficients (Kr, Kb); Kg = 1 - Kr - Kb. For `rgb`, which converts nothing, those of its sRGB pixels
    /// (BT.709's).
    public var lumaCoefficients: (red: Double, blue: Double) {
        switch self {
        case .bt601: (0.299, 0.114)
        case .bt709, .rgb: (0.2126, 0.0722)
        case .bt2020: (0.2627, 0.0593)
        case .smpte240m: (0.212, 0.087)
        }
    }
}

/// Limited ("TV", Y 16-235 and C 16-240 at 8 bits) or full ("PC", 0-255) range.
public enum ColorRange: String, Codable, Sendable, CaseIterable {
    case limited, full
}

/// The transfer function the samples are encoded with. SDR R'G'B' is output unchanged, as players show it; only
/// `--linear-light` resampling decodes it. HDR (PQ, HLG) is always decoded and tone-mapped to SDR.
public enum TransferFunction: String, Codable, Sendable {
    case bt709, srgb, pq, hlg, linear, unknown

    /// PQ (SMPTE ST 2084, HDR10) and HLG (ARIB STD-B67): display light far above SDR white.
    public var isHDR: Bool { self == .pq || self == .hlg }
}

/// The RGB primaries (with their D65 white) the colours are expressed in. Outputs are sRGB, whose primaries are
/// BT.709's; BT.601's differ from them by less than players correct for, so they count as BT.709.
public enum ColorPrimaries: String, Codable, Sendable, CaseIterable {
    case bt709, bt2020, displayP3

    /// CIE 1931 xy of red, green, blue and the white point.
    public var chromaticities: (red: (Double, Double), green: (Double, Double), blue: (Double, Double),
                                white: (Double, Double)) {
        let d65 = (0.3127, 0.3290)
        return switch self {
        case .bt709: ((0.640, 0.330), (0.300, 0.600), (0.150, 0.060), d65)
        case .bt2020: ((0.708, 0.292), (0.170, 0.797), (0.131, 0.046), d65)
        case .displayP3: ((0.680, 0.320), (0.265, 0.690), (0.150, 0.060), d65)
        }
    }
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
    public var primaries: ColorPrimaries
    /// Brightest light in the content, in cd/m² (HDR metadata: MaxCLL, else the mastering display's peak); nil
    /// when the stream doesn't say.
    public var peakLuminance: Double?

    public init(matrix: ColorMatrix, range: ColorRange, transfer: TransferFunction = .bt709,
                chromaSiting: ChromaSiting = .left, primaries: ColorPrimaries = .bt709, peakLuminance: Double? = nil) {
        self.matrix = matrix
        self.range = range
        self.transfer = transfer
        self.chromaSiting = chromaSiting
        self.primaries = primaries
        self.peakLuminance = peakLuminance
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

/// Where a plane's samples lie in memory: the first row, and the bytes from one row to the next (negative for
/// frames stored bottom-up; twice the frame's for one field of an interlaced frame). Owns nothing.
public struct PlaneMemory {
    public var firstRow: UnsafeRawPointer
    public var bytesPerRow: Int

    public init(firstRow: UnsafeRawPointer, bytesPerRow: Int) {
        self.firstRow = firstRow
        self.bytesPerRow = bytesPerRow
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
