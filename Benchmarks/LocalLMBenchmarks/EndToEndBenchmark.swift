import Foundation
import LocalLMKernels
import LocalLMRuntime

/// End-to-end figures on the real models, with the protocol of `locallm bench` / `ref.py bench`
/// (prefill P synthetic tokens in one batch, then decode G one at a time; median of 3 after a warm-up),
/// plus what the performance issue asks to report beside speed:
/// - decode as a fraction of the memory-bandwidth limit (bytes read per token ÷ measured read bandwidth);
/// - time to first token for a 200-token chat prompt (prefill + the first greedy pick);
/// - load time (mmap + tensor table) and peak RSS against the budget file + KV cache + 15%;
/// - aggregate decode throughput of 4 concurrent sequences on one loaded model;
/// - the same with an F32 KV cache, for the F16/F32 choice.
///
/// `end-to-end [smollm2|gemma3|qwen05|qwen15] [--kv f32]`; run each model in its own process for a clean peak RSS.
/// `scripts/bench-vs-llama.sh` gives the side-by-side ratios with llama.cpp.
let endToEndBenchmark = BenchmarkSuite(name: "end-to-end") { arguments in
    let folder = ProcessInfo.processInfo.environment["LOCALLM_MODELS"].map { URL(fileURLWithPath: $0) }
        ?? FileManager.default.homeDirectoryForCurrentUser.appendingPathComponent(".cache/locallm/models")
    let models = [("smollm2", "SmolLM2-135M-Instruct.Q4_1.gguf"), ("gemma3", "gemma-3-270m-q4_k_m.gguf"),
                  ("qwen05", "qwen2.5-coder-0.5b-instruct-q4_k_m.gguf")]
    // Qwen 1.5B (fetched with `scripts/fetch-models.sh --with-1.5b`) only when asked for by name.
    let optional = [("qwen15", "qwen2.5-coder-1.5b-instruct-q4_k_m.gguf")]
    let chosen = (models + optional).filter { arguments.contains($0.0) }
    let cacheType: KVCacheStorage = arguments.contains("f32") ? .f32 : .f16
    var decodeFigures: [(name: String, tokensPerSecond: Double, bytesPerToken: Double)] = []
    for (_, name) in chosen.isEmpty ? models : chosen {
        let url = folder.appendingPathComponent(name)
        guard FileManager.default.fileExists(atPath: url.path) else {
            print("\(name): missing (run scripts/fetch-models.sh)")
            continue
        }
        // What the process holds before the model: the Swift runtime, Foundation and OpenBLAS pages.
        let baseline = residentBytes()
        let clock = ContinuousClock()
        let loadStart = clock.now
        let model = try TransformerModel(contentsOf: url, threadCount: 2)
        let load = clock.now - loadStart
        let vocab = model.configuration.vocabularySize
        let promptTokens = 512, genTokens = 128
        let prompt = (0..<promptTokens).map { ($0 * 7919) % (vocab - 300) + 256 }
        let sequence = try model.makeSequence(contextSize: promptTokens + genTokens + 16, cacheType: cacheType,
                                              batchSize: promptTokens)
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
        // Bytes one decode step reads, with the KV cache as it is in the middle of the decode.
        let perToken = model.decodeBytesPerToken(kvBytesPerPosition: sequence.cache.byteCount / sequence.contextSize,
                                                 cachedPositions: promptTokens + genTokens / 2)
        decodeFigures.append((name, tg, perToken))
        print(String(format: "%@ (KV %@): load %.1f ms, prefill %.1f tok/s, decode %.1f tok/s",
                     name, cacheType.rawValue, seconds(load) * 1000, pp, tg))

        let fileBytes = (try? FileManager.default.attributesOfItem(atPath: url.path)[.size] as? Int) ?? 0
        let budget = Double(fileBytes + sequence.cache.byteCount) * 1.15
        let peak = peakResidentBytes()
        print(String(format: "%@: peak RSS %.1f MB after prefill and decode of one sequence (%.1f MB above the %.1f MB the process held before loading: runtime libraries); budget (file %.1f MB + KV %.1f MB) + 15%% = %.1f MB%@", name,
                     Double(peak) / 1e6, Double(peak - baseline) / 1e6, Double(baseline) / 1e6,
                     Double(fileBytes) / 1e6, Double(sequence.cache.byteCount) / 1e6,
                     budget / 1e6, chosen.count == 1 ? "" : " (peak is process-wide: run one model per process)"))

        // Time to first token for a 200-token chat prompt, in a fresh sequence (median of 5).
        let chat = try chatPrompt(model: model, tokens: 200)
        var ttft: [Double] = []
        for _ in 0..<5 {
            let fresh = try model.makeSequence(contextSize: 512, cacheType: cacheType)
            let t0 = clock.now
            let logits = try fresh.evaluate(chat)
            _ = logits.indices.max { logits[$0] < logits[$1] }
            ttft.append(seconds(clock.now - t0))
        }
        print(String(format: "%@: time to first token, 200-token chat prompt: %.0f ms", name, ttft.sorted()[2] * 1000))

        // Aggregate decode throughput of 4 sequences sharing the model (each on its own thread, so their
        // steps share passes), and its ratio to one sequence in the same runs.
        let together = try ConcurrentDecodeMeasurement(model: model, sequences: 4, promptTokens: 32, generatedTokens: 32,
                                                       runs: 3, cacheType: cacheType)
        print(String(format: "%@: 4 concurrent sequences, %.1f tok/s aggregate decode (%.2f× one sequence)", name,
                     together.aggregateTokensPerSecond, together.speedup))

    }
    // Last, so that its buffer does not count in the peak RSS above.
    let bandwidth = ReadBandwidth.measure(pool: ThreadPool(threadCount: 2))
    print(String(format: "read bandwidth (2 threads, 256 MiB): %.1f GB/s", bandwidth / 1e9))
    for figure in decodeFigures {
        let limit = bandwidth / figure.bytesPerToken
        print(String(format: "%@: decode %.1f tok/s = %.0f%% of the bandwidth limit %.0f tok/s (%.0f MB read per token)",
                     figure.name, figure.tokensPerSecond, 100 * figure.tokensPerSecond / limit, limit,
                     figure.bytesPerToken / 1e6))
    }
}

/// A chat-formatted prompt of exactly `tokens` ids: the model's template around a long user message.
private func chatPrompt(model: TransformerModel, tokens: Int) throws -> [Int] {
    let tokenizer = try model.makeTokenizer()
    let text = String(repeating: "Tell me about the history of the harbour town, its ships, its markets and its people. ", count: 20)
    // The turn markers of the model's template family (ChatML for SmolLM2, Gemma's own for Gemma).
    let gemma = model.configuration.architecture.hasPrefix("gemma")
    let open = gemma ? "<start_of_turn>user\n" : "<|im_start|>user\n"
    let close = gemma ? "<end_of_turn>\n<start_of_turn>model\n" : "<|im_end|>\n<|im_start|>assistant\n"
    let body = tokenizer.encode(text, addSpecial: false, parseSpecial: false)
    let head = tokenizer.encode(open, addSpecial: true, parseSpecial: true)
    let tail = tokenizer.encode(close, addSpecial: false, parseSpecial: true)
    return (head + body.prefix(max(0, tokens - head.count - tail.count)) + tail).map(Int.init)
}

/// The process's peak resident set (VmHWM), in bytes.
private func peakResidentBytes() -> Int { statusBytes("VmHWM:") }

/// The process's current resident set (VmRSS), in bytes.
private func residentBytes() -> Int { statusBytes("VmRSS:") }

/// A `kB` field of /proc/self/status, in bytes (0 where there is none).
private func statusBytes(_ field: String) -> Int {
    guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return 0 }
    for line in status.split(separator: "\n") where line.hasPrefix(field) {
        let digits = line.split(separator: " ").dropFirst().first.flatMap { Int($0) } ?? 0
        return digits * 1024
    }
    return 0
}
