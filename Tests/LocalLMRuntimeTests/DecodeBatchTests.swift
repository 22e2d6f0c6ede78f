import Dispatch
import Foundation
import LocalLMRuntime
import LocalLMTestSupport
import Testing

/// Decode batching: sequences of one model that decode at the same time are stepped in shared forward
/// passes (`DecodeBatcher`), and each must compute exactly what it computes alone.
@Suite struct DecodeBatchTests {
    /// One sequence's greedy run: its tokens, and per step a fingerprint of the whole logits row's bits.
    struct Run: Equatable {
        var tokens: [Int] = []
        var fingerprints: [UInt64] = []
    }

    static func greedy(_ sequence: ModelSequence, steps: Int) throws -> Run {
        var run = Run()
        for _ in 0..<steps {
            let logits = sequence.lastLogits
            var fingerprint: UInt64 = 14_695_981_039_346_656_037
            for v in logits { fingerprint = (fingerprint ^ UInt64(v.bitPattern)) &* 1_099_511_628_211 }
            run.fingerprints.append(fingerprint)
            let token = logits.indices.max { logits[$0] < logits[$1] } ?? 0
            run.tokens.append(token)
            try sequence.append(token)
        }
        return run
    }

    /// Four prompts decoded greedily on Qwen2.5-Coder-0.5B (Q5_0, Q8_0, Q4_K and Q6_K weights), each on
    /// a thread of its own so that their steps share passes: every logit of every step is bit for bit
    /// the one the sequence computes alone (tolerance zero: a batch row goes through the same decode
    /// kernels and the same attention as the sequence's own step), and the passes did hold several
    /// sequences. Also on the tiny qwen3moe (each row routed to its own experts) and phi3 (fused
    /// projections) files.
    @Test(arguments: ["qwen05", "qwen3moe", "phi3"])
    func sequencesDecodedTogetherComputeWhatTheyComputeAlone(model name: String) throws {
        let model = try TransformerModel(contentsOf: RuntimeGoldens.modelURL(name), threadCount: 2)
        let vocab = model.configuration.vocabularySize
        let span = vocab > 1000 ? vocab - 300 : vocab - 3, first = vocab > 1000 ? 256 : 0
        let prompts = (0..<4).map { s in (0..<(6 + 3 * s)).map { (s * 7919 + $0 * 104_729) % span + first } }
        let steps = 12

        let alone = try prompts.map { prompt in
            let sequence = try model.makeSequence(contextSize: 64)
            try sequence.append(prompt)
            return try Self.greedy(sequence, steps: steps)
        }

        let sequences = try prompts.map { prompt in
            let sequence = try model.makeSequence(contextSize: 64)
            try sequence.append(prompt)
            return Handoff(sequence)
        }
        let results = Handoff([Result<Run, Error>?](repeating: nil, count: prompts.count))
        let lock = NSLock()
        let before = model.decodeStatistics
        let group = DispatchGroup()
        for (i, handoff) in sequences.enumerated() {
            group.enter()
            Thread {
                let result = Result { try Self.greedy(handoff.value, steps: steps) }
                lock.withLock { results.value[i] = result }
                group.leave()
            }.start()
        }
        group.wait()
        let after = model.decodeStatistics
        let together = try lock.withLock { try results.value.map { try #require($0).get() } }
        for i in prompts.indices {
            #expect(together[i].tokens == alone[i].tokens, "sequence \(i): tokens")
            #expect(together[i].fingerprints == alone[i].fingerprints, "sequence \(i): logits")
        }
        let stepsRun = after.steps - before.steps, passes = after.passes - before.passes
        #expect(stepsRun == prompts.count * steps)
        #expect(passes < stepsRun, "no pass held more than one sequence (\(passes) passes for \(stepsRun) steps)")
    }

    /// A step that cannot be taken is a typed error for that sequence and changes nothing.
    @Test func anInvalidStepIsATypedErrorAndChangesNothing() throws {
        let model = try TransformerModel(contentsOf: Fixtures.url("runtime/tiny-qwen3.gguf"), threadCount: 2)
        let sequence = try model.makeSequence(contextSize: 4)
        try sequence.append([1, 2, 3])
        let logits = sequence.lastLogits
        #expect(throws: RuntimeError.invalidToken(-1, vocabularySize: model.configuration.vocabularySize)) {
            try sequence.append(-1)
        }
        #expect(sequence.position == 3 && sequence.tokens == [1, 2, 3] && sequence.lastLogits == logits)
        try sequence.append(4)
        #expect(throws: RuntimeError.contextOverflow(position: 4, count: 1, contextSize: 4)) { try sequence.append(5) }
        #expect(sequence.position == 4 && sequence.tokens == [1, 2, 3, 4])
    }
}

/// A value handed from the test's thread to one worker thread.
private final class Handoff<Value>: @unchecked Sendable {
    var value: Value
    init(_ value: Value) { self.value = value }
}
