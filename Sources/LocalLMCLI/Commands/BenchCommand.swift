import ArgumentParser
import Foundation
import LocalLMKernels
import LocalLMRuntime

/// `locallm bench`: prefill and decode speed with `ref.py bench`'s protocol, for side-by-side ratios.
///
/// Prefill P synthetic tokens ((i·7919) mod (vocab − 300) + 256) into an empty cache in one batch, then
/// decode G tokens one at a time after them (each next id (t·31 + 7) mod (vocab − 300) + 256);
/// the median of `--reps` runs after one warm-up run.
struct BenchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bench",
        abstract: "Measure prefill and decode tokens per second (the protocol of ref.py bench)."
    )

    @Option(help: "Path to a GGUF model.") var model: String
    @Option(help: "Prompt tokens prefilled in one batch.") var promptTokens: Int = 512
    @Option(help: "Tokens decoded one at a time.") var genTokens: Int = 128
    @Option(help: "Worker threads.") var threads: Int = 2
    @Option(help: "Measured runs (after one warm-up run).") var reps: Int = 3
    @Option(help: "KV cache type: f16 or f32.") var kvType: String = "f16"
    @Option(help: "Tokens per forward pass in prefill (default: the whole prompt).") var batchSize: Int?
    @Option(help: "Also decode this many sequences at once (each on its own thread, stepped together in shared passes) and report their aggregate and per-sequence decode speed, and the ratio to one sequence measured in the same runs.")
    var sequences: Int?
    @Flag(help: "Also measure the machine's read bandwidth and report decode against its limit.") var bandwidth = false
    @Flag(help: "Print one JSON line (the default output).") var json = false

    func run() async throws {
        guard promptTokens > 0, genTokens > 0, reps > 0 else { throw ValidationError("counts must be positive") }
        if let sequences, !(1...64).contains(sequences) { throw ValidationError("--sequences is 1...64") }
        guard let cacheType = KVCacheStorage(rawValue: kvType) else { throw ValidationError("--kv-type is f16 or f32") }
        let clock = ContinuousClock()
        let loadStart = clock.now
        let loaded = try ModelLoading.load(model, threads: threads)
        let loadSeconds = (clock.now - loadStart).seconds
        let vocab = loaded.configuration.vocabularySize
        guard vocab > 300 else { throw ValidationError("the synthetic prompt needs a vocabulary above 300 tokens") }
        let prompt = (0..<promptTokens).map { ($0 * 7919) % (vocab - 300) + 256 }
        let sequence = try loaded.makeSequence(contextSize: promptTokens + genTokens + 16, cacheType: cacheType,
                                               batchSize: batchSize ?? promptTokens)
        var prefill: [Double] = [], decode: [Double] = []
        for _ in 0...reps {
            try sequence.truncate(to: 0)
            let t0 = clock.now
            try sequence.append(prompt)
            let t1 = clock.now
            var token = prompt[prompt.count - 1]
            for _ in 0..<genTokens {
                try sequence.append(token)
                token = (token * 31 + 7) % (vocab - 300) + 256
            }
            let t2 = clock.now
            prefill.append(Double(promptTokens) / (t1 - t0).seconds)
            decode.append(Double(genTokens) / (t2 - t1).seconds)
        }
        let pp = prefill.dropFirst().sorted(), tg = decode.dropFirst().sorted()
        let median = { (a: [Double]) in a[a.count / 2] }
        var limit = ""
        if bandwidth {
            // With the KV cache as it is in the middle of the decode.
            let bytesPerToken = loaded.decodeBytesPerToken(kvBytesPerPosition: sequence.cache.byteCount / sequence.contextSize,
                                                           cachedPositions: promptTokens + genTokens / 2)
            let readBandwidth = ReadBandwidth.measure(pool: ThreadPool(threadCount: threads))
            limit = ",\"read_bandwidth_bytes_per_s\":\(readBandwidth),\"decode_bytes_per_token\":\(bytesPerToken),"
                + "\"decode_fraction_of_bandwidth_limit\":\(median(tg) * bytesPerToken / readBandwidth)"
        }
        var concurrent = ""
        if let sequences {
            let m = try ConcurrentDecodeMeasurement(model: loaded, sequences: sequences, promptTokens: promptTokens,
                                                    generatedTokens: genTokens, runs: reps, cacheType: cacheType)
            concurrent = ",\"sequences\":\(sequences),\"aggregate_decode_tokens_per_s\":\(m.aggregateTokensPerSecond),"
                + "\"per_sequence_decode_tokens_per_s\":\(m.perSequenceTokensPerSecond),"
                + "\"one_sequence_decode_tokens_per_s\":\(m.oneSequenceTokensPerSecond),\"aggregate_speedup\":\(m.speedup),"
                + "\"mean_decode_batch\":\(m.meanBatch)"
        }
        print("{\"engine\":\"LocalLM\",\"threads\":\(threads),\"prompt_tokens\":\(promptTokens),"
              + "\"gen_tokens\":\(genTokens),\"batch_size\":\(batchSize ?? promptTokens),\"kv_type\":\"\(kvType)\","
              + "\"prefill_tokens_per_s\":\(median(pp)),\"decode_tokens_per_s\":\(median(tg)),"
              + "\"load_seconds\":\(loadSeconds),\"weight_bytes\":\(loaded.weightBytes),"
              + "\"kv_cache_bytes\":\(sequence.cache.byteCount)\(limit)\(concurrent)}")
    }
}

extension Duration {
    var seconds: Double {
        let (s, atto) = components
        return Double(s) + Double(atto) * 1e-18
    }
}
