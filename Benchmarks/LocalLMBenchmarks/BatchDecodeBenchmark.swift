import Foundation
import LocalLMRuntime

/// `LocalLMBenchmarks batch [smollm2] [gemma3] [qwen05] [qwen15] [sequences=4,8] [tokens=32]`: aggregate decode
/// of several sequences on one loaded model, each on its own thread so that their steps share passes
/// (`DecodeBatcher`), against one sequence measured in the same runs (`ConcurrentDecodeMeasurement`;
/// 2 threads, 32-token prompts, 32 decoded tokens each, median of 3 runs after a warm-up).
/// `scripts/batch/llama_batch_bench.py` measures llama.cpp under the same protocol.
let batchDecodeBenchmark = BenchmarkSuite(name: "batch") { arguments in
    let folder = ProcessInfo.processInfo.environment["LOCALLM_MODELS"].map { URL(fileURLWithPath: $0) }
        ?? FileManager.default.homeDirectoryForCurrentUser.appendingPathComponent(".cache/locallm/models")
    let models = [
        ("smollm2", "SmolLM2-135M-Instruct.Q4_1.gguf"), ("gemma3", "gemma-3-270m-q4_k_m.gguf"),
        ("qwen05", "qwen2.5-coder-0.5b-instruct-q4_k_m.gguf"), ("qwen15", "qwen2.5-coder-1.5b-instruct-q4_k_m.gguf"),
    ]
    let chosen = models.filter { arguments.contains($0.0) }
    let counts = arguments.compactMap { $0.hasPrefix("sequences=") ? $0.dropFirst(10).split(separator: ",").compactMap { Int($0) } : nil }
        .first ?? [4, 8]
    let tokens = arguments.compactMap { $0.hasPrefix("tokens=") ? Int($0.dropFirst(7)) : nil }.first ?? 32
    for (_, name) in chosen.isEmpty ? [models[2]] : chosen {
        let url = folder.appendingPathComponent(name)
        guard FileManager.default.fileExists(atPath: url.path) else {
            print("\(name): missing (run scripts/fetch-models.sh)")
            continue
        }
        let model = try TransformerModel(contentsOf: url, threadCount: 2)
        for count in counts {
            let m = try ConcurrentDecodeMeasurement(model: model, sequences: count, promptTokens: 32, generatedTokens: tokens, runs: 3)
            print(String(format: "%@: %d sequences, aggregate decode %.1f tok/s (%.1f each) = %.2f× one sequence (%.1f tok/s), %.2f sequences per pass",
                         name, count, m.aggregateTokensPerSecond, m.perSequenceTokensPerSecond, m.speedup,
                         m.oneSequenceTokensPerSecond, m.meanBatch))
        }
    }
}
