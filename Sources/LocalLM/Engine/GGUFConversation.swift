import Foundation
import LocalLMEngine
import LocalLMGrammar
import LocalLMRuntime
import Logging

/// One session's state on a GGUF engine: a KV cache that holds the tokens of the conversation so
/// far. Each request renders the whole transcript, keeps the longest common token prefix with the
/// cache and prefills only the rest, so a turn costs its new tokens, not the history.
///
/// The tokens come from the engine's one generation loop (``TokenGenerator``); this actor adds what
/// a session needs on top: the transcript as engine messages, tool calls (``ToolCallDecoder``), the
/// stream of response actions, and errors as `LanguageModelError`s.
///
/// Its work runs on a ``ModelWorkExecutor``, not on the cooperative pool, so generating sessions never
/// hold the threads the rest of the program's tasks run on.
package actor GGUFConversation {
    private let executor = ModelWorkExecutor(label: "LocalLM.GGUFConversation")
    package nonisolated var unownedExecutor: UnownedSerialExecutor { executor.asUnownedSerialExecutor() }
    private let engine: GGUFEngine
    private let logger: Logger
    private var sequence: ModelSequence?
    private var busy = false

    package init(engine: GGUFEngine, logger: Logger) {
        self.engine = engine
        self.logger = logger
    }

    private func currentSequence() throws -> ModelSequence {
        if let sequence { return sequence }
        let made = try engine.model.makeSequence(contextSize: engine.contextSize, cacheType: engine.cacheType)
        sequence = made
        return made
    }

    /// Empties the cache (not during a request), so the next request prefills its whole prompt.
    package func discardCache() {
        guard !busy else { return }
        try? sequence?.truncate(to: 0)
    }

    package nonisolated func prewarm(transcript: Transcript) throws {
        Task { try await self.prewarmIsolated(transcript) }
    }

    private func prewarmIsolated(_ transcript: Transcript) throws {
        guard !busy else { return }
        let text = try engine.renderer.render(transcript.chatMessages(), tools: transcript.chatTools, addGenerationPrompt: false)
        let tokens = engine.promptTokens(rendered: text)
        guard tokens.count < engine.contextSize, !tokens.isEmpty else { return }
        let sequence = try currentSequence()
        let common = try sequence.reusePrefix(of: tokens)
        try sequence.append(Array(tokens[common...]))
    }

    package func respond(
        to request: LanguageModelExecutorGenerationRequest, streamingInto channel: LanguageModelExecutorGenerationChannel
    ) async throws {
        guard !busy else { throw LanguageModelSession.Error.concurrentRequests }
        busy = true
        defer { busy = false }
        do {
            try await generate(request, channel)
        } catch let error as EngineError {
            throw LanguageModelError(error, schemaName: request.schema?.schemaName)
        } catch let error as GrammarError {
            // A schema (a response's, or a tool's arguments) whose guides the grammar cannot enforce.
            throw LanguageModelError(.grammar(error), schemaName: request.schema?.schemaName)
        } catch let error as RuntimeError {
            if case .cancelled = error { throw CancellationError() }
            throw LanguageModelError(.runtime(error))
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
        let tools = request.transcript.chatTools
        let mode: ToolCallMode =
            switch options.toolCallingMode?.value ?? .allowed {
            case .required: .required
            case .disallowed: .disallowed
            default: .allowed
            }
        let toolsEnabled = !tools.isEmpty && request.schema == nil
        // Tools disallowed for the whole request stay out of the prompt: a model shown tools it may
        // not call tends to answer with a call's JSON anyway (the openers are masked as well). Once
        // the request has made calls (the transcript ends with their outputs), they stay: the
        // history shows those calls, and the prompt keeps the prefix the KV cache holds (the round
        // `endsRepeatedToolCalls` asks for is disallowed this way).
        var callsMade = false
        if case .toolOutput = request.transcript.entries.last { callsMade = true }
        let historyHasCalls = request.transcript.entries.contains { if case .toolCalls = $0 { true } else { false } }
        let renderer = engine.renderer
        let enableThinking = Self.thinkingSwitch(renderer.reasoning, request: request)
        let text = try renderer.render(
            request.transcript.chatMessages(
                responseSchema: request.schema, includeSchemaInPrompt: request.contextOptions.includeSchemaInPrompt ?? true),
            tools: toolsEnabled && (mode != .disallowed || callsMade) ? tools : [], enableThinking: enableThinking)
        // Reasoning is split from the answer unless a schema's grammar governs every token.
        var splitter =
            request.schema == nil
            ? renderer.reasoning.map { ReasoningSplitter(format: $0, startsInside: $0.startsInside(prompt: text)) } : nil
        let tokens = engine.promptTokens(rendered: text)
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

        // The grammar, when there is one, is the first step of the sampler chain. A response schema
        // constrains everything; tools constrain calls as the mode says (``ToolCallDecoder``).
        var grammar: GrammarMask?
        var decoder: ToolCallDecoder?
        if let schema = request.schema {
            let index = try engine.grammarIndex(key: "schema:" + schema.canonicalJSON) {
                try CompiledGrammar(jsonSchema: schema.jsonSchema.jsonValue)
            }
            grammar = GrammarMask(GrammarConstraint(index, activation: .required))
        } else if toolsEnabled || (mode == .disallowed && historyHasCalls) {
            // Calls disallowed in a round that offers no tools still mask the openers when the
            // history shows calls: a model that has seen itself call tends to answer with one
            // (the coordinator of `locallm agent`, asked for its answer, wrote `{"name": "work", …}`).
            let made = try ToolCallDecoder(engine: engine, tools: toolsEnabled ? tools : [], mode: mode, format: renderer.format)
            made.endsRepeatedCalls = request.endsRepeatedToolCalls
            decoder = made
            grammar = made.grammar
        }
        let generator = TokenGenerator(
            sequence: sequence, tokenizer: engine.tokenizer,
            sampler: options.makeSamplerChain(mask: grammar.map { LogitMaskStep($0) }), grammar: grammar,
            limits: GenerationLimits(maxTokens: budget, stopStrings: []))
        // `busy` keeps a prewarm from touching the cache while this request is suspended.
        let cached = try await generator.prefill(tokens)
        let prefilledCount = tokens.count - cached
        let prefilled = ContinuousClock.now
        await channel.send(.response(action: .updateMetadata(["modelID": engine.name])))

        var firstToken: ContinuousClock.Instant?
        var callNames: [String] = []
        var reasoningTokens = 0
        while let token = try await generator.next() {
            if firstToken == nil { firstToken = .now }
            var answer = token.text
            if var split = splitter {
                if !split.isAnswering { reasoningTokens += 1 }
                let parts = split.append(token.text)
                splitter = split
                answer = parts.answer
                if !parts.reasoning.isEmpty { await channel.send(.reasoning(action: .appendText(parts.reasoning, tokenCount: 1))) }
            }
            let delta: String
            if let decoder {
                delta = decoder.append(answer)
            } else {
                delta = answer
            }
            if !delta.isEmpty { await channel.send(.response(action: .appendText(delta, tokenCount: 1))) }
            if request.schema != nil && grammar?.isCompleted == true { break }
            if decoder?.isFinished == true { break }
        }

        let generated = generator.ids.count
        switch generator.stopReason {
        case .cancelled?: throw CancellationError()
        case .contextFull? where decoder?.partialCall == nil:
            throw EngineError.contextFull(
                contextSize: contextSize, tokenCount: sequence.position + 1,
                detail: "the response filled the context window after \(generated) tokens")
        case .noAllowedToken?: throw EngineError.noAllowedToken
        default: break
        }
        var tail = generator.finishText()
        if var split = splitter {
            let parts = split.append(tail)
            let last = split.finish()
            let reasoning = parts.reasoning + last.reasoning
            if !reasoning.isEmpty { await channel.send(.reasoning(action: .appendText(reasoning, tokenCount: 0))) }
            tail = parts.answer + last.answer
        }
        if let decoder {
            switch try decoder.finish(stopReason: generator.stopReason, tail: tail) {
            case .text(let rest):
                if !rest.isEmpty { await channel.send(.response(action: .appendText(rest, tokenCount: 0))) }
            case .calls(let calls):
                callNames = calls.map(\.name)
                for (index, call) in calls.enumerated() {
                    await channel.send(.toolCalls(action: .append(
                        Transcript.ToolCall(id: UUID().uuidString, toolName: call.name, arguments: GeneratedContent(jsonValue: call.arguments)),
                        tokenCount: index == 0 ? generated : 0)))
                }
            }
        } else if !tail.isEmpty {
            await channel.send(.response(action: .appendText(tail, tokenCount: 0)))
        }
        // The cache keeps every chosen token but end-of-generation, so the next turn reuses them.
        // (After the last text is out, so streaming readers do not wait for this pass.)
        try generator.evaluatePending()
        await channel.send(.response(action: .updateUsage(
            input: .init(totalTokenCount: tokens.count + generator.forcedTokenCount, cachedTokenCount: cached),
            output: .init(totalTokenCount: generated, reasoningTokenCount: reasoningTokens))))
        let finished = ContinuousClock.now
        logger.trace("output tokens", metadata: ["tokens": "\(generator.ids)"])
        logger.debug(
            "generated",
            metadata: [
                "promptTokens": "\(tokens.count + generator.forcedTokenCount)", "cachedTokens": "\(cached)", "outputTokens": "\(generated)",
                "prefilledTokens": "\(prefilledCount)", "timeToFirstToken": "\((firstToken ?? finished) - started)",
                "prefill": "\(prefilled - started)", "decode": "\(finished - prefilled)",
                "toolCalls": "\(callNames)",
            ])
    }

    /// The template's thinking switch for a request: `nil` (the template's default) unless the
    /// request sets a reasoning level, or has a response schema, whose grammar starts at the first
    /// token and leaves no room for reasoning (thinking off). `.custom("none")` or `"off"` turns it off.
    static func thinkingSwitch(_ format: ReasoningFormat?, request: LanguageModelExecutorGenerationRequest) -> Bool? {
        guard let format, format.switchable else { return nil }
        if request.schema != nil { return false }
        guard let level = request.contextOptions.reasoningLevel else { return nil }
        if case .custom(let name) = level, ["none", "off", "disabled", "false"].contains(name.lowercased()) { return false }
        return true
    }
}
