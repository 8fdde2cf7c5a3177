import FrameFarmCore
import Testing

/// How `--rendition` picks from a ladder listed out of order: 1080p, 360p, 720p, 540p, 234p.
@Suite struct RenditionChoiceTests {
    let ladder = [(1920, 1080, 6_000_000), (640, 360, 800_000), (1280, 720, 3_000_000), (960, 540, 2_000_000),
                  (416, 234, 145_000)].map { Rendition.Candidate(width: $0.0, height: $0.1, bandwidth: $0.2) }

    private func pick(_ text: String, minimumWidth: Int? = nil) throws -> Int {
        try RenditionRequest(choice: RenditionChoice(parsing: text), minimumWidth: minimumWidth, purpose: "a test").pick(ladder).index
    }

    /// `auto` takes the smallest picture at least the width asked (160-px thumbnails ask 320: the 234p one, 416
    /// wide), the largest when none is that wide or when the outputs need full size.
    @Test func autoTakesTheSmallestWideEnough() throws {
        #expect(try pick("auto", minimumWidth: 320) == 4)
        #expect(try pick("auto", minimumWidth: 417) == 1)
        #expect(try pick("auto", minimumWidth: 641) == 3)
        #expect(try pick("auto", minimumWidth: 1280) == 2)
        #expect(try pick("auto", minimumWidth: 2622) == 0)
        #expect(try pick("auto") == 0)
        let reason = try RenditionRequest(choice: .auto, minimumWidth: 2622, purpose: "previews").pick(ladder).reason
        #expect(reason == "auto: none is 2622 px wide (for previews), so the largest")
    }

    @Test func namedChoicesPickThatRendition() throws {
        #expect(try pick("highest") == 0)
        #expect(try pick("lowest") == 4)
        #expect(try pick("960x540") == 3)
        #expect(try pick("2") == 2)
        #expect(throws: RenditionError.self) { try pick("5") }
        #expect(throws: RenditionError.self) { try pick("1280x721") }
        for bad in ["", "-1", "1280x", "x720", "0x0", "best"] {
            #expect(throws: ValueParseError.self, "\(bad)") { try RenditionChoice(parsing: bad) }
        }
    }

    /// Two renditions of one size (a low and a high bit rate) differ by bandwidth: highest takes the richer one.
    @Test func equalSizesAreToldApartByBandwidth() throws {
        let twins = [Rendition.Candidate(width: 1280, height: 720, bandwidth: 4_000_000),
                     Rendition.Candidate(width: 1280, height: 720, bandwidth: 2_000_000)]
        #expect(try RenditionRequest(choice: .highest).pick(twins).index == 0)
        #expect(try RenditionRequest(choice: .lowest).pick(twins).index == 1)
    }
}
