import Foundation
import LocalLMRuntime

/// End-to-end prefill and decode on the real models, with the protocol of `locallm bench` / `ref.py
/// bench` (prefill P synthetic tokens in one batch, then decode G one at a time; median of 3 after a
/// warm-up), plus 4 concurrent sequences on one loaded model. `scripts/bench-vs-llama.sh` gives the
/// side-by-side ratios.
let endToEndBenchmark = BenchmarkSuite(name: "end-to-end") { _ in
    let folder = ProcessInfo.processInfo.environment["LOCALLM_MODELS"].map { URL(fileURLWithPath: $0) }
        ?? FileManager.default.homeDirectoryForCurrentUser.appendingPathComponent(".cache/locallm/models")
    for name in ["SmolLM2-135M-Instruct.Q4_1.gguf", "gemma-3-270m-q4_k_m.gguf"] {
        let url = folder.appendingPathComponent(name)
        guard FileManager.default.fileExists(atPath: url.path) else {
            print("\(name): missing (run scripts/fetch-models.sh)")
            continue
        }
        let clock = ContinuousClock()
        let loadStart = clock.now
        let model = try TransformerModel(contentsOf: url, threadCount: 2)
        let load = clock.now - loadStart
        let vocab = model.configuration.vocabularySize
        let promptTokens = 512, genTokens = 128
        let prompt = (0..<promptTokens).map { ($0 * 7919) % (vocab - 300) + 256 }
        let sequence = try model.makeSequence(contextSize: promptTokens + genTokens + 16, batchSize: promptTokens)
        var prefill: [Double] = [], decode: [Double] = []
        for _ in 0..<4 {
            try sequence.truncate(to: 0)
            let t0 = clock.now
            try sequence.evaluate(prompt)
            let t1 = clock.now
            var token = prompt[promptTokens - 1]
            for _ in 0..<genTokens {
                try sequence.evaluate([token])
                token = (token * 31 + 7) % (vocab - 300) + 256
            }
            let t2 = clock.now
            prefill.append(Double(promptTokens) / seconds(t1 - t0))
            decode.append(Double(genTokens) / seconds(t2 - t1))
        }
        let pp = prefill.dropFirst().sorted()[1], tg = decode.dropFirst().sorted()[1]
        print(String(format: "%@: load %.1f ms, prefill %.1f tok/s, decode %.1f tok/s", name, seconds(load) * 1000, pp, tg))

        // Aggregate decode throughput of 4 sequences sharing the model.
        let start = clock.now
        try await withThrowingTaskGroup(of: Void.self) { group in
            for s in 0..<4 {
                group.addTask {
                    let seq = try model.makeSequence(contextSize: 128)
                    var token = 256 + s
                    for _ in 0..<32 {
                        try seq.evaluate([token])
                        token = (token * 31 + 7) % (vocab - 300) + 256
                    }
                }
            }
            try await group.waitForAll()
        }
        print(String(format: "%@: 4 concurrent sequences, %.1f tok/s aggregate decode", name, 128 / seconds(clock.now - start)))
    }
}

private func seconds(_ d: Duration) -> Double {
    let (s, atto) = d.components
    return Double(s) + Double(atto) * 1e-18
}
