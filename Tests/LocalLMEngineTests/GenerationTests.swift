import Foundation
import LocalLMEngine
import LocalLMRuntime
import LocalLMTestSupport
import LocalLMTokenizers
import Testing

/// The one generation loop (`TokenGenerator`) from a fresh sequence, as `locallm generate` runs it.
func generate(sequence: ModelSequence, prompt: [Int], sampler: SamplerChain, grammar: GrammarMask? = nil,
              tokenizer: Tokenizer, options: GenerationLimits,
              onToken: (GeneratedToken) -> Bool = { _ in true }) async throws -> GenerationResult {
    let generator = TokenGenerator(sequence: sequence, tokenizer: tokenizer, sampler: sampler, grammar: grammar, limits: options)
    _ = try await generator.prefill(prompt, yielding: false)
    return try await generator.run(onToken: onToken)
}

@Suite struct GenerationTests {
    static func model() throws -> TransformerModel {
        try TransformerModel(contentsOf: Fixtures.url("runtime/tiny-qwen2.gguf"), threadCount: 2)
    }

    /// 64 greedy tokens after each prompt equal llama.cpp's on ≥ 95% of the prompts (the runtime
    /// issue's criterion, for each model with goldens), with the prompt evaluated as
    /// llama.cpp evaluates it (one batch, ``BatchArithmetic/llamaCpp``) and decode in ggml's order of
    /// operations. The reference is llama.cpp with weight repacking off (`generated_no_repack`): its
    /// repacked Q4_0/Q4_K kernels sum in another order, which LocalLM does not reproduce
    /// (Docs/fidelity.md). All prompts together must reach 95%, each model 85%; the counts are printed.
    /// (Measured: every file 20/20, 12/12 for Qwen2.5-0.5B, except qwen2-iq4 and gemma4, 19/20 each.)
    @Test func greedyGenerationMatchesLlamaCpp() async throws {
        var matches = 0, prompts = 0
        for name in RuntimeGoldens.models + RuntimeGoldens.exactOnlyModels {
            let golden = try RuntimeGoldens.load(name)
            let model = try TransformerModel(contentsOf: try RuntimeGoldens.modelURL(name))
            let tokenizer = try model.makeTokenizer()
            var same = 0
            var report: [String] = []
            for (index, testCase) in golden.cases.enumerated() {
                let sequence = try model.makeSequence(contextSize: testCase.ids.count + 80, batchArithmetic: .llamaCpp)
                let sampler = SamplingOptions.greedy.makeChain()
                let result = try await generate(sequence: sequence, prompt: testCase.ids, sampler: sampler,
                                                tokenizer: tokenizer, options: GenerationLimits(maxTokens: 64))
                if result.ids == testCase.generated_no_repack {
                    same += 1
                } else {
                    let common = zip(result.ids, testCase.generated_no_repack).prefix { $0 == $1 }.count
                    report.append("prompt \(index): same first \(common) of \(testCase.generated_no_repack.count)")
                }
            }
            print("greedy \(name): \(same)/\(golden.cases.count) prompts identical; \(report)")
            #expect(Double(same) >= 0.85 * Double(golden.cases.count), "\(name): \(report)")
            matches += same
            prompts += golden.cases.count
        }
        print("greedy: \(matches)/\(prompts) prompts identical")
        #expect(Double(matches) >= 0.95 * Double(prompts))
    }

    @Test func stopsAtMaxTokens() async throws {
        let model = try Self.model()
        let tokenizer = try model.makeTokenizer()
        let sampler = SamplingOptions.greedy.makeChain()
        let result = try await generate(sequence: try model.makeSequence(contextSize: 64), prompt: [5, 6, 7],
                                        sampler: sampler, tokenizer: tokenizer,
                                        options: GenerationLimits(maxTokens: 5))
        #expect(result.ids.count == 5 && result.stopReason == .maxTokens)
    }

    @Test func stopsAtStopStringsAndCutsThem() async throws {
        let model = try Self.model()
        let tokenizer = try model.makeTokenizer()
        let sampler = SamplingOptions.greedy.makeChain()
        let free = try await generate(sequence: try model.makeSequence(contextSize: 64), prompt: [5, 6, 7],
                                      sampler: sampler, tokenizer: tokenizer, options: GenerationLimits(maxTokens: 40))
        // Stop at the text of the first generated token whose text is new (not in the text before it).
        let cut = try #require((1..<free.ids.count).first { i in
            let piece = tokenizer.decode([Int32(free.ids[i])])
            return !piece.isEmpty && !piece.contains("\u{FFFD}")
                && !tokenizer.decode(free.ids.prefix(i + 1).map(Int32.init)).dropLast(piece.count).contains(piece)
        })
        let prefix = tokenizer.decode(free.ids.prefix(cut).map(Int32.init))
        let stop = tokenizer.decode([Int32(free.ids[cut])])
        let again = SamplingOptions.greedy.makeChain()
        let stopped = try await generate(sequence: try model.makeSequence(contextSize: 64), prompt: [5, 6, 7],
                                         sampler: again, tokenizer: tokenizer,
                                         options: GenerationLimits(maxTokens: 40, stopStrings: [stop]))
        #expect(stopped.stopReason == .stopString(stop))
        #expect(stopped.text == prefix)
    }

    @Test func stopsWhenTheContextIsFull() async throws {
        let model = try Self.model()
        let tokenizer = try model.makeTokenizer()
        let sampler = SamplingOptions.greedy.makeChain()
        let result = try await generate(sequence: try model.makeSequence(contextSize: 6), prompt: [5, 6, 7],
                                        sampler: sampler, tokenizer: tokenizer,
                                        options: GenerationLimits(maxTokens: 50))
        #expect(result.stopReason == .contextFull && result.ids.count == 4)
    }

    @Test func cancellationStopsBetweenTokens() async throws {
        let model = try Self.model()
        let tokenizer = try model.makeTokenizer()
        let task = Task {
            let sampler = SamplingOptions.greedy.makeChain()
            return try await generate(sequence: try model.makeSequence(contextSize: 512), prompt: [5, 6, 7],
                                      sampler: sampler, tokenizer: tokenizer,
                                      options: GenerationLimits(maxTokens: 400)) { _ in
                withUnsafeCurrentTask { $0?.cancel() }  // cancel from inside, after the first token
                return true
            }
        }
        let result = try await task.value
        #expect(result.stopReason == .cancelled && result.ids.count == 1)
    }
}
