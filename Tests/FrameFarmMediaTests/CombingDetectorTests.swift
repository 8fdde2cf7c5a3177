import Testing
@testable import FrameFarmMedia

/// The combing measure on pictures drawn here: a moving edge woven from two moments combs; the same edge
/// captured at one moment, and fine static detail at the vertical Nyquist limit, do not.
@Suite struct CombingDetectorTests {
    /// A 640x360 luma plane: a bright square on grey whose left edge is at `left(row)`.
    private func share(_ left: (Int) -> Int, lines: ((Int, Int) -> Int)? = nil) -> Double {
        let width = 640, height = 360
        return CombingDetector.combedShare(width: width, height: height, contrast: 219 * CombingDetector.toothContrast) { x, y in
            if let lines { return lines(x, y) }
            return (100..<260).contains(y) && x >= left(y) && x < left(y) + 200 ? 220 : 60
        }
    }

    @Test func aMovingEdgeWovenFromTwoMomentsCombs() {
        // The bottom field sees the square 8 px further right: every edge row in the square's height alternates.
        let woven = share { y in y % 2 == 0 ? 200 : 208 }
        #expect(woven > CombingDetector.combedFrameShare * 3, "\(woven)")
        #expect(share { _ in 200 } == 0)
    }

    /// Rows alternating for a few lines only, as a zone plate's rim does, are detail; run down 40 rows they comb.
    @Test func fineDetailIsNotCombing() {
        func stripes(rows: Range<Int>) -> (Int, Int) -> Int {
            { x, y in rows.contains(y) && (100..<540).contains(x) ? (y % 2 == 0 ? 200 : 40) : 60 }
        }
        #expect(share({ _ in 0 }, lines: stripes(rows: 150..<162)) == 0)
        #expect(share({ _ in 0 }, lines: stripes(rows: 150..<190)) > CombingDetector.combedFrameShare)
    }
}
