/// Shared helpers for the core tests.

import FrameFarmCore

/// A seeded generator (SplitMix64) so property tests are reproducible run to run.
struct SeededGenerator: RandomNumberGenerator {
    private var state: UInt64

    init(seed: UInt64) {
        state = seed
    }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

func size(_ width: Int, _ height: Int) -> PixelSize {
    PixelSize(width: width, height: height)
}
