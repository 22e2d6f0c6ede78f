import Foundation

/// Picks the next token from logits, as `GenerationOptions` asks: greedy, top-k or nucleus, at a
/// temperature, optionally seeded. Tokens a grammar forbids are excluded before anything else.
package struct TokenSampler {
    package enum Strategy: Equatable {
        case greedy
        case topK(Int)
        case nucleus(Double)
    }

    package let strategy: Strategy
    package let temperature: Double
    private var random: SplitMix64

    /// Nucleus sampling looks at most at this many of the most likely tokens, which keeps each
    /// step O(vocabulary) instead of sorting the whole vocabulary.
    package static let nucleusCandidateLimit = 256

    /// The sampler for a request's options. Without a sampling mode: nucleus 0.9 at temperature 0.7.
    package init(options: GenerationOptions) {
        let temperature = options.temperature ?? 0.7
        switch options.samplingMode?.kind {
        case .greedy: strategy = .greedy
        case .topK(let k): strategy = .topK(max(1, k))
        case .nucleus(let p): strategy = .nucleus(min(max(p, 0), 1))
        case nil: strategy = .nucleus(0.9)
        }
        // Temperature 0 means "always the most likely token", whatever the mode says.
        self.temperature = temperature
        let seed = options.samplingMode?.seed ?? UInt64.random(in: .min ... .max)
        random = SplitMix64(seed: seed)
    }

    /// The next token. `allowed` is a bitmask (bit `t & 63` of word `t >> 6`) or `nil` for all.
    /// Returns `nil` when nothing is allowed.
    package mutating func sample(_ logits: [Float], allowed: [UInt64]?) -> Int? {
        func isAllowed(_ t: Int) -> Bool {
            guard let allowed else { return true }
            return allowed[t >> 6] & (1 << UInt64(t & 63)) != 0
        }
        if strategy == .greedy || temperature <= 0 {
            var best: Int?
            var bestValue = -Float.infinity
            for t in logits.indices where isAllowed(t) && logits[t].isFinite && (best == nil || logits[t] > bestValue) {
                best = t
                bestValue = logits[t]
            }
            return best
        }
        let limit: Int =
            switch strategy {
            case .topK(let k): k
            default: Self.nucleusCandidateLimit
            }
        // The `limit` best allowed tokens, best first (insertion into a short sorted list).
        var top: [(token: Int, logit: Float)] = []
        top.reserveCapacity(limit + 1)
        for t in logits.indices where isAllowed(t) && logits[t].isFinite {
            let value = logits[t]
            if top.count == limit, let last = top.last, value <= last.logit { continue }
            var low = 0
            var high = top.count
            while low < high {
                let mid = (low + high) / 2
                if top[mid].logit >= value { low = mid + 1 } else { high = mid }
            }
            top.insert((t, value), at: low)
            if top.count > limit { top.removeLast() }
        }
        guard let first = top.first else { return nil }
        let scale = Float(1 / temperature)
        var weights = top.map { Double(exp(($0.logit - first.logit) * scale)) }
        if case .nucleus(let p) = strategy {
            let total = weights.reduce(0, +)
            var cumulative = 0.0
            var keep = weights.count
            for (i, w) in weights.enumerated() {
                cumulative += w / total
                if cumulative >= p {
                    keep = i + 1
                    break
                }
            }
            weights.removeSubrange(keep...)
        }
        let total = weights.reduce(0, +)
        var target = Double(random.next() >> 11) / Double(1 << 53) * total
        for (i, w) in weights.enumerated() {
            target -= w
            if target < 0 { return top[i].token }
        }
        return top[weights.count - 1].token
    }
}

/// A small, fast, seedable generator: the same seed gives the same tokens.
package struct SplitMix64: RandomNumberGenerator {
    private var state: UInt64

    package init(seed: UInt64) {
        state = seed
    }

    package mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
