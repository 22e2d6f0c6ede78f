import Foundation
import LocalLMGrammar
import LocalLMRuntime
import LocalLMTokenizers
import Logging

/// One session's state on a GGUF engine: a KV cache that holds the tokens of the conversation so
/// far. Each request renders the whole transcript, keeps the longest common token prefix with the
/// cache and prefills only the rest, so a turn costs its new tokens, not the history.
package actor GGUFConversation: LocalConversation {
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

    /// Makes the cache hold `tokens` with as little work as possible; returns the logits after the
    /// last token and how many tokens came from the cache.
    private func prefill(_ tokens: [Int], into sequence: ModelSequence) throws -> (logits: [Float], cached: Int) {
        let common = try reuseCache(for: tokens, in: sequence)
        return (try sequence.evaluate(Array(tokens[common...])), common)
    }

    /// `prefill` for a request: one batch at a time, yielding between batches so that a long
    /// prompt does not hold a cooperative thread for seconds (see the yield in `generate`). The
    /// batches are the ones `evaluate` would form, so the numbers are the same.
    private func prefillYielding(_ tokens: [Int], into sequence: ModelSequence) async throws -> (logits: [Float], cached: Int) {
        let common = try reuseCache(for: tokens, in: sequence)
        var start = common
        var logits: [Float] = []
        while start < tokens.count {
            let end = min(tokens.count, start + sequence.batchSize)
            logits = try sequence.evaluate(Array(tokens[start..<end]))
            start = end
            if start < tokens.count { await Task.yield() }
        }
        return (logits, common)
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
        let options = request.generationOptions
        let tools = request.toolDefinitions
        let mode = options.toolCallingMode?.value ?? .allowed
        let toolsEnabled = !tools.isEmpty && mode != .disallowed && request.schema == nil
        let text = try engine.renderer.render(
            request.transcript, responseSchema: request.schema,
            includeSchemaInPrompt: request.contextOptions.includeSchemaInPrompt ?? true)
        var tokens = engine.tokens(for: text)
        logger.trace("rendered prompt", metadata: ["prompt": "\(text)"])

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
        var (logits, cached) = try await prefillYielding(tokens, into: sequence)
        let prefilled = ContinuousClock.now
        await channel.send(.response(action: .updateMetadata(["modelID": engine.name])))

        var sampler = TokenSampler(options: options)
        var detokenizer = StreamingDetokenizer(tokenizer: engine.tokenizer)
        var generated = 0
        var outputText = ""
        var streamed = 0  // characters of outputText already sent
        var grammar: GrammarMatcher?
        var callText = ""  // JSON of the tool call being generated
        var calls: [(name: String, arguments: GeneratedContent)] = []
        var mask = [UInt64]()

        if let schema = request.schema {
            let index = try engine.grammarIndex(key: "schema:" + schema.canonicalJSON) {
                try CompiledGrammar(jsonSchema: schema.canonicalJSON)
            }
            grammar = GrammarMatcher(index)
        }

        /// Feeds fixed text to the model (markers the format requires), keeping the cache in step.
        func force(_ fixed: String) throws {
            let ids = engine.tokenizer.encode(fixed, addSpecial: false, parseSpecial: false).map(Int.init)
            guard !ids.isEmpty else { return }
            guard sequence.position + ids.count < contextSize else { throw overflow() }
            logits = try sequence.evaluate(ids)
            tokens += ids
        }

        func overflow() -> LanguageModelError {
            .contextSizeExceeded(.init(
                contextSize: contextSize, tokenCount: sequence.position + 1,
                debugDescription: "the response filled the context window after \(generated) tokens"))
        }

        func startCall() throws {
            let index = try engine.grammarIndex(key: "tools:" + tools.map(\.name).joined(separator: ",")
                + tools.map(\.parameters.canonicalJSON).joined()) {
                try ToolCallGrammar.compile(for: tools)
            }
            grammar = GrammarMatcher(index)
            callText = ""
        }

        if toolsEnabled && mode == .required {
            try force(HermesToolFormat.callOpen + "\n")
            try startCall()
        }

        generation: while true {
            try Task.checkCancellation()
            // Decoding is synchronous work on the cooperative pool, which has one thread per core:
            // a few sessions generating at once (workers of an agent) would hold every thread and
            // starve other tasks, such as the consumers of their own streams, until they finish.
            await Task.yield()
            if let budget, generated >= budget { break }
            if var matcher = grammar {
                if mask.isEmpty { mask = [UInt64](repeating: 0, count: (logits.count + 63) / 64) }
                matcher.fillNextTokenBitmask(into: &mask)
                grammar = matcher
            }
            guard let token = sampler.sample(logits, allowed: grammar == nil ? nil : mask) else {
                throw LanguageModelError.decodingFailure(.init(debugDescription: "no token satisfies the grammar"))
            }
            if engine.isEndOfGeneration(token) { break }
            generated += 1

            if var matcher = grammar {
                guard matcher.accept(token: token) else {
                    throw LanguageModelError.decodingFailure(.init(debugDescription: "the grammar rejected token \(token)"))
                }
                grammar = matcher
            }
            let piece = detokenizer.append(Int32(token))
            guard sequence.position + 1 < contextSize else { throw overflow() }
            logits = try sequence.evaluate([token])
            tokens.append(token)

            if toolsEnabled, grammar != nil, request.schema == nil {
                // Inside a tool call: collect its JSON until the grammar completes.
                callText += piece
                if grammar?.isCompleted == true {
                    callText += detokenizer.finish()
                    let body = try GeneratedContent(json: callText)
                    guard case .structure(let fields, _) = body.kind, case .string(let name)? = fields["name"]?.kind,
                        let arguments = fields["arguments"]
                    else {
                        throw LanguageModelError.decodingFailure(.init(debugDescription: "malformed tool call \(callText)"))
                    }
                    calls.append((name, arguments))
                    grammar = nil
                    try force("\n" + HermesToolFormat.callClose)
                    // One call per round: the session runs it and asks again, and the model can call
                    // the next tool then. Letting a small model write on after a call tends to ramble.
                    break generation
                }
                continue
            }

            outputText += piece
            if request.schema != nil, grammar?.isCompleted == true { break }
            if toolsEnabled, let range = outputText.range(of: HermesToolFormat.callOpen) {
                // The model opened a tool call: the rest of it is generated under the grammar.
                let after = outputText[range.upperBound...].drop { $0 == "\n" || $0 == " " }
                outputText = String(outputText[..<range.lowerBound])
                try startCall()
                if !after.isEmpty {
                    guard var matcher = grammar, matcher.accept(bytes: Array(after.utf8)) else {
                        throw LanguageModelError.decodingFailure(.init(debugDescription: "tool call starts with \(after)"))
                    }
                    grammar = matcher
                    callText = String(after)
                }
                continue
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
            if calls.isEmpty, sendable > streamed {
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
        await channel.send(.response(action: .updateUsage(
            input: .init(totalTokenCount: tokens.count - generated, cachedTokenCount: cached),
            output: .init(totalTokenCount: generated, reasoningTokenCount: 0))))
        let finished = ContinuousClock.now
        logger.debug(
            "generated",
            metadata: [
                "promptTokens": "\(tokens.count - generated)", "cachedTokens": "\(cached)", "outputTokens": "\(generated)",
                "prefill": "\(prefilled - started)", "decode": "\(finished - prefilled)",
                "toolCalls": "\(calls.map(\.name))",
            ])
    }
}
