import Foundation
import FrameFarmCore
import FrameFarmMedia

/// Regrades the sample's SDR pictures as HDR (BT.2020, PQ or HLG), as BT.2408 places SDR in HDR: SDR white at
/// 203 cd/m², the display light an sRGB screen gives the SDR sample scaled to it, and converted to BT.2020's
/// primaries. A correct HDR-to-SDR conversion (FrameFarm's, or a player's) shows it as the SDR sample looks.
/// The published constants are written out here rather than taken from FrameFarm's colour code, so that a test
/// comparing the two renders checks that code against an independent grading.
struct HDRGrade: Sendable {
    let transfer: TransferFunction
    /// Luma coefficients (Kr, Kb) of the SDR pictures: BT.709's from 720 lines up, BT.601's below, as the sample
    /// tags them.
    let sdrCoefficients: (red: Double, blue: Double)

    static let referenceWhite = 203.0
    /// HLG's nominal display peak (BT.2100), whose system gamma is 1.2.
    static let hlgDisplayPeak = 1000.0

    /// BT.709 to BT.2020 primaries, linear light (ITU-R BT.2087, equation 5).
    /// Its columns: the BT.2020 light of BT.709 red, green and blue.
    private static let toBT2020 = (SIMD3(0.6274, 0.0691, 0.0164), SIMD3(0.3293, 0.9195, 0.0880), SIMD3(0.0433, 0.0114, 0.8956))
    private static let bt2020Coefficients = (red: 0.2627, blue: 0.0593)

    // Per pixel, the curves took 15 times as long as drawing and encoding the SDR sample: tables of 4097 entries.
    /// Display light (cd/m²) of an sRGB signal k/4096.
    private let displayLight: [Double]
    /// The PQ signal of light (k/4096)^4 x 203 cd/m²: the gamut conversion, whose rows sum to 1, keeps light within
    /// SDR white.
    private let pqByRoot: [Double]

    init(transfer: TransferFunction, height: Int) {
        self.transfer = transfer
        sdrCoefficients = height >= 720 ? (0.2126, 0.0722) : (0.299, 0.114)
        displayLight = (0...4096).map { Self.srgbToLinear(Double($0) / 4096) * Self.referenceWhite }
        pqByRoot = transfer == .pq ? (0...4096).map { Self.pq(pow(Double($0) / 4096, 4) * Self.referenceWhite) } : []
    }

    /// Regrades 8-bit limited-range planes in place: each luma sample from its own pixel, each chroma sample the
    /// mean of those of the pixels it covers.
    func regrade(_ planes: inout YCbCrPlanes, size: PixelSize, chromaSubsampling: (x: Int, y: Int)) {
        let chromaWidth = (size.width + chromaSubsampling.x - 1) / chromaSubsampling.x
        var cbSums = [Double](repeating: 0, count: planes.cb.count), crSums = cbSums, counts = cbSums
        for y in 0..<size.height {
            for x in 0..<size.width {
                let chroma = (y / chromaSubsampling.y) * chromaWidth + x / chromaSubsampling.x
                let graded = grade(y: planes.luma[y * size.width + x], cb: planes.cb[chroma], cr: planes.cr[chroma])
                planes.luma[y * size.width + x] = Self.code(16 + 219 * graded.y)
                cbSums[chroma] += graded.cb
                crSums[chroma] += graded.cr
                counts[chroma] += 1
            }
        }
        for index in planes.cb.indices where counts[index] > 0 {
            planes.cb[index] = Self.code(128 + 224 * cbSums[index] / counts[index])
            planes.cr[index] = Self.code(128 + 224 * crSums[index] / counts[index])
        }
    }

    /// One pixel: SDR Y'CbCr codes to HDR Y' (0...1) and Cb, Cr (-0.5...0.5).
    private func grade(y: UInt8, cb: UInt8, cr: UInt8) -> (y: Double, cb: Double, cr: Double) {
        let luma = (Double(y) - 16) / 219, blueDifference = (Double(cb) - 128) / 224, redDifference = (Double(cr) - 128) / 224
        let (kr, kb) = sdrCoefficients, kg = 1 - kr - kb
        let red = luma + 2 * (1 - kr) * redDifference, blue = luma + 2 * (1 - kb) * blueDifference
        let signal = SIMD3(red, (luma - kr * red - kb * blue) / kg, blue)
        var light = SIMD3<Double>()
        for channel in 0..<3 { light[channel] = displayLight[Int((min(1, max(0, signal[channel])) * 4096).rounded())] }
        let wide = Self.toBT2020.0 * light.x + Self.toBT2020.1 * light.y + Self.toBT2020.2 * light.z
        let graded = encode(wide)
        let (wr, wb) = Self.bt2020Coefficients
        let outLuma = wr * graded.x + (1 - wr - wb) * graded.y + wb * graded.z
        return (outLuma, (graded.z - outLuma) / (2 * (1 - wb)), (graded.x - outLuma) / (2 * (1 - wr)))
    }

    /// Display light (cd/m², BT.2020 RGB) to the transfer's signal.
    private func encode(_ light: SIMD3<Double>) -> SIMD3<Double> {
        var signal = SIMD3<Double>()
        if transfer == .pq {
            for channel in 0..<3 {
                // Interpolated in the fourth root of the light, in which the curve is smooth down to black.
                let position = (max(0, light[channel]) / Self.referenceWhite).squareRoot().squareRoot() * 4096
                let index = min(4095, Int(position)), fraction = min(1, position - Double(index))
                signal[channel] = pqByRoot[index] * (1 - fraction) + pqByRoot[index + 1] * fraction
            }
            return signal
        }
        // HLG: display light to scene light through the inverse of the OOTF (system gamma 1.2 at 1000 cd/m²),
        // then the OETF.
        let (wr, wb) = Self.bt2020Coefficients
        let displayLuminance = (wr * light.x + (1 - wr - wb) * light.y + wb * light.z) / Self.hlgDisplayPeak
        guard displayLuminance > 0 else { return signal }
        let scale = 1 / Self.hlgDisplayPeak / pow(pow(displayLuminance, 1 / 1.2), 0.2)
        for channel in 0..<3 { signal[channel] = Self.hlg(light[channel] * scale) }
        return signal
    }

    private static func srgbToLinear(_ value: Double) -> Double {
        value <= 0.04045 ? value / 12.92 : pow((value + 0.055) / 1.055, 2.4)
    }

    /// SMPTE ST 2084 inverse EOTF.
    private static func pq(_ nits: Double) -> Double {
        let (m1, m2, c1, c2, c3) = (0.1593017578125, 78.84375, 0.8359375, 18.8515625, 18.6875)
        let power = pow(max(0, nits) / 10000, m1)
        return pow((c1 + c2 * power) / (1 + c3 * power), m2)
    }

    /// ARIB STD-B67 (BT.2100) OETF of scene light 0...1.
    private static func hlg(_ scene: Double) -> Double {
        let (a, b, c) = (0.17883277, 0.28466892, 0.55991073)
        let value = max(0, scene)
        return value <= 1.0 / 12 ? (3 * value).squareRoot() : a * log(12 * value - b) + c
    }

    private static func code(_ value: Double) -> UInt8 { UInt8(min(255, max(0, value.rounded()))) }
}
