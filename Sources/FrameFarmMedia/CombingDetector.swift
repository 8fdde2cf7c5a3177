import FrameFarmCore

/// Finds combing, the mark of interlaced video shown as progressive: the two fields of a frame were captured at
/// different moments, so along the edges of anything that moves alternate rows show different places. Judged
/// from one frame's luma, for streams that do not flag their fields (a careless transcode drops the flag).
///
/// FFmpeg's `idet` counts, per pixel, rows that differ more from the other field than from their own. A single
/// frame cannot tell combing from static detail at the vertical Nyquist limit (a zone plate's rim alternates
/// rows too), so a comb counts only where it runs down a column for `shortestRun` rows, as it does down a moving
/// edge, while fine static detail alternates for a few rows before its phase drifts.
public enum CombingDetector {
    /// Rows a comb must run down a column to count.
    static let shortestRun = 16
    /// How far a combed row stands out from both neighbouring rows (the other field), in the same direction, as
    /// a fraction of the black-to-white range.
    static let toothContrast = 0.08
    /// The share of a frame's measured pixels in combs above which the frame is combed.
    public static let combedFrameShare = 0.001

    /// The share of `frame`'s measured pixels (a column every few pixels, every row) that lie in combs.
    public static func combedShare(in frame: DecodedFrame) -> Double {
        let width = frame.format.width, height = frame.format.height
        let (black, white) = frame.format.lumaLevels
        let bytes = frame.format.bytesPerSample
        return frame.withLumaPlane { base, bytesPerRow in
            combedShare(width: width, height: height, contrast: (white - black) * toothContrast) { x, y in
                bytes == 1 ? Int(base.load(fromByteOffset: y * bytesPerRow + x, as: UInt8.self))
                    : Int(base.loadUnaligned(fromByteOffset: y * bytesPerRow + x * 2, as: UInt16.self))
            }
        }
    }

    /// The share of measured pixels of a `width` x `height` luma plane that lie in combs; `luma(x, y)` reads it.
    static func combedShare(width: Int, height: Int, contrast: Double, luma: (Int, Int) -> Int) -> Double {
        guard width > 0, height >= 5 else { return 0 }
        let step = max(1, width / 480)
        let columns = stride(from: 0, to: width, by: step)
        let measured: Int = ((width + step - 1) / step) * (height - 4)
        let threshold = Int(contrast.rounded(.up))
        var combed = 0
        for x in columns {
            var run = 0
            for y in 2..<(height - 2) {
                let centre = luma(x, y)
                let above = centre - luma(x, y - 1), below = centre - luma(x, y + 1)
                let tooth = min(abs(above), abs(below))
                // A tooth: the row stands out from the other field on both sides, the same way, while its own
                // field's rows two above and below stay near it.
                let ownField: Int = abs(centre - luma(x, y - 2)) + abs(centre - luma(x, y + 2))
                let isTooth = (above > 0) == (below > 0) && tooth > threshold && ownField < tooth
                if isTooth {
                    run += 1
                    if run == shortestRun { combed += shortestRun } else if run > shortestRun { combed += 1 }
                } else {
                    run = 0
                }
            }
        }
        return Double(combed) / Double(measured)
    }
}
