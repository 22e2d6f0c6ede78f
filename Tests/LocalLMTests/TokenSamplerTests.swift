@testable import LocalLM
import Testing

@Suite("Token sampler")
struct TokenSamplerTests {
    let logits: [Float] = [0.1, 2.0, 1.5, -1.0, 1.9, 0.0, -3.0, 1.0]

    @Test func greedyTakesTheArgmaxAmongAllowedTokens() {
        var sampler = TokenSampler(options: GenerationOptions(samplingMode: .greedy))
        #expect(sampler.sample(logits, allowed: nil) == 1)
        // Only tokens 2 and 5 allowed.
        #expect(sampler.sample(logits, allowed: [1 << 2 | 1 << 5]) == 2)
        #expect(sampler.sample(logits, allowed: [0]) == nil)
    }

    @Test func temperatureZeroIsGreedy() {
        var sampler = TokenSampler(options: GenerationOptions(samplingMode: .random(top: 5, seed: 1), temperature: 0))
        #expect((0..<20).allSatisfy { _ in sampler.sample(logits, allowed: nil) == 1 })
    }

    @Test func topKStaysInTheTopK() {
        var sampler = TokenSampler(options: GenerationOptions(samplingMode: .random(top: 2, seed: 9), temperature: 1))
        let picks = Set((0..<200).compactMap { _ in sampler.sample(logits, allowed: nil) })
        #expect(picks == [1, 4])
    }

    @Test func nucleusKeepsTheSmallestSetReachingTheThreshold() {
        // Probabilities ~ [0.73, 0.27, ~0]: p = 0.5 keeps only the first.
        let sharp: [Float] = [5, 4, -10]
        var sampler = TokenSampler(options: GenerationOptions(samplingMode: .random(probabilityThreshold: 0.5, seed: 3), temperature: 1))
        #expect((0..<50).allSatisfy { _ in sampler.sample(sharp, allowed: nil) == 0 })
        var wide = TokenSampler(options: GenerationOptions(samplingMode: .random(probabilityThreshold: 0.99, seed: 3), temperature: 1))
        #expect(Set((0..<300).compactMap { _ in wide.sample(sharp, allowed: nil) }) == [0, 1])
    }

    @Test func aSeedRepeatsTheSameSequence() {
        let options = GenerationOptions(samplingMode: .random(top: 8, seed: 1234), temperature: 1.5)
        var a = TokenSampler(options: options)
        var b = TokenSampler(options: options)
        let first = (0..<50).compactMap { _ in a.sample(logits, allowed: nil) }
        let second = (0..<50).compactMap { _ in b.sample(logits, allowed: nil) }
        #expect(first == second)
        #expect(Set(first).count > 2, "temperature 1.5 over 8 tokens should vary")
    }
}
