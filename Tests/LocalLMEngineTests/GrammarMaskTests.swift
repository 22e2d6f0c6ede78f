import LocalLMEngine
import LocalLMGrammar
import LocalLMRuntime
import Testing

/// The grammar as the chain's mask step, on a toy vocabulary: whatever the logits favour, the
/// chain only picks tokens that continue the grammar, ends only when it is complete, and `reset`
/// starts over.
@Suite struct GrammarMaskTests {
    // 0 "a", 1 "b", 2 "ab", 3 "c", 4 "<eos>", and a padding row 5 beyond the vocabulary.
    static let table = TokenTable(tokenBytes: [Array("a".utf8), Array("b".utf8), Array("ab".utf8), Array("c".utf8), Array("</s>".utf8)],
                                  endOfGeneration: [4], special: [4])

    @Test func chainFollowsTheGrammarWhateverTheLogits() throws {
        let index = GrammarTokenIndex(grammar: try CompiledGrammar(regex: "(ab){2}c"), tokens: Self.table)
        for seed in UInt64(0)..<20 {
            var options = SamplingOptions()
            options.seed = seed
            options.temperature = 2
            options.topK = 0
            let mask = GrammarMask(GrammarConstraint(index, activation: .required))
            var chain = options.makeChain(mask: LogitMaskStep(mask))
            var text = ""
            var ended = false
            for step in 0..<10 {
                // Logits that favour "c", end-of-generation and the padding row.
                let logits: [Float] = [0, 0.5, 0.2, 3, 5, 9].map { $0 + Float(step % 3) * 0.1 }
                let sampled = chain.sample(logits)
                let token = try #require(sampled)
                #expect(token < 5)
                if token == 4 { ended = true; break }
                text += String(decoding: Self.table.tokenBytes[token], as: UTF8.self)
            }
            #expect(ended && text == "ababc", "seed \(seed): \(text)")
            #expect((chain.steps[0] as? LogitMaskStep<GrammarMask>)?.mask === mask)
            #expect(mask.isCompleted)
        }
    }

    @Test func refusedTokensAreNotAdmittedAndResetStartsOver() throws {
        let index = GrammarTokenIndex(grammar: try CompiledGrammar(regex: "ab"), tokens: Self.table)
        let mask = GrammarMask(GrammarConstraint(index, activation: .required))
        #expect(mask.allows(0) && mask.allows(2) && !mask.allows(1) && !mask.allows(4) && !mask.allows(5) && !mask.allows(-1))
        #expect(!mask.admits(1))  // "b" cannot start "ab"
        mask.accept(2)
        #expect(mask.isCompleted && mask.allows(4) && !mask.allows(0))
        mask.reset()
        #expect(!mask.isCompleted && mask.allows(0))
    }
}
