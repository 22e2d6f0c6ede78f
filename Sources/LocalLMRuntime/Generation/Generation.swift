import LocalLMTokenizers

/// When to stop generating, besides end-of-generation tokens.
public struct GenerationLimits: Sendable, Equatable {
    /// Tokens to generate at most.
    public var maxTokens: Int
    /// Generation stops when the text contains one of these; the text is cut before it.
    public var stopStrings: [String]

    public init(maxTokens: Int = 256, stopStrings: [String] = []) {
        self.maxTokens = maxTokens
        self.stopStrings = stopStrings
    }
}

/// Why generation ended.
public enum StopReason: Sendable, Equatable {
    /// The model chose an end-of-generation token (eos, eot, `<|im_end|>`, `<end_of_turn>`, …).
    case endOfGeneration(token: Int)
    case maxTokens
    case stopString(String)
    /// The sequence's cache is full.
    case contextFull
    /// The calling task was cancelled (checked between tokens).
    case cancelled
    /// The sampler's mask allowed no token.
    case noAllowedToken
}

/// One generated token and the text it completes (empty while a UTF-8 character is incomplete).
public struct GeneratedToken: Sendable, Equatable {
    public let id: Int
    public let text: String
}

/// The outcome of a generation: the generated ids (without the stop token), their text, and why it
/// stopped.
public struct GenerationResult: Sendable, Equatable {
    public var ids: [Int]
    public var text: String
    public var stopReason: StopReason
}

/// Prefill-then-decode generation on one sequence.
public enum Generation {
    /// Evaluates `prompt` (in batches), then samples and evaluates one token at a time until an
    /// end-of-generation token, `options.maxTokens`, a stop string, a full cache or cancellation.
    ///
    /// `onToken` sees every generated token (not the stop token) and may return false to stop.
    public static func run(
        sequence: ModelSequence, prompt: [Int], sampler: inout SamplerChain, tokenizer: Tokenizer,
        options: GenerationLimits = GenerationLimits(),
        onToken: (GeneratedToken) -> Bool = { _ in true }
    ) throws(RuntimeError) -> GenerationResult {
        var result = GenerationResult(ids: [], text: "", stopReason: .maxTokens)
        guard options.maxTokens > 0 else { return result }
        if Task.isCancelled { result.stopReason = .cancelled; return result }
        do {
            try sequence.append(prompt)
        } catch .cancelled {
            result.stopReason = .cancelled
            return result
        }
        var detokenizer = StreamingDetokenizer(tokenizer: tokenizer)
        let longestStop = options.stopStrings.map(\.utf8.count).max() ?? 0
        while true {
            if Task.isCancelled { result.stopReason = .cancelled; break }
            guard let token = sampler.sample(sequence.lastLogits) else { result.stopReason = .noAllowedToken; break }
            if tokenizer.vocabulary.isEndOfGeneration(Int32(token)) {
                result.stopReason = .endOfGeneration(token: token)
                break
            }
            result.ids.append(token)
            let piece = detokenizer.append(Int32(token))
            result.text += piece
            if longestStop > 0, let stop = firstStop(in: &result.text, stops: options.stopStrings, newBytes: piece.utf8.count + longestStop) {
                result.stopReason = .stopString(stop)
                break
            }
            guard onToken(GeneratedToken(id: token, text: piece)) else { result.stopReason = .cancelled; break }
            if result.ids.count >= options.maxTokens { result.stopReason = .maxTokens; break }
            if sequence.position >= sequence.contextSize { result.stopReason = .contextFull; break }
            do {
                try sequence.append(token)
            } catch .cancelled {
                result.stopReason = .cancelled
                break
            }
        }
        if case .stopString = result.stopReason {} else { result.text += detokenizer.finish() }
        return result
    }

    /// If `text` contains a stop string in its last `newBytes` bytes, cuts the text before it and
    /// returns the stop string.
    private static func firstStop(in text: inout String, stops: [String], newBytes: Int) -> String? {
        let utf8 = Array(text.utf8)
        let from = max(0, utf8.count - newBytes)
        var best: (offset: Int, stop: String)?
        for stop in stops where !stop.isEmpty {
            let s = Array(stop.utf8)
            guard s.count <= utf8.count else { continue }
            var i = max(0, from - s.count + 1)
            while i + s.count <= utf8.count {
                if utf8[i..<(i + s.count)].elementsEqual(s) {
                    if best == nil || i < best!.offset { best = (i, stop) }
                    break
                }
                i += 1
            }
        }
        guard let best else { return nil }
        text = String(decoding: utf8[..<best.offset], as: UTF8.self)
        return best.stop
    }

    /// The same loop as an asynchronous stream of tokens, for callers that consume text as it comes.
    /// The sequence is handed over to the generating task; cancelling the consumer stops generation
    /// between tokens.
    public static func stream(
        sequence: sending ModelSequence, prompt: [Int], sampler: sending SamplerChain, tokenizer: Tokenizer,
        options: GenerationLimits = GenerationLimits()
    ) -> AsyncThrowingStream<GeneratedToken, any Error> {
        let (stream, continuation) = AsyncThrowingStream<GeneratedToken, any Error>.makeStream()
        let task = Task.detached {
            var sampler = sampler
            do {
                _ = try run(sequence: sequence, prompt: prompt, sampler: &sampler, tokenizer: tokenizer,
                            options: options) { token in
                    if case .terminated = continuation.yield(token) { return false }
                    return true
                }
                continuation.finish()
            } catch {
                continuation.finish(throwing: error)
            }
        }
        continuation.onTermination = { _ in task.cancel() }
        return stream
    }
}
