/// One step of a sampler chain, like llama.cpp's `llama_sampler_i`: it narrows or re-weights the
/// candidates (`apply`), learns the token finally chosen (`accept`) and forgets its state (`reset`).
///
/// A ``SamplerChain`` is itself a step, so chains compose.
public protocol SamplerStep {
    mutating func apply(_ candidates: inout TokenCandidates)
    mutating func accept(_ token: Int)
    mutating func reset()
}

extension SamplerStep {
    public mutating func accept(_ token: Int) {}
    public mutating func reset() {}
}

/// Divides logits by a temperature. A temperature ≤ 0 keeps only the best token (greedy).
public struct TemperatureStep: SamplerStep {
    public var temperature: Float
    public init(_ temperature: Float) { self.temperature = temperature }

    public mutating func apply(_ candidates: inout TokenCandidates) {
        if temperature <= 0 {
            candidates.keepTop(1)
            return
        }
        guard temperature != 1 else { return }
        for i in candidates.logits.indices { candidates.logits[i] /= temperature }
    }
}

/// Keeps the k tokens with the highest logits (k ≤ 0: all).
public struct TopKStep: SamplerStep {
    public var k: Int
    public init(_ k: Int) { self.k = k }

    public mutating func apply(_ candidates: inout TokenCandidates) {
        guard k > 0 else { return }
        candidates.keepTop(k)
    }
}

/// Keeps the smallest set of best tokens whose probability sums to at least p (p ≥ 1: all).
public struct TopPStep: SamplerStep {
    public var p: Float
    public var minKeep: Int
    public init(_ p: Float, minKeep: Int = 1) { self.p = p; self.minKeep = minKeep }

    public mutating func apply(_ candidates: inout TokenCandidates) {
        guard p < 1, candidates.count > 1 else { return }
        candidates.sort()
        let probabilities = candidates.probabilities()
        var sum: Float = 0
        var keep = candidates.count
        for (i, q) in probabilities.enumerated() {
            sum += q
            if sum >= p && i + 1 >= minKeep { keep = i + 1; break }
        }
        candidates.ids.removeSubrange(keep...)
        candidates.logits.removeSubrange(keep...)
    }
}

/// Keeps tokens whose probability is at least p times the best token's (p ≤ 0: all).
public struct MinPStep: SamplerStep {
    public var p: Float
    public var minKeep: Int
    public init(_ p: Float, minKeep: Int = 1) { self.p = p; self.minKeep = minKeep }

    public mutating func apply(_ candidates: inout TokenCandidates) {
        guard p > 0, candidates.count > 1, let best = candidates.logits.max() else { return }
        // p_i ≥ p · p_max  ⇔  logit_i ≥ logit_max + ln p
        let threshold = best + logf(p)
        candidates.sort()
        var keep = 0
        while keep < candidates.count && (candidates.logits[keep] >= threshold || keep < minKeep) { keep += 1 }
        candidates.ids.removeSubrange(keep...)
        candidates.logits.removeSubrange(keep...)
    }
}

/// Repetition, presence and frequency penalties over the last `window` accepted tokens, as
/// llama.cpp's penalties sampler: a repeated token's positive logit is divided by `repetition`
/// (negative ones multiplied), then `frequency · count + presence` is subtracted.
public struct PenaltiesStep: SamplerStep {
    public var window: Int
    public var repetition: Float
    public var frequency: Float
    public var presence: Float
    private var recent: [Int] = []
    private var counts: [Int: Int] = [:]

    public init(window: Int = 64, repetition: Float = 1, frequency: Float = 0, presence: Float = 0) {
        self.window = window
        self.repetition = repetition
        self.frequency = frequency
        self.presence = presence
    }

    public mutating func apply(_ candidates: inout TokenCandidates) {
        guard window != 0, !(repetition == 1 && frequency == 0 && presence == 0), !counts.isEmpty else { return }
        for i in candidates.ids.indices {
            guard let count = counts[candidates.ids[i]], count > 0 else { continue }
            var l = candidates.logits[i]
            l = l <= 0 ? l * repetition : l / repetition
            l -= Float(count) * frequency + presence
            candidates.logits[i] = l
        }
        candidates.isSorted = false
    }

    public mutating func accept(_ token: Int) {
        guard window > 0 else { return }
        recent.append(token)
        counts[token, default: 0] += 1
        if recent.count > window {
            let old = recent.removeFirst()
            counts[old, default: 1] -= 1
            if counts[old] == 0 { counts[old] = nil }
        }
    }

    public mutating func reset() {
        recent.removeAll()
        counts.removeAll()
    }
}

import Foundation
