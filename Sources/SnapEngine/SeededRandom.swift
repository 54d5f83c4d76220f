/// SplitMix64: a small, fast generator whose sequence is fixed by its seed on every
/// machine and Swift version (unlike the standard library's shuffle algorithms, which
/// are not promised to stay the same). The game's generator lives inside `Game`;
/// cosmetic randomness must use a separate instance so it can never change play.
public struct SeededRandom: RandomNumberGenerator, Sendable, Hashable, Codable {
    private var state: UInt64

    public init(seed: UInt64) {
        state = seed
    }

    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// A uniform integer in `0..<bound` (Lemire's method, no modulo bias).
    public mutating func below(_ bound: Int) -> Int {
        precondition(bound > 0)
        let bound = UInt64(bound)
        var product = next().multipliedFullWidth(by: bound)
        if product.low < bound {
            let threshold = (0 &- bound) % bound
            while product.low < threshold {
                product = next().multipliedFullWidth(by: bound)
            }
        }
        return Int(product.high)
    }

    /// A uniform value in [0, 1) with 53 bits of precision.
    public mutating func unit() -> Double {
        Double(next() >> 11) * 0x1.0p-53
    }

    /// Fisher–Yates, spelled out so the order depends only on this generator.
    public mutating func shuffle<T>(_ items: inout [T]) {
        guard items.count > 1 else { return }
        for i in stride(from: items.count - 1, to: 0, by: -1) {
            items.swapAt(i, below(i + 1))
        }
    }
}

/// Each round's deal seed derived from one match seed: reproducible games for tests,
/// simulations, benchmarks and `snapcards host --seed`. Not secret: a revealed seed gives the
/// generator's state away, and with it the other rounds' deals. A host playing for real
/// draws every round's seed from the system's secure generator instead.
public enum DealSeeds {
    public static func seed(match: UInt64, round: Int) -> UInt64 {
        var random = SeededRandom(seed: (match ^ 0xDEA1_5EED_0000_0000) &+ UInt64(round) &* 0x1_0000_0001)
        return random.next()
    }
}
