import Foundation
import LocalLMGrammar
import LocalLMRuntime
import LocalLMTokenizers
import Logging

/// One session's state on a GGUF engine: a KV cache that holds the tokens of the conversation so
/// far. Each request renders the whole transcript, keeps the longest common token prefix with the
/// cache and prefills only the rest, so a turn costs its new tokens, not the history.
///
/// Its work runs on a ``ModelWorkExecutor``, not on the cooperative pool, so generating sessions never
/// hold the threads the rest of the program's tasks run on.
package actor GGUFConversation: LocalConversation {
    private let executor = ModelWorkExecutor(label: "LocalLM.GGUFConversation")
    package nonisolated var unownedExecutor: UnownedSerialExecutor { executor.asUnownedSerialExecutor() }
    private let engine: GGUFEngine
    private let logger: Logger
    private var sequence: ModelSequence?
    private var busy = false

    init(engine: GGUFEngine, logger: Logger) {
        self.engine = engine
        self.logger = logger
    }

    private func currentSequence() throws -> ModelSequence {
        if let sequence { return sequence }
        let made = try engine.model.makeSequence(contextSize: engine.contextSize, cacheType: engine.cacheType)
        sequence = made
        return made
    }

    /// Makes the cache hold `tokens` with as little work as possible (the logits after the last
    /// token are then the sequence's `lastLogits`); returns how many tokens came from the cache.
    private func prefill(_ tokens: [Int], into sequence: ModelSequence) throws -> Int {
        let common = try reuseCache(for: tokens, in: sequence)
        try sequence.append(Array(tokens[common...]))
        return common
    }

    /// `prefill` for a request: one batch at a time, yielding between batches so that a long
    /// prompt does not hold a cooperative thread for seconds (see the yield in `generate`). The
    /// batches are the ones `evaluate` would form, so the numbers are the same.
    private func prefillYielding(_ tokens: [Int], into sequence: ModelSequence) async throws -> Int {
        let common = try reuseCache(for: tokens, in: sequence)
        var start = common
        while start < tokens.count {
            let end = min(tokens.count, start + sequence.batchSize)
            try sequence.append(Array(tokens[start..<end]))
            start = end
            if start < tokens.count { await Task.yield() }
        }
        return common
    }

    /// Keeps the longest cached prefix of `tokens` (leaving at least one token to evaluate, for
    /// its logits) and returns its length.
    private func reuseCache(for tokens: [Int], in sequence: ModelSequence) throws -> Int {
        var common = 0
        let cachedTokens = sequence.tokens
        while common < min(cachedTokens.count, tokens.count) && cachedTokens[common] == tokens[common] { common += 1 }
        if common == tokens.count { common -= 1 }
        try sequence.truncate(to: common)
        return common
    }

    package nonisolated func prewarm(transcript: Transcript) throws {
        Task { try await self.prewarmIsolated(transcript) }
    }

    private func prewarmIsolated(_ transcript: Transcript) throws {
        guard !busy else { return }
        let text = try engine.renderer.render(transcript, addGenerationPrompt: false)
        let tokens = engine.tokens(for: text)
        guard tokens.count < engine.contextSize, !tokens.isEmpty else { return }
        _ = try prefill(tokens, into: try currentSequence())
    }

    package func respond(
        to request: LanguageModelExecutorGenerationRequest, streamingInto channel: LanguageModelExecutorGenerationChannel
    ) async throws {
        guard !busy else { throw LanguageModelSession.Error.concurrentRequests }
        busy = true
        defer { busy = false }
        do {
            try await generate(request, channel)
        } catch let error as RuntimeError {
            if case .cancelled = error { throw CancellationError() }
            throw LanguageModelError.decodingFailure(.init(debugDescription: "runtime: \(error)"))
        }
    }

    private func generate(
        _ request: LanguageModelExecutorGenerationRequest, _ channel: LanguageModelExecutorGenerationChannel
    ) async throws {
        let started = ContinuousClock.now
        var logger = self.logger
        // The session logs the same id, so one request's records can be followed across both.
        logger[metadataKey: "request"] = "\(request.id.uuidString.prefix(8))"
        let options = request.generationOptions
        let tools = request.toolDefinitions
        let mode = options.toolCallingMode?.value ?? .allowed
        let toolsEnabled = !tools.isEmpty && mode != .disallowed && request.schema == nil
        let text = try engine.renderer.render(
            request.transcript, responseSchema: request.schema,
            includeSchemaInPrompt: request.contextOptions.includeSchemaInPrompt ?? true)
        let tokens = engine.tokens(for: text)
        logger.trace("rendered prompt", metadata: ["prompt": "\(text)", "tokens": "\(tokens)"])

        let contextSize = engine.contextSize
        let budget = options.maximumResponseTokens.map { max(1, $0) }
        guard tokens.count + (budget ?? 1) <= contextSize else {
            throw LanguageModelError.contextSizeExceeded(.init(
                contextSize: contextSize, tokenCount: tokens.count + (budget ?? 1),
                debugDescription: "the prompt takes \(tokens.count) tokens"
                    + (budget.map { " and the response budget \($0)" } ?? "") + "; the context holds \(contextSize)"))
        }
        let sequence = try currentSequence()
        // `busy` keeps a prewarm from touching the cache while this request is suspended.
        let cached = try await prefillYielding(tokens, into: sequence)
        let prefilledCount = tokens.count - cached
        let prefilled = ContinuousClock.now
        await channel.send(.response(action: .updateMetadata(["modelID": engine.name])))

        var detokenizer = StreamingDetokenizer(tokenizer: engine.tokenizer)
        var inputCount = tokens.count  // the prompt and any text the engine forces
        var pending: Int?  // chosen, not yet evaluated
        var outputIDs: [Int] = []
        var generated = 0
        var firstToken: ContinuousClock.Instant?
        var outputText = ""
        var streamed = 0  // characters of outputText already sent
        var callText = ""  // JSON of the tool call being generated
        var inCall = false
        var calls: [(name: String, arguments: GeneratedContent)] = []

        // The grammar, when there is one, is the first step of the runtime's sampler chain. A
        // response schema constrains everything; tools in `.allowed` mode constrain only what
        // follows the model's own `<tool_call>` (lazily), and in `.required` mode the call the
        // engine opens below.
        var grammar: RequestGrammarMask?
        if let schema = request.schema {
            let index = try engine.grammarIndex(key: "schema:" + schema.canonicalJSON) {
                try CompiledGrammar(jsonSchema: schema.canonicalJSON)
            }
            grammar = RequestGrammarMask(GrammarConstraint(index, activation: .required))
        } else if toolsEnabled {
            grammar = RequestGrammarMask()
        }
        var sampler = options.makeSamplerChain(mask: grammar.map { LogitMaskStep($0) })

        /// Feeds fixed text to the model (markers the format requires), keeping the cache in step.
        func force(_ fixed: String) throws {
            try evaluatePending()
            let ids = engine.tokenizer.encode(fixed, addSpecial: false, parseSpecial: false).map(Int.init)
            guard !ids.isEmpty else { return }
            guard sequence.position + ids.count < contextSize else { throw overflow() }
            try sequence.append(ids)
            inputCount += ids.count
        }

        /// Evaluates the last chosen token. This waits until the next token is wanted so that a
        /// token's text is streamed before, not after, the forward pass that follows it.
        func evaluatePending() throws {
            guard let token = pending else { return }
            guard sequence.position + 1 < contextSize else { throw overflow() }
            try sequence.append(token)
            pending = nil
        }

        func overflow() -> LanguageModelError {
            .contextSizeExceeded(.init(
                contextSize: contextSize, tokenCount: sequence.position + 1,
                debugDescription: "the response filled the context window after \(generated) tokens"))
        }

        func toolCallGrammar() throws -> GrammarTokenIndex {
            try engine.grammarIndex(key: "tools:" + tools.map(\.name).joined(separator: ",")
                + tools.map(\.parameters.canonicalJSON).joined()) {
                try ToolCallGrammar.compile(for: tools)
            }
        }

        /// The chain's choice, which the grammar (if any) takes; see `RequestGrammarMask.choose`.
        func nextToken() throws -> Int {
            let token =
                if let grammar {
                    grammar.choose(with: &sampler, logits: sequence.lastLogits, isEndOfGeneration: engine.isEndOfGeneration)
                } else {
                    sampler.choose(sequence.lastLogits)
                }
            guard let token else {
                throw LanguageModelError.decodingFailure(.init(debugDescription: "no token satisfies the grammar"))
            }
            return token
        }

        if toolsEnabled && mode == .required {
            try force(HermesToolFormat.callOpen + "\n")
            grammar?.constrain(with: GrammarConstraint(try toolCallGrammar(), activation: .required))
            inCall = true
        } else if toolsEnabled {
            grammar?.constrain(with: GrammarConstraint(
                try toolCallGrammar(), activation: .lazy(triggers: [HermesToolFormat.callOpen])))
        }

        generation: while true {
            try Task.checkCancellation()
            // Decoding is synchronous work on the cooperative pool, which has one thread per core:
            // a few sessions generating at once (workers of an agent) would hold every thread and
            // starve other tasks, such as the consumers of their own streams, until they finish.
            await Task.yield()
            if let budget, generated >= budget { break }
            try evaluatePending()
            let token = try nextToken()
            if firstToken == nil { firstToken = .now }
            if engine.isEndOfGeneration(token) { break }
            sampler.accept(token)
            generated += 1
            outputIDs.append(token)
            pending = token
            let piece = detokenizer.append(Int32(token))

            if request.schema != nil {
                outputText += piece
                if grammar?.isCompleted == true { break }
                if outputText.count > streamed {
                    let delta = String(outputText.dropFirst(streamed))
                    streamed = outputText.count
                    await channel.send(.response(action: .appendText(delta, tokenCount: 1)))
                }
                continue
            }

            if !inCall {
                outputText += piece
                if toolsEnabled, let range = outputText.range(of: HermesToolFormat.callOpen) {
                    // The model opened a tool call; the lazy grammar has taken over from the byte
                    // after the marker (the token may already hold the start of the JSON).
                    callText = String(outputText[range.upperBound...])
                    outputText = String(outputText[..<range.lowerBound])
                    inCall = true
                }
            } else {
                callText += piece
            }
            if inCall {
                // A lazy grammar goes back to free text when the call is complete; a required one
                // reports completion.
                let done = mode == .required ? grammar?.isCompleted == true : grammar?.isActive == false
                guard done else { continue }
                callText += detokenizer.finish()
                let body = try GeneratedContent(json: callText)
                guard case .structure(let fields, _) = body.kind, case .string(let name)? = fields["name"]?.kind,
                    let arguments = fields["arguments"]
                else {
                    throw LanguageModelError.decodingFailure(.init(debugDescription: "malformed tool call \(callText)"))
                }
                calls.append((name, arguments))
                try force("\n" + HermesToolFormat.callClose)
                // One call per round: the session runs it and asks again, and the model can call
                // the next tool then. Letting a small model write on after a call tends to ramble.
                break generation
            }
            // Stream what cannot be the start of a tool-call marker.
            var sendable = outputText.count
            if toolsEnabled {
                for length in stride(from: min(HermesToolFormat.callOpen.count - 1, outputText.count), to: 0, by: -1)
                where HermesToolFormat.callOpen.hasPrefix(outputText.suffix(length)) {
                    sendable = outputText.count - length
                    break
                }
            }
            if sendable > streamed {
                let delta = String(outputText.dropFirst(streamed).prefix(sendable - streamed))
                streamed = sendable
                await channel.send(.response(action: .appendText(delta, tokenCount: 1)))
            }
        }

        if calls.isEmpty {
            let tail = String(outputText.dropFirst(streamed)) + detokenizer.finish()
            if !tail.isEmpty { await channel.send(.response(action: .appendText(tail, tokenCount: 0))) }
        } else {
            for (index, call) in calls.enumerated() {
                await channel.send(.toolCalls(action: .append(
                    Transcript.ToolCall(id: UUID().uuidString, toolName: call.name, arguments: call.arguments),
                    tokenCount: index == 0 ? generated : 0)))
            }
        }
        // The cache keeps every chosen token but end-of-generation, so the next turn reuses them.
        // (After the last text is out, so streaming readers do not wait for this pass.)
        if pending != nil, sequence.position + 1 < contextSize { try evaluatePending() }
        await channel.send(.response(action: .updateUsage(
            input: .init(totalTokenCount: inputCount, cachedTokenCount: cached),
            output: .init(totalTokenCount: generated, reasoningTokenCount: 0))))
        let finished = ContinuousClock.now
        logger.trace("output tokens", metadata: ["tokens": "\(outputIDs)"])
        logger.debug(
            "generated",
            metadata: [
                "promptTokens": "\(inputCount)", "cachedTokens": "\(cached)", "outputTokens": "\(generated)",
                "prefilledTokens": "\(prefilledCount)", "timeToFirstToken": "\((firstToken ?? finished) - started)",
                "prefill": "\(prefilled - started)", "decode": "\(finished - prefilled)",
                "toolCalls": "\(calls.map(\.name))",
            ])
    }
}
