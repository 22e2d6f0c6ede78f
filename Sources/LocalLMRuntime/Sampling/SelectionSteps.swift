/// Selects the candidate with the highest logit (the lowest id among equals, as llama.cpp).
public struct GreedyStep: SamplerStep {
    public init() {}

    public mutating func apply(_ candidates: inout TokenCandidates) {
        guard candidates.count > 0 else { return }
        var best = 0
        for i in 1..<candidates.count {
            let l = candidates.logits[i], b = candidates.logits[best]
            if l > b || (l == b && candidates.ids[i] < candidates.ids[best]) { best = i }
        }
        candidates.selected = candidates.ids[best]
    }

    /// The index of the highest of `logits` (the lowest among equals; NaNs never win), or nil when
    /// empty: what `apply` selects from a full vocabulary, without building the candidate list.
    public static func best(in logits: [Float]) -> Int? {
        logits.withUnsafeBufferPointer { l -> Int? in
            guard !l.isEmpty else { return nil }
            var best = 0
            for i in 1..<l.count where l[i] > l[best] { best = i }
            return best
        }
    }
}

/// Draws a candidate with probability softmax(logits), from a seeded generator: the same seed and the
/// same logits give the same tokens.
public struct RandomStep: SamplerStep {
    public let seed: UInt64
    private var generator: SplitMix64

    public init(seed: UInt64) {
        self.seed = seed
        generator = SplitMix64(seed: seed)
    }

    public mutating func apply(_ candidates: inout TokenCandidates) {
        guard candidates.count > 0 else { return }
        candidates.sort()
        let p = candidates.probabilities()
        // 24 random bits → a uniform float in [0, 1).
        let u = Float(generator.next() >> 40) / Float(1 << 24)
        var cumulative: Float = 0
        for (i, q) in p.enumerated() {
            cumulative += q
            if u < cumulative {
                candidates.selected = candidates.ids[i]
                return
            }
        }
        candidates.selected = candidates.ids[p.count - 1]
    }

    public mutating func reset() { generator = SplitMix64(seed: seed) }
}

/// SplitMix64: small, fast, and the same on every platform (unlike the system generator).
struct SplitMix64: RandomNumberGenerator {
    private var state: UInt64
    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
