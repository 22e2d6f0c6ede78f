@testable import LocalLM
import LocalLMRuntime
import Foundation
import Testing

/// `GenerationOptions` as the runtime's sampler chain: each sampling mode keeps the tokens it
/// promises, a seed repeats, and a mask (the grammar's place in the chain) comes before all.
@Suite("Generation options → sampler chain")
struct GenerationOptionsSamplingTests {
    let logits: [Float] = [0.1, 2.0, 1.5, -1.0, 1.9, 0.0, -3.0, 1.0]

    /// Allows only the listed tokens, like a grammar's mask.
    struct Only: TokenMask {
        var allowed: Set<Int>
        func allows(_ token: Int) -> Bool { allowed.contains(token) }
        func accept(_ token: Int) {}
        func reset() {}
    }

    @Test func greedyTakesTheArgmaxAmongAllowedTokens() {
        let options = GenerationOptions(samplingMode: .greedy)
        var chain = options.makeSamplerChain()
        #expect(chain.sample(logits) == 1)
        var masked = options.makeSamplerChain(mask: LogitMaskStep(Only(allowed: [2, 5])))
        #expect(masked.sample(logits) == 2)
        var nothing = options.makeSamplerChain(mask: LogitMaskStep(Only(allowed: [])))
        #expect(nothing.sample(logits) == nil)
    }

    @Test func temperatureZeroIsGreedy() {
        var chain = GenerationOptions(samplingMode: .random(top: 5, seed: 1), temperature: 0).makeSamplerChain()
        #expect((0..<20).allSatisfy { _ in chain.sample(logits) == 1 })
    }

    @Test func topKStaysInTheTopK() {
        var chain = GenerationOptions(samplingMode: .random(top: 2, seed: 9), temperature: 1).makeSamplerChain()
        let picks = Set((0..<200).compactMap { _ in chain.sample(logits) })
        #expect(picks == [1, 4])
    }

    @Test func aMaskComesBeforeTopK() {
        // Top-2 of the allowed tokens {0, 2, 3, 7} is {2, 7}, not the global top-2 {1, 4}.
        var chain = GenerationOptions(samplingMode: .random(top: 2, seed: 5), temperature: 1)
            .makeSamplerChain(mask: LogitMaskStep(Only(allowed: [0, 2, 3, 7])))
        #expect(Set((0..<200).compactMap { _ in chain.sample(logits) }) == [2, 7])
    }

    @Test func nucleusKeepsTheSmallestSetReachingTheThreshold() {
        // Probabilities ~ [0.73, 0.27, ~0]: p = 0.5 keeps only the first.
        let sharp: [Float] = [5, 4, -10]
        var narrow = GenerationOptions(samplingMode: .random(probabilityThreshold: 0.5, seed: 3), temperature: 1)
            .makeSamplerChain()
        #expect((0..<50).allSatisfy { _ in narrow.sample(sharp) == 0 })
        var wide = GenerationOptions(samplingMode: .random(probabilityThreshold: 0.99, seed: 3), temperature: 1)
            .makeSamplerChain()
        #expect(Set((0..<300).compactMap { _ in wide.sample(sharp) }) == [0, 1])
    }

    @Test func frequenciesFollowTheTemperedDistribution() {
        // Top-k over all 8 tokens at temperature 2: each token's frequency over 20,000 draws is
        // within 0.015 of softmax(logits / 2).
        var chain = GenerationOptions(samplingMode: .random(top: 8, seed: 42), temperature: 2).makeSamplerChain()
        let draws = 20_000
        var counts = [Int](repeating: 0, count: logits.count)
        for _ in 0..<draws { if let t = chain.sample(logits) { counts[t] += 1 } }
        let weights = logits.map { exp(Double($0) / 2) }
        let total = weights.reduce(0, +)
        for t in logits.indices {
            #expect(abs(Double(counts[t]) / Double(draws) - weights[t] / total) < 0.015, "token \(t)")
        }
    }

    @Test func aSeedRepeatsTheSameSequence() {
        let options = GenerationOptions(samplingMode: .random(top: 8, seed: 1234), temperature: 1.5)
        var a = options.makeSamplerChain()
        var b = options.makeSamplerChain()
        let first = (0..<50).compactMap { _ in a.sample(logits) }
        let second = (0..<50).compactMap { _ in b.sample(logits) }
        #expect(first == second)
        #expect(Set(first).count > 2, "temperature 1.5 over 8 tokens should vary")
        var other = GenerationOptions(samplingMode: .random(top: 8, seed: 1235), temperature: 1.5).makeSamplerChain()
        #expect((0..<50).compactMap { _ in other.sample(logits) } != first)
    }

    @Test func modesMapToOneCutEach() {
        let topK = GenerationOptions(samplingMode: .random(top: 3, seed: 1), temperature: 0.5).samplingOptions
        #expect(topK.topK == 3 && topK.topP == 1 && topK.minP == 0 && topK.temperature == 0.5 && topK.seed == 1)
        let nucleus = GenerationOptions(samplingMode: .random(probabilityThreshold: 0.8, seed: 2)).samplingOptions
        #expect(nucleus.topK == GenerationOptions.nucleusCandidateLimit && nucleus.topP == 0.8 && nucleus.minP == 0 && nucleus.seed == 2)
        #expect(nucleus.temperature == Float(GenerationOptions.defaultTemperature))
        #expect(GenerationOptions(samplingMode: .greedy, temperature: 0.9).samplingOptions.temperature == 0)
        let unset = GenerationOptions().samplingOptions
        #expect(unset.topP == Float(GenerationOptions.defaultProbabilityThreshold) && unset.topK == GenerationOptions.nucleusCandidateLimit)
    }
}
