import Foundation
import LocalLMEngine
import LocalLMGrammar
import LocalLMRuntime
import LocalLMTokenizers

/// `grammar-decode`: decode speed on SmolLM2 with and without a grammar, for the same prompt and
/// the same number of steps (the tokens the constrained run needed to complete the tool-call
/// schema). Runs alternate (constrained, unconstrained, …) so machine load hits both alike; the
/// first constrained run fills the grammar's lazy cache (reported apart), the rest are warm.
/// Also the schema's compile time and the per-step mask time inside the constrained runs.
/// `scripts/bench-grammar-vs-llama.sh` measures llama.cpp's grammar sampler the same way.
let constrainedDecodeBenchmark = BenchmarkSuite(name: "grammar-decode") { _ in
    let folder = ProcessInfo.processInfo.environment["LOCALLM_MODELS"].map { URL(fileURLWithPath: $0) }
        ?? FileManager.default.homeDirectoryForCurrentUser.appendingPathComponent(".cache/locallm/models")
    let url = folder.appendingPathComponent("SmolLM2-135M-Instruct.Q4_1.gguf")
    guard FileManager.default.fileExists(atPath: url.path) else {
        print("SmolLM2: missing (run scripts/fetch-models.sh)")
        return
    }
    let model = try TransformerModel(contentsOf: url, threadCount: 2)
    let tokenizer = try model.makeTokenizer()
    let schema = GrammarBenchmarkSupport.schemas[0].1  // the tool call
    var compile: [Double] = []
    var grammar: CompiledGrammar?
    for _ in 0..<20 {
        let t0 = threadCPUNanoseconds()
        grammar = try CompiledGrammar(jsonSchema: schema)
        compile.append(Double(threadCPUNanoseconds() - t0) / 1e6)
    }
    compile.sort()
    let t0 = threadCPUNanoseconds()
    let table = TokenTable(vocabulary: tokenizer.vocabulary)
    let tableMs = Double(threadCPUNanoseconds() - t0) / 1e6
    guard let grammar else { return }
    let index = GrammarTokenIndex(grammar: grammar, tokens: table)
    print(String(format: "tool-call schema: compile p50 %.3f ms (max %.3f ms); token table from the vocabulary %.0f ms (once per model)",
                 compile[compile.count / 2], compile.last ?? 0, tableMs))

    let chat = "<|im_start|>user\nWhat is the weather in Paris for the next 3 days? Answer with the get_weather tool call as JSON.<|im_end|>\n<|im_start|>assistant\n"
    let prompt = tokenizer.encode(chat, addSpecial: false, parseSpecial: true).map(Int.init)
    let sequence = try model.makeSequence(contextSize: prompt.count + 80)
    try sequence.evaluate(Array(prompt.dropLast()))
    var options = SamplingOptions()
    options.seed = 1

    /// Decodes up to `steps` tokens after the prompt; returns the tokens, seconds per token (wall)
    /// and the mask times (µs, thread CPU) when constrained.
    func decode(constrained: Bool, steps: Int) throws -> (tokens: [Int], perToken: Double, masks: [Double]) {
        try sequence.truncate(to: prompt.count - 1)
        // The chain `options.makeChain(mask:)` builds, with the mask step held apart to time it.
        var maskStep = LogitMaskStep(GrammarMask(GrammarConstraint(index, activation: .required)))
        var chain = options.makeChain()
        var tokens: [Int] = [], masks: [Double] = []
        var token = prompt[prompt.count - 1]
        let clock = ContinuousClock()
        let start = clock.now
        for _ in 0..<steps {
            let logits = try sequence.evaluate([token])
            var candidates = TokenCandidates(logits: logits)
            if constrained {
                let m0 = threadCPUNanoseconds()
                _ = maskStep.mask.allows(0)  // computes this step's mask
                masks.append(Double(threadCPUNanoseconds() - m0) / 1000)
                maskStep.apply(&candidates)
            }
            chain.apply(&candidates)
            guard let chosen = candidates.selected ?? candidates.ids.first else { break }
            chain.accept(chosen)
            tokens.append(chosen)
            if constrained {
                maskStep.accept(chosen)
                if table.endOfGeneration.contains(chosen) { break }
            }
            token = chosen
        }
        return (tokens, seconds(clock.now - start) / Double(max(tokens.count, 1)), masks)
    }

    let first = try decode(constrained: true, steps: 64)
    let steps = first.tokens.count
    print("constrained output (\(steps) tokens, cold cache): \(tokenizer.decode(first.tokens.map(Int32.init)))")
    var constrained: [Double] = [], free: [Double] = [], masks: [Double] = []
    for _ in 0..<5 {
        let c = try decode(constrained: true, steps: steps)
        constrained.append(c.perToken)
        masks += c.masks
        free.append(try decode(constrained: false, steps: steps).perToken)
    }
    constrained.sort(); free.sort(); masks.sort()
    let c = constrained[constrained.count / 2], f = free[free.count / 2]
    func p(_ a: [Double], _ q: Double) -> Double { a.isEmpty ? 0 : a[min(a.count - 1, Int(Double(a.count) * q))] }
    print(String(format: "SmolLM2 decode, %d steps, median of 5: unconstrained %.2f tok/s, constrained %.2f tok/s (warm cache), ratio %.3f; cold first run %.2f tok/s",
                 steps, 1 / f, 1 / c, f / c, 1 / first.perToken))
    print(String(format: "mask per step inside decode: warm p50 %.1f µs p99 %.1f µs; cold run p50 %.1f µs max %.0f µs",
                 p(masks, 0.5), p(masks, 0.99), p(first.masks.sorted(), 0.5), first.masks.max() ?? 0))
}
