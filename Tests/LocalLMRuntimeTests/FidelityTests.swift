import Foundation
import LocalLMRuntime
import LocalLMTestSupport
import Testing

/// Logits and greedy generations against llama.cpp's (goldens from scripts/goldens/runtime_goldens.py).
///
/// How close is close enough: llama.cpp quantizes activations to 8 bits before each product and rounds
/// attention operands to F16, so a last-bit difference in any float sum can flip one rounding and move
/// a logit by a few tenths. llama.cpp disagrees with itself that much: evaluating the same goldens one
/// token at a time instead of in one batch moves its logits by up to 1.2 (SmolLM2), 2.2 (Gemma 3),
/// 1.9 (tiny qwen2) and 0.4 (tiny qwen3), and changes the argmax at 1-2% of positions, always between
/// near-tied tokens. So the tests require what that noise allows and a real bug would break: the
/// argmax equal at ≥ 97% of positions and, where not, our choice within 1.0 of llama.cpp's best
/// logit by llama.cpp's own numbers (measured: at most 0.51 on the real models and tiny qwen2, whose
/// logits are ~45; 0.996 on tiny phi3, at a position where the decode path, like llama.cpp's own,
/// moves a logit by 1.8); logits within 3 of llama.cpp's on its top 16 tokens; mean KL
/// divergence below 0.01. A wrong RoPE, norm or mask breaks all of these by far.
@Suite struct FidelityTests {
    static let models = RuntimeGoldens.models

    @Test(arguments: models)
    func logitsMatchLlamaCpp(model name: String) throws {
        let golden = try RuntimeGoldens.load(name)
        let model = try TransformerModel(contentsOf: try RuntimeGoldens.modelURL(name))
        #expect(model.configuration.vocabularySize == golden.n_vocab)
        let agreement = try Self.agreement(model, golden, cases: golden.cases[...], batchSize: 512)
        print("fidelity \(name): \(agreement)")
        #expect(golden.cases.count >= RuntimeGoldens.minimumCases(name))
        #expect(Double(agreement.argmaxMismatches.count) <= 0.03 * Double(agreement.positions), "\(agreement.argmaxMismatches)")
        #expect(agreement.largestReferenceGap < 1.0, "\(agreement.argmaxMismatches)")
        #expect(agreement.maxAbsDifference < Self.logitBound(name))
        #expect(agreement.klSum / Double(agreement.positions) < 0.01)
    }

    /// The bound on |our logit − llama.cpp's| over its top 16 tokens: 3, except the tiny phi3, on
    /// which llama.cpp's own one-batch and one-token logits differ by up to 5.03 on those tokens
    /// (`scripts/goldens/llama_self_consistency.py phi3`, 2026-11-28): a last-bit change in any sum moves
    /// them that far (the interleaved Q4_K prefill kernel, one ulp from the decode kernel's rows,
    /// measured 4.27 there; the decode kernel 1.79).
    static func logitBound(_ name: String) -> Double { name == "phi3" ? 5.5 : 3 }

    /// Models checked only in llama.cpp's arithmetic (``RuntimeGoldens/exactOnlyModels``): the tiny gemma4,
    /// whose logits move by up to 3.07 between llama.cpp's own decode and batch paths (its argmax flips at
    /// 1 of 183 positions), too sensitive for the tolerances above. Evaluated as llama.cpp evaluates it
    /// (one batch, ``BatchArithmetic/llamaCpp``), the argmax agrees at ≥ 97% of positions (measured: 375
    /// of 379) and, where not, within 2.0 of llama.cpp's best logit (measured 1.80), inside that noise.
    @Test(arguments: RuntimeGoldens.exactOnlyModels)
    func exactArithmeticArgmaxMatchesLlamaCpp(model name: String) throws {
        let golden = try RuntimeGoldens.load(name)
        let model = try TransformerModel(contentsOf: try RuntimeGoldens.modelURL(name))
        let agreement = try Self.agreement(model, golden, cases: golden.cases[...], batchSize: 512, arithmetic: .llamaCpp)
        print("exact fidelity \(name): \(agreement)")
        #expect(golden.cases.count >= RuntimeGoldens.minimumCases(name))
        #expect(Double(agreement.argmaxMismatches.count) <= 0.03 * Double(agreement.positions), "\(agreement.argmaxMismatches)")
        #expect(agreement.largestReferenceGap < 2.0, "\(agreement.argmaxMismatches)")
    }

    /// The decode path (one token per forward pass: quantized matvecs, and attention of a query head
    /// group over the cache) holds the same agreement with llama.cpp's batched logits.
    @Test(arguments: models)
    func decodeLogitsMatchLlamaCpp(model name: String) throws {
        let golden = try RuntimeGoldens.load(name)
        let model = try TransformerModel(contentsOf: try RuntimeGoldens.modelURL(name))
        let agreement = try Self.agreement(model, golden, cases: golden.cases.prefix(8), batchSize: 1)
        print("decode fidelity \(name): \(agreement)")
        #expect(Double(agreement.argmaxMismatches.count) <= 0.03 * Double(agreement.positions) + 1, "\(agreement.argmaxMismatches)")
        #expect(agreement.largestReferenceGap < 0.6, "\(agreement.argmaxMismatches)")
        #expect(agreement.maxAbsDifference < 3)
        #expect(agreement.klSum / Double(agreement.positions) < 0.01)
    }

    /// With ``BatchArithmetic/llamaCpp``, SmolLM2's logits are llama.cpp's bit for bit: every top-16
    /// logit at every position of every prompt, evaluated in one batch as llama.cpp evaluated them.
    /// (SmolLM2's Q4_1 and Q8_0 weights are not repacked by llama.cpp, so its goldens come from the
    /// plain ggml kernels whose order of operations LocalLM reproduces; see Docs/fidelity.md.)
    @Test func llamaCppArithmeticGivesIdenticalLogits() throws {
        let golden = try RuntimeGoldens.load("smollm2")
        let model = try TransformerModel(contentsOf: try RuntimeGoldens.modelURL("smollm2"))
        let vocab = golden.n_vocab
        var compared = 0
        var different: [String] = []
        for (index, testCase) in golden.cases.enumerated() {
            let sequence = try model.makeSequence(contextSize: 256, batchArithmetic: .llamaCpp)
            let logits = try sequence.evaluate(testCase.ids, allPositions: true)
            for (p, position) in testCase.positions.enumerated() {
                for entry in position.top {
                    let id = Int(entry[0])
                    compared += 1
                    if logits[p * vocab + id] != Float(entry[1]) {
                        different.append("prompt \(index) position \(p) token \(id): \(logits[p * vocab + id]) vs \(Float(entry[1]))")
                    }
                }
            }
        }
        #expect(compared > 3000)
        #expect(different.isEmpty, "\(different.count) of \(compared) differ: \(different.prefix(5))")
    }

    /// Evaluates each case's prompt in a fresh sequence (`batchSize` tokens per forward pass) and
    /// compares the logits of every position with llama.cpp's.
    static func agreement(_ model: TransformerModel, _ golden: RuntimeGoldens, cases: ArraySlice<RuntimeGoldens.Case>,
                          batchSize: Int, arithmetic: BatchArithmetic = .fast) throws -> LogitAgreement {
        var agreement = LogitAgreement()
        let vocab = golden.n_vocab
        for (index, testCase) in cases.enumerated() {
            let sequence = try model.makeSequence(contextSize: 256, batchSize: batchSize, batchArithmetic: arithmetic)
            let logits = try sequence.evaluate(testCase.ids, allPositions: true)
            logits.withUnsafeBufferPointer { all in
                for (p, position) in testCase.positions.enumerated() {
                    let row = UnsafeBufferPointer(rebasing: all[(p * vocab)..<((p + 1) * vocab)])
                    agreement.add(row: row, golden: position, label: "prompt \(index) position \(p)")
                }
            }
        }
        return agreement
    }
}
