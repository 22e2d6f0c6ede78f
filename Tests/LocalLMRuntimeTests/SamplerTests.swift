import Foundation
import LocalLMRuntime
import Testing

@Suite struct SamplerTests {
    static let logits: [Float] = [1.0, 3.0, 2.0, 0.5, 2.9, -1.0, 2.5, 0.0]

    static func apply(_ step: some SamplerStep, _ logits: [Float] = logits) -> TokenCandidates {
        var step = step
        var c = TokenCandidates(logits: logits)
        step.apply(&c)
        return c
    }

    @Test func greedyTakesTheBestLowestIdOnTies() {
        #expect(Self.apply(GreedyStep()).selected == 1)
        #expect(Self.apply(GreedyStep(), [2, 5, 5, 1]).selected == 1)
        var chain = SamplingOptions.greedy.makeChain()
        #expect(chain.sample(Self.logits) == 1)
    }

    /// A greedy-only chain scans the logits without building candidates; it must choose what the
    /// candidate path chooses, ties (lowest id) and NaNs included.
    @Test func greedyShortcutMatchesTheCandidatePath() {
        var generator = SystemRandomNumberGenerator()
        for trial in 0..<200 {
            var logits = (0..<64).map { _ in Float(Int.random(in: -4...4, using: &generator)) / 2 }
            if trial % 5 == 0 { logits[Int.random(in: 0..<64, using: &generator)] = .nan }
            var shortcut = SamplerChain([GreedyStep()])
            var full = TokenCandidates(logits: logits)
            var greedy = GreedyStep()
            greedy.apply(&full)
            #expect(shortcut.choose(logits) == full.selected, "\(logits)")
        }
        #expect(GreedyStep.best(in: []) == nil)
    }

    /// The chain reuses its candidate storage between calls; a second call must not see the first's
    /// narrowed candidates.
    @Test func reusedCandidatesStartFromTheFullVocabulary() {
        var chain = SamplerChain([TopKStep(2), GreedyStep()])
        #expect(chain.choose(Self.logits) == 1)
        #expect(chain.choose([0, 0, 0, 9]) == 3)
        #expect(chain.choose(Self.logits.reversed()) == 6)
    }

    @Test func topKKeepsTheKBest() {
        let c = Self.apply(TopKStep(3))
        #expect(c.ids == [1, 4, 6])
        #expect(Self.apply(TopKStep(0)).count == Self.logits.count)
    }

    @Test func topPKeepsTheSmallestNucleus() {
        // softmax of [3, 2.9, 2.5, 2, …] ≈ [0.316, 0.286, 0.192, 0.116, …]: two hold 0.602, three 0.794.
        #expect(Self.apply(TopPStep(0.6)).ids == [1, 4])
        let c = Self.apply(TopPStep(0.7))
        #expect(c.ids == [1, 4, 6])
        #expect(Self.apply(TopPStep(1)).count == Self.logits.count)
    }

    @Test func minPKeepsTokensNearTheBest() {
        // p_i / p_max ≥ 0.5 ⇔ logit ≥ 3 + ln 0.5 ≈ 2.307
        #expect(Self.apply(MinPStep(0.5)).ids == [1, 4, 6])
    }

    @Test func temperatureScalesAndZeroIsGreedy() {
        let c = Self.apply(TemperatureStep(2))
        #expect(c.logits == Self.logits.map { $0 / 2 })
        #expect(Self.apply(TemperatureStep(0)).ids == [1])
    }

    @Test func penaltiesFollowLlamaCpp() {
        var step = PenaltiesStep(window: 4, repetition: 2, frequency: 0.1, presence: 0.5)
        step.accept(1); step.accept(1); step.accept(5)
        var c = TokenCandidates(logits: Self.logits)
        step.apply(&c)
        #expect(abs(c.logits[1] - (3.0 / 2 - (2 * 0.1 + 0.5))) < 1e-6)
        #expect(abs(c.logits[5] - (-1.0 * 2 - (0.1 + 0.5))) < 1e-6)
        #expect(c.logits[0] == 1.0)
        // The window forgets old tokens.
        step.accept(2); step.accept(3); step.accept(4)
        var d = TokenCandidates(logits: Self.logits)
        step.apply(&d)
        #expect(d.logits[1] == 3.0)
        step.reset()
        var e = TokenCandidates(logits: Self.logits)
        step.apply(&e)
        #expect(e.logits == Self.logits)
    }

    struct EvenOnly: TokenMask {
        var accepted: [Int] = []
        func allows(_ token: Int) -> Bool { token % 2 == 0 }
        mutating func accept(_ token: Int) { accepted.append(token) }
        mutating func reset() { accepted = [] }
    }

    @Test func maskRemovesForbiddenTokensBeforeSelection() {
        var chain = SamplingOptions.greedy.makeChain(mask: LogitMaskStep(EvenOnly()))
        #expect(chain.sample(Self.logits) == 4)  // the best even id (2.9)
        var none = SamplerChain([LogitMaskStep(EvenOnly()), GreedyStep()])
        #expect(none.sample([1, 2, 3].map(Float.init)) == 2)
        var nothing = SamplerChain([LogitMaskStep(EvenOnly())])
        var c = TokenCandidates(ids: [1, 3], logits: [1, 2])
        nothing.apply(&c)
        #expect(c.count == 0)
    }

    @Test func sameSeedSameTokens() {
        var options = SamplingOptions()
        options.temperature = 1.5
        options.topK = 0
        options.topP = 1
        options.minP = 0
        options.seed = 42
        var a = options.makeChain(), b = options.makeChain()
        let runA = (0..<200).compactMap { _ in a.sample(Self.logits) }
        let runB = (0..<200).compactMap { _ in b.sample(Self.logits) }
        #expect(runA == runB)
        #expect(Set(runA).count > 3)  // it really samples
        options.seed = 43
        var c = options.makeChain()
        #expect((0..<200).compactMap { _ in c.sample(Self.logits) } != runA)
        a.reset()
        #expect((0..<200).compactMap { _ in a.sample(Self.logits) } == runA)
    }

    @Test func randomSamplingFollowsTheDistribution() {
        var step = RandomStep(seed: 7)
        var counts = [0, 0]
        for _ in 0..<4000 {
            var c = TokenCandidates(logits: [0, Float(log(3.0))])
            step.apply(&c)
            counts[c.selected ?? 0] += 1
        }
        // p = [0.25, 0.75]
        #expect(abs(Double(counts[1]) / 4000 - 0.75) < 0.03)
    }

    @Test func chainIsAStep() {
        let inner = SamplerChain([TopKStep(2)])
        var outer = SamplerChain([inner, GreedyStep()])
        var c = TokenCandidates(logits: Self.logits)
        outer.apply(&c)
        #expect(c.ids == [1, 4] && c.selected == 1)
    }
}
