import LocalLMEngine
import LocalLMGrammar
import LocalLMRuntime
import LocalLMTestSupport
import Testing

/// The grammar as the first step of the runtime's sampler chain, on SmolLM2's real vocabulary.
@Suite("Grammar in the sampler chain")
struct GrammarMaskRefusalTests {
    let engine: GGUFEngine
    let index: GrammarTokenIndex

    init() throws {
        engine = try GGUFEngine(contentsOf: try TestModels.require(TestModels.smolLM2), threads: nil, contextSize: 512, cacheType: .f16)
        index = try engine.grammarIndex(key: "test:object-a") {
            try CompiledGrammar(jsonSchema: #"{"type":"object","properties":{"a":{"type":"integer"}},"required":["a"]}"#)
        }
    }

    func id(_ text: String) throws -> Int {
        let ids = engine.tokenizer.encode(text, addSpecial: false, parseSpecial: false)
        try #require(ids.count == 1, "\(text) is \(ids)")
        return Int(ids[0])
    }

    /// Logits that rank `tokens` first, in this order.
    func logits(preferring tokens: [Int]) -> [Float] {
        var logits = [Float](repeating: 0, count: engine.tokenizer.vocabulary.count)
        for (rank, token) in tokens.enumerated() { logits[token] = 100 - Float(rank) }
        return logits
    }

    @Test func aTriggerTokenWhoseRestTheGrammarRefusesIsReplaced() throws {
        let mask = GrammarMask(GrammarConstraint(index, activation: .lazy(triggers: ["<tool_call>"])))
        var chain = SamplingOptions.greedy.makeChain(mask: LogitMaskStep(mask))
        for token in engine.tokenizer.encode("Sure: <tool_call", addSpecial: false, parseSpecial: false) {
            #expect(mask.admits(Int(token)))
            chain.accept(Int(token))
        }
        #expect(!mask.isActive)
        // "><" completes the trigger, then "<" cannot start the object: the mask (free text) lets
        // it through, the grammar refuses it, and the chain's next choice, ">", is taken.
        let angleAngle = try id("><"), angle = try id(">")
        #expect(!mask.admits(angleAngle))
        let chosen = mask.choose(with: &chain, logits: logits(preferring: [angleAngle, angle]), isEndOfGeneration: engine.isEndOfGeneration)
        #expect(chosen == angle)
        chain.accept(angle)
        #expect(mask.isActive)
        // Now the grammar constrains: the best-ranked token it allows is chosen, whatever ranks first.
        let brace = try id("{\"")
        let next = mask.choose(with: &chain, logits: logits(preferring: [try id("Hello"), brace]), isEndOfGeneration: engine.isEndOfGeneration)
        #expect(next == brace)
    }

    @Test func refusalsAreBoundedAndEndInNil() throws {
        // Trigger "a": every token with a letter right after its first "a" completes the trigger
        // and goes on with bytes the object grammar refuses. Rank more of them than the bound.
        let mask = GrammarMask(GrammarConstraint(index, activation: .lazy(triggers: ["a"])))
        var chain = SamplingOptions.greedy.makeChain(mask: LogitMaskStep(mask))
        let letters = Set(UInt8(ascii: "a")...UInt8(ascii: "z"))
        let refused = index.tokens.tokenBytes.indices.filter { token in
            let bytes = index.tokens.tokenBytes[token]
            guard !index.tokens.special.contains(token), let a = bytes.firstIndex(of: UInt8(ascii: "a")) else { return false }
            return a + 1 < bytes.count && letters.contains(bytes[a + 1])
        }.prefix(GrammarMask.maximumRefusals + 10)
        #expect(refused.count == GrammarMask.maximumRefusals + 10)
        #expect(refused.allSatisfy { !mask.admits($0) && mask.allows($0) })
        let chosen = mask.choose(with: &chain, logits: logits(preferring: Array(refused)), isEndOfGeneration: engine.isEndOfGeneration)
        #expect(chosen == nil)
        // The refusals last for one choice: once a token is accepted, the mask allows them again.
        let other = try id(" the")
        #expect(mask.admits(other))
        chain.accept(other)
        #expect(refused.allSatisfy { mask.allows($0) })
    }

    @Test func aRequiredGrammarMasksFromTheFirstToken() throws {
        let mask = GrammarMask(GrammarConstraint(index, activation: .required))
        // As a session's `.random(top: 50, seed: 7)` at temperature 1 (min-p off).
        var sampling = SamplingOptions()
        sampling.temperature = 1
        sampling.topK = 50
        sampling.topP = 1
        sampling.minP = 0
        sampling.seed = 7
        var chain = sampling.makeChain(mask: LogitMaskStep(mask))
        var text: [UInt8] = []
        for _ in 0..<12 {
            let token = try #require(mask.choose(with: &chain, logits: logits(preferring: []), isEndOfGeneration: engine.isEndOfGeneration))
            if engine.isEndOfGeneration(token) { break }
            chain.accept(token)
            text += index.tokens.tokenBytes[token]
            if mask.isCompleted { break }
        }
        // Whatever was drawn from flat logits is a prefix of {"a":<integer>}.
        let prefix = String(decoding: text, as: UTF8.self)
        #expect(prefix.hasPrefix("{"), "\(prefix)")
        #expect(prefix.allSatisfy { "{\"a:0123456789-} \n".contains($0) }, "\(prefix)")
    }
}
