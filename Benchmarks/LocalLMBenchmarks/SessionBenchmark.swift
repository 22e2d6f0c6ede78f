import Foundation
import LocalLM

/// Time to first token over a five-turn conversation on SmolLM2, through `LanguageModelSession`
/// (greedy, streamed). The session keeps its KV cache between turns, so each turn should prefill
/// only its new tokens: turn 5's TTFT is compared with a fresh session restored from the same
/// history, which must prefill all of it. Runs with the default f16 KV cache, then with an f32
/// one (`session f16` or `session f32` runs one), since attention over the cache is the part of a
/// prefill that grows with the history.
let sessionBenchmark = BenchmarkSuite(name: "session") { arguments in
    let types: [SystemLanguageModel.KVCacheType] =
        arguments.contains("f32") ? [.f32] : arguments.contains("f16") ? [.f16] : [.f16, .f32]
    samplerCost()
    for type in types {
        print("-- KV cache \(type)")
        try await sessionTurns(cacheType: type)
    }
}

/// What the sampler chain costs per token over SmolLM2's 49,152 logits, for each mode a session
/// can ask for (the decode step it adds to is ~100 ms at present).
private func samplerCost() {
    var generator = SystemRandomNumberGenerator()
    let logits = (0..<49_152).map { _ in Float.random(in: -8...8, using: &generator) }
    let modes: [(String, GenerationOptions)] = [
        ("greedy", GenerationOptions(samplingMode: .greedy)),
        ("top-k 40", GenerationOptions(samplingMode: .random(top: 40, seed: 1))),
        ("top-p 0.9", GenerationOptions(samplingMode: .random(probabilityThreshold: 0.9, seed: 1))),
    ]
    for (name, options) in modes {
        var chain = options.makeSamplerChain()
        let clock = ContinuousClock()
        let runs = 50
        let start = clock.now
        for _ in 0..<runs { _ = chain.sample(logits) }
        print(String(format: "sampler chain, %@: %.0f µs per token", name, seconds(clock.now - start) / Double(runs) * 1e6))
    }
}

private func sessionTurns(cacheType: SystemLanguageModel.KVCacheType) async throws {
    let folder = ProcessInfo.processInfo.environment["LOCALLM_MODELS"].map { URL(fileURLWithPath: $0) }
        ?? FileManager.default.homeDirectoryForCurrentUser.appendingPathComponent(".cache/locallm/models")
    let url = folder.appendingPathComponent("SmolLM2-135M-Instruct.Q4_1.gguf")
    guard FileManager.default.fileExists(atPath: url.path) else {
        print("\(url.lastPathComponent): missing (run scripts/fetch-models.sh)")
        return
    }
    let model = SystemLanguageModel(contentsOf: url, configuration: .init(kvCacheType: cacheType))
    let options = GenerationOptions(samplingMode: .greedy, maximumResponseTokens: 24)
    // Long-ish user turns, so that the history grows by about a hundred tokens a turn.
    let turns = [
        "I am planning a week in Portugal in May with two friends. We like food, old towns and the sea, and we will travel by train. Where should we start?",
        "We land in Lisbon on a Monday morning and leave from Porto the next Monday evening. How many nights would you spend in each city, and why?",
        "One of us does not eat meat or fish. Which Portuguese dishes can she order, and what should she ask for in a small restaurant?",
        "We would like one day trip from Lisbon by train. Compare Sintra and Cascais for a group that likes history more than beaches.",
        "Summarize the whole plan in three short lines.",
    ]
    let instructions = "You are a helpful travel assistant. Answer briefly."

    /// Streams one answer; returns the time to the first text and the response's usage.
    func turn(_ session: LanguageModelSession, _ prompt: String) async throws -> (ttft: Duration, usage: LanguageModelSession.Usage) {
        let clock = ContinuousClock()
        let start = clock.now
        var first: Duration?
        let stream = session.streamResponse(to: prompt, options: options)
        for try await snapshot in stream where first == nil && !snapshot.content.isEmpty {
            first = clock.now - start
        }
        let response = try await stream.collect()
        return (first ?? clock.now - start, response.usage)
    }

    func report(_ label: String, _ result: (ttft: Duration, usage: LanguageModelSession.Usage)) {
        let u = result.usage
        let ms = seconds(result.ttft) * 1000
        let new = u.inputTokenCount - u.cachedInputTokenCount
        print(String(
            format: "%@: TTFT %7.1f ms | input %4d tokens, cached %4d, new %4d | output %3d | %.2f ms per new token",
            label, ms, u.inputTokenCount, u.cachedInputTokenCount, new, u.outputTokenCount, ms / Double(max(new, 1))))
    }

    // Load the weights outside the measurements.
    _ = try await model.tokenCount(for: "warm-up")
    let session = LanguageModelSession(model: model, instructions: instructions)
    var history = session.transcript
    var warm: (ttft: Duration, usage: LanguageModelSession.Usage)?
    for (index, prompt) in turns.enumerated() {
        if index == turns.count - 1 { history = session.transcript }
        let result = try await turn(session, prompt)
        report("turn \(index + 1)", result)
        warm = result
    }
    // The same fifth turn, in a session restored from the first four: nothing is cached.
    let restored = LanguageModelSession(model: model, transcript: history)
    let cold = try await turn(restored, turns[turns.count - 1])
    report("turn 5, fresh session with the same history", cold)
    if let warm {
        print(String(
            format: "turn 5: kept cache %.1f× faster to first token; new tokens %d of %d (%.0f%%)",
            seconds(cold.ttft) / seconds(warm.ttft), warm.usage.inputTokenCount - warm.usage.cachedInputTokenCount,
            warm.usage.inputTokenCount,
            100 * Double(warm.usage.inputTokenCount - warm.usage.cachedInputTokenCount) / Double(warm.usage.inputTokenCount)))
    }
}
