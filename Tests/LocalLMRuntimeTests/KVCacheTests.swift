import Foundation
import LocalLMRuntime
import LocalLMTestSupport
import Testing

@Suite struct KVCacheTests {
    /// tiny qwen3 (attention layers) and tiny lfm2 (short-convolution layers between attention layers,
    /// whose convolution state is rolled back and copied with the cache).
    static func model(_ name: String = "qwen3") throws -> TransformerModel {
        try TransformerModel(contentsOf: Fixtures.url("runtime/tiny-\(name).gguf"), threadCount: 2)
    }

    static func close(_ a: [Float], _ b: [Float], tolerance: Float = 1e-2) -> Bool {
        a.count == b.count && zip(a, b).allSatisfy { abs($0 - $1) <= tolerance }
    }

    @Test func goingPastTheContextIsATypedError() throws {
        let sequence = try Self.model().makeSequence(contextSize: 8)
        try sequence.evaluate([1, 2, 3, 4, 5])
        #expect(throws: RuntimeError.contextOverflow(position: 5, count: 4, contextSize: 8)) {
            try sequence.evaluate([6, 7, 8, 9])
        }
        #expect(sequence.position == 5)
        try sequence.evaluate([6, 7, 8])
        #expect(throws: RuntimeError.contextOverflow(position: 8, count: 1, contextSize: 8)) { try sequence.evaluate([9]) }
    }

    @Test func badTokenIsATypedError() throws {
        let sequence = try Self.model().makeSequence(contextSize: 8)
        #expect(throws: RuntimeError.invalidToken(100_000, vocabularySize: 269)) { try sequence.evaluate([100_000]) }
        #expect(throws: RuntimeError.emptyInput) { try sequence.evaluate([]) }
    }

    /// A later turn reuses the cached prefix: truncating and continuing gives the logits of a fresh run.
    @Test(arguments: ["qwen3", "lfm2"])
    func truncateThenContinueMatchesAFreshRun(_ name: String) throws {
        let model = try Self.model(name)
        let sequence = try model.makeSequence(contextSize: 64)
        try sequence.evaluate([10, 20, 30, 40, 50, 60])
        try sequence.truncate(to: 3)
        #expect(sequence.tokens == [10, 20, 30])
        let continued = try sequence.evaluate([70, 80])
        let fresh = try model.makeSequence(contextSize: 64).evaluate([10, 20, 30, 70, 80])
        #expect(Self.close(continued, fresh))
        #expect(throws: RuntimeError.invalidPrefix(length: 9, cached: 5)) { try sequence.truncate(to: 9) }
    }

    @Test(arguments: ["qwen3", "lfm2"])
    func copiedPrefixContinuesLikeTheOriginal(_ name: String) throws {
        let model = try Self.model(name)
        let original = try model.makeSequence(contextSize: 64)
        try original.evaluate([5, 6, 7, 8])
        let fork = try original.copyPrefix(4)
        let a = try original.evaluate([9])
        let b = try fork.evaluate([9])
        #expect(a == b)
        let shorter = try original.copyPrefix(2, contextSize: 16)
        #expect(shorter.position == 2 && shorter.contextSize == 16)
        let c = try shorter.evaluate([7, 8, 9])
        #expect(Self.close(c, a))
    }

    /// One token at a time (decode) and one batch (prefill) agree.
    @Test(arguments: ["qwen3", "lfm2"])
    func decodeMatchesPrefill(_ name: String) throws {
        let model = try Self.model(name)
        let ids = [3, 1, 4, 1, 5, 9, 2, 6]
        let batch = try model.makeSequence(contextSize: 16).evaluate(ids)
        let stepwise = try model.makeSequence(contextSize: 16, batchSize: 1).evaluate(ids)
        #expect(Self.close(batch, stepwise, tolerance: 0.5))
        var best = (0, 0)
        for i in batch.indices {
            if batch[i] > batch[best.0] { best.0 = i }
            if stepwise[i] > stepwise[best.1] { best.1 = i }
        }
        #expect(best.0 == best.1)
    }

    /// `append` leaves the logits in the sequence's own array: the same values `evaluate` returns, and a
    /// copy kept by the caller is not overwritten by the next append (copy-on-write).
    @Test func appendKeepsTheLastLogitsInPlace() throws {
        let model = try Self.model()
        let vocab = model.configuration.vocabularySize
        let a = try model.makeSequence(contextSize: 16), b = try model.makeSequence(contextSize: 16)
        #expect(a.lastLogits.count == vocab)
        try a.append([3, 1, 4])
        let first = try b.evaluate([3, 1, 4])
        #expect(a.lastLogits == first)
        // Every position's logits (batched) agree with the last position's alone, within rounding.
        let all = try model.makeSequence(contextSize: 16).evaluate([3, 1, 4], allPositions: true)
        #expect(Self.close(Array(all.suffix(vocab)), first))
        let kept = a.lastLogits
        try a.append(1)
        #expect(a.lastLogits == (try b.evaluate([1])))
        #expect(kept == first)
        #expect(kept != a.lastLogits)
        #expect(a.tokens == [3, 1, 4, 1])
    }

    /// F32 and F16 caches give nearly the same logits (F16 is the default: half the bytes per token).
    @Test func f32CacheIsCloseToF16() throws {
        let model = try Self.model()
        let ids = [11, 22, 33, 44, 55, 66, 77]
        let f16 = try model.makeSequence(contextSize: 16, cacheType: .f16).evaluate(ids)
        let f32 = try model.makeSequence(contextSize: 16, cacheType: .f32).evaluate(ids)
        #expect(Self.close(f16, f32, tolerance: 1))
        let seq = try model.makeSequence(contextSize: 16, cacheType: .f16)
        #expect(seq.cache.byteCount == 2 * 16 * 2 * (2 * 48 + 2 * 48))
    }

    /// lfm2: attention layers keep F16 keys and values, convolution layers an F32 input row per position.
    @Test func convolutionLayersKeepTheirInputRows() throws {
        let model = try Self.model("lfm2")
        let seq = try model.makeSequence(contextSize: 16, cacheType: .f16)
        // 2 attention layers × 16 positions × (K + V of 2 heads × 64) × 2 bytes + 3 convolution layers × 16 × 256 × 4
        #expect(seq.cache.byteCount == 2 * 16 * (2 * 128) * 2 + 3 * 16 * 256 * 4)
        // Truncating into the middle of a prompt restores the convolution state of that position exactly:
        // the continued logits equal a fresh run's bit for bit (same batch shapes: one token at a time).
        let ids = [12, 40, 7, 99, 3, 150, 61]
        let stepwise = try model.makeSequence(contextSize: 16, batchSize: 1)
        for id in ids { try stepwise.append(id) }
        try stepwise.truncate(to: 2)
        try stepwise.append(99)
        let fresh = try model.makeSequence(contextSize: 16, batchSize: 1)
        for id in [12, 40, 99] { try fresh.append(id) }
        #expect(stepwise.lastLogits == fresh.lastLogits)
    }

    /// Concurrent sequences on one model give the same logits as one at a time.
    @Test func concurrentSequencesShareOneModel() async throws {
        let model = try Self.model()
        let prompts = [[1, 2, 3], [4, 5, 6, 7], [8, 9], [10, 11, 12, 13, 14]]
        let alone = try prompts.map { try model.makeSequence(contextSize: 32).evaluate($0) }
        let together = try await withThrowingTaskGroup(of: (Int, [Float]).self) { group in
            for (i, p) in prompts.enumerated() {
                group.addTask { (i, try model.makeSequence(contextSize: 32).evaluate(p)) }
            }
            var out = [[Float]](repeating: [], count: prompts.count)
            for try await (i, logits) in group { out[i] = logits }
            return out
        }
        #expect(alone == together)
    }
}
