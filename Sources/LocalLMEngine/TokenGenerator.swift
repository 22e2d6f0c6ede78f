import LocalLMRuntime
import LocalLMTokenizers

/// The one generation loop, for sessions and `locallm generate` alike: prefill with prefix reuse,
/// then one token at a time through the sampler chain (whose first step is the request's
/// ``GrammarMask``, lazy or required), until end of generation, the token budget, a stop string, a
/// full cache or cancellation. (A caller that wants no end-of-generation token after a complete
/// `.required` grammar stops asking: ``GrammarMask/isCompleted``.)
///
/// A chosen token is evaluated only when the next one is wanted, so a token's text reaches the
/// caller before, not after, the forward pass that follows it. Per request and not shared: it owns
/// the sampler and the grammar state, and borrows the conversation's sequence.
package final class TokenGenerator {
    package let sequence: ModelSequence
    package let tokenizer: Tokenizer
    package private(set) var sampler: SamplerChain
    package let grammar: GrammarMask?
    package let limits: GenerationLimits
    private var detokenizer: StreamingDetokenizer
    /// Chosen and accepted, not yet evaluated.
    private var pending: Int?
    /// UTF-8 bytes of the longest stop string.
    private let longestStop: Int
    /// Generated ids, without the end-of-generation token.
    package private(set) var ids: [Int] = []
    /// Their text (cut before a stop string), without the detokenizer's pending bytes.
    package private(set) var text = ""
    /// Set once generation has ended; ``next()`` then returns nil.
    package private(set) var stopReason: StopReason?
    /// Tokens of fixed text fed with ``force(_:)``.
    package private(set) var forcedTokenCount = 0

    /// `sampler` should have `LogitMaskStep(grammar)` first when there is a grammar.
    package init(sequence: ModelSequence, tokenizer: Tokenizer, sampler: SamplerChain, grammar: GrammarMask?,
                 limits: GenerationLimits) {
        self.sequence = sequence
        self.tokenizer = tokenizer
        self.sampler = sampler
        self.grammar = grammar
        self.limits = limits
        detokenizer = StreamingDetokenizer(tokenizer: tokenizer)
        longestStop = limits.stopStrings.map(\.utf8.count).max() ?? 0
    }

    /// Makes the cache hold `prompt`, keeping the longest prefix it already holds (leaving at least one
    /// token to evaluate, for its logits); returns how many tokens came from the cache. One batch at a
    /// time, yielding between batches so a long prompt does not hold a cooperative thread for seconds;
    /// the batches are the ones a single `append` would form, so the numbers are the same.
    package nonisolated(nonsending) func prefill(_ prompt: [Int], yielding: Bool = true) async throws(EngineError) -> Int {
        guard !prompt.isEmpty else { throw EngineError.runtime(.emptyInput) }
        var common = 0
        do {
            common = try sequence.reusePrefix(of: prompt)
            var start = common
            while start < prompt.count {
                let end = yielding ? min(prompt.count, start + sequence.batchSize) : prompt.count
                try sequence.append(Array(prompt[start..<end]))
                start = end
                if start < prompt.count { await Task.yield() }
            }
        } catch .cancelled {
            stopReason = .cancelled
        } catch .contextOverflow(_, let count, let contextSize) {
            throw .contextFull(contextSize: contextSize, tokenCount: common + count,
                               detail: "the prompt takes \(prompt.count) tokens; the context holds \(contextSize)")
        } catch {
            throw .runtime(error)
        }
        return common
    }

    /// Feeds fixed text to the model (markers a format requires), keeping the cache in step.
    package func force(_ fixed: String) throws(EngineError) {
        try evaluatePending()
        guard stopReason == nil else { return }
        let forced = tokenizer.encode(fixed, addSpecial: false, parseSpecial: false).map(Int.init)
        guard !forced.isEmpty else { return }
        guard sequence.position + forced.count <= sequence.contextSize else {
            stopReason = .contextFull
            return
        }
        do {
            try sequence.append(forced)
        } catch .cancelled {
            stopReason = .cancelled
        } catch {
            throw .runtime(error)
        }
        forcedTokenCount += forced.count
    }

    /// Evaluates the last chosen token, if the cache has room (else generation stops: `.contextFull`).
    package func evaluatePending() throws(EngineError) {
        guard let token = pending else { return }
        guard sequence.position < sequence.contextSize else {
            stopReason = stopReason ?? .contextFull
            return
        }
        do {
            try sequence.append(token)
        } catch .cancelled {
            stopReason = stopReason ?? .cancelled
            return
        } catch {
            throw .runtime(error)
        }
        pending = nil
    }

    /// The next token and the text it completes, or nil once generation has ended (``stopReason``).
    /// The token is accepted (sampler, grammar) but evaluated only by the next call.
    package nonisolated(nonsending) func next() async throws(EngineError) -> GeneratedToken? {
        guard stopReason == nil else { return nil }
        if Task.isCancelled { stopReason = .cancelled; return nil }
        // Decoding is synchronous work on the calling thread: yield between tokens, so that several
        // sessions generating at once do not starve other tasks (their streams' consumers).
        await Task.yield()
        if let budget = limits.maxTokens, ids.count >= budget { stopReason = .maxTokens; return nil }
        try evaluatePending()
        guard stopReason == nil else { return nil }
        let isEndOfGeneration = tokenizer.vocabulary.isEndOfGeneration
        let choice =
            if let grammar {
                grammar.choose(with: &sampler, logits: sequence.lastLogits) { isEndOfGeneration(Int32($0)) }
            } else {
                sampler.choose(sequence.lastLogits)
            }
        guard let token = choice else { stopReason = .noAllowedToken; return nil }
        if isEndOfGeneration(Int32(token)) { stopReason = .endOfGeneration(token: token); return nil }
        sampler.accept(token)
        ids.append(token)
        pending = token
        // A marker a call grammar writes (`[TOOL_CALLS]`, `<|tool_call|>`) may be a control token
        // to the vocabulary, and is text to the grammar (not in its table's special ids): its
        // text is output, so the call reads as the grammar read it and lazy triggers see it.
        let isGrammarText = grammar?.constraint.map { !$0.tokens.special.contains(token) } ?? false
        let piece = detokenizer.append(Int32(token), asText: isGrammarText)
        text += piece
        if longestStop > 0, let stop = cutAtStopString(newBytes: piece.utf8.count + longestStop) {
            stopReason = .stopString(stop)
            return nil
        }
        return GeneratedToken(id: token, text: piece)
    }

    /// The detokenizer's last bytes (an incomplete UTF-8 sequence at the end), once.
    package func finishText() -> String {
        if case .stopString = stopReason { return "" }
        let tail = detokenizer.finish()
        text += tail
        return tail
    }

    /// Runs the loop to its end: `onToken` sees each token (and may return false to stop, as
    /// `.cancelled`). The result's text includes the detokenizer's last bytes.
    package nonisolated(nonsending) func run(onToken: (GeneratedToken) -> Bool = { _ in true }) async throws(EngineError) -> GenerationResult {
        while let token = try await next() {
            guard onToken(token) else { stopReason = .cancelled; break }
        }
        _ = finishText()
        return GenerationResult(ids: ids, text: text, stopReason: stopReason ?? .maxTokens)
    }

    /// If the text has a stop string within its last `newBytes` bytes, cuts the text before the
    /// earliest one and returns it.
    private func cutAtStopString(newBytes: Int) -> String? {
        let utf8 = Array(text.utf8)
        let from = max(0, utf8.count - newBytes)
        var best: (offset: Int, stop: String)?
        for stop in limits.stopStrings where !stop.isEmpty {
            let s = Array(stop.utf8)
            guard s.count <= utf8.count else { continue }
            var i = max(0, from - s.count + 1)
            while i + s.count <= utf8.count {
                if utf8[i..<(i + s.count)].elementsEqual(s) {
                    if best.map({ i < $0.offset }) ?? true { best = (i, stop) }
                    break
                }
                i += 1
            }
        }
        guard let best else { return nil }
        text = String(decoding: utf8[..<best.offset], as: UTF8.self)
        return best.stop
    }
}
