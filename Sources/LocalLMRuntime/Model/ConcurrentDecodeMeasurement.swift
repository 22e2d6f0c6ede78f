import Dispatch
import Foundation

/// Decode speed of several sequences decoding at once on one model, each on a thread of its own (as
/// sessions and server requests run), for `locallm bench --sequences` and `LocalLMBenchmarks batch`.
///
/// Each sequence is prefilled with the synthetic prompt ((i·7919) mod (vocab − 300) + 256, shifted by
/// its index), then all decode `generatedTokens` tokens (each next id (t·31 + 7) mod (vocab − 300) +
/// 256) started together. Each run first decodes the first sequence alone the same way, so the
/// speed-up is a ratio of two measurements taken moments apart (absolute speeds drift on a shared
/// machine). `scripts/batch/llama_batch_bench.py` is the same protocol on llama.cpp.
package struct ConcurrentDecodeMeasurement: Sendable {
    /// Medians over the measured runs.
    package var aggregateTokensPerSecond: Double
    /// The slowest sequence's own tokens per second.
    package var perSequenceTokensPerSecond: Double
    package var oneSequenceTokensPerSecond: Double
    /// aggregate ÷ one sequence, per run.
    package var speedup: Double
    /// Sequence steps per decode pass.
    package var meanBatch: Double

    /// `runs` measured runs after one warm-up run.
    package init(model: TransformerModel, sequences count: Int, promptTokens: Int, generatedTokens: Int,
                 runs: Int, cacheType: KVCacheStorage = .f16) throws {
        let vocab = model.configuration.vocabularySize
        guard vocab > 300, count > 0, promptTokens > 0, generatedTokens > 0, runs > 0 else {
            throw RuntimeError.invalidOption("the measurement needs a vocabulary above 300 tokens and positive counts")
        }
        let prompt = (0..<promptTokens).map { ($0 * 7919) % (vocab - 300) + 256 }
        let members = try (0..<count).map { s in
            let sequence = try model.makeSequence(contextSize: promptTokens + generatedTokens + 16, cacheType: cacheType)
            try sequence.append(prompt.map { ($0 + s) % (vocab - 300) + 256 })
            return Handoff(sequence)
        }
        let clock = ContinuousClock()
        /// Seconds until the last of `members` has decoded, each on its own thread.
        func run(_ members: ArraySlice<Handoff<ModelSequence>>) -> Double {
            let elapsed = Handoff(UnsafeMutableBufferPointer<Double>.allocate(capacity: members.count))
            defer { elapsed.value.deallocate() }
            let group = DispatchGroup()
            let start = clock.now
            for (s, member) in members.enumerated() {
                group.enter()
                Thread {
                    defer { group.leave() }
                    let sequence = member.value
                    try? sequence.truncate(to: promptTokens)
                    var token = (prompt[promptTokens - 1] + s) % (vocab - 300) + 256
                    for _ in 0..<generatedTokens {
                        try? sequence.append(token)
                        token = (token * 31 + 7) % (vocab - 300) + 256
                    }
                    let (seconds, attoseconds) = (clock.now - start).components
                    elapsed.value[s] = Double(seconds) + Double(attoseconds) * 1e-18
                }.start()
            }
            group.wait()
            return elapsed.value.max() ?? 1
        }
        var aggregate: [Double] = [], perSequence: [Double] = [], alone: [Double] = [], speedup: [Double] = []
        var batches: [Double] = []
        for _ in 0...runs {
            let one = Double(generatedTokens) / run(members[0..<1])
            let before = model.decodeStatistics
            let wall = run(members[...])
            let after = model.decodeStatistics
            aggregate.append(Double(count * generatedTokens) / wall)
            perSequence.append(Double(generatedTokens) / wall)
            alone.append(one)
            speedup.append(Double(count * generatedTokens) / wall / one)
            batches.append(Double(after.steps - before.steps) / Double(max(1, after.passes - before.passes)))
        }
        func median(_ a: [Double]) -> Double { a.dropFirst().sorted()[(a.count - 1) / 2] }
        aggregateTokensPerSecond = median(aggregate)
        perSequenceTokensPerSecond = median(perSequence)
        oneSequenceTokensPerSecond = median(alone)
        self.speedup = median(speedup)
        meanBatch = median(batches)
    }
}

/// A value handed to one thread at a time (a sequence to its decoding thread), or whose parts each
/// thread writes alone (its own timing).
private final class Handoff<Value>: @unchecked Sendable {
    var value: Value
    init(_ value: Value) { self.value = value }
}
