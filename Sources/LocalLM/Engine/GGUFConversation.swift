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
/// a session needs on top: the transcript rendered to a prompt, tool calls in the Hermes format, the
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

    package nonisolated func prewarm(transcript: Transcript) throws {
        Task { try await self.prewarmIsolated(transcript) }
    }

    private func prewarmIsolated(_ transcript: Transcript) throws {
        guard !busy else { return }
        let text = try engine.renderer.render(transcript, addGenerationPrompt: false)
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
        } catch let error as PromptRenderer.RenderError {
            throw LanguageModelError(.template(error))
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
        let tools = request.toolDefinitions
        let mode = options.toolCallingMode?.value ?? .allowed
        let toolsEnabled = !tools.isEmpty && mode != .disallowed && request.schema == nil
        let text = try engine.renderer.render(
            request.transcript, responseSchema: request.schema,
            includeSchemaInPrompt: request.contextOptions.includeSchemaInPrompt ?? true)
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
        // constrains everything; tools in `.allowed` mode constrain only what follows the model's own
        // `<tool_call>` (lazily), and in `.required` mode the call the engine opens below.
        var grammar: GrammarMask?
        if let schema = request.schema {
            let index = try engine.grammarIndex(key: "schema:" + schema.canonicalJSON) {
                try CompiledGrammar(jsonSchema: schema.canonicalJSON)
            }
            grammar = GrammarMask(GrammarConstraint(index, activation: .required))
        } else if toolsEnabled {
            grammar = GrammarMask()
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
        var outputText = ""
        var streamed = 0  // characters of outputText already sent
        var callText = ""  // JSON of the tool call being generated
        var inCall = false
        var calls: [(name: String, arguments: GeneratedContent)] = []

        func toolCallGrammar() throws -> GrammarTokenIndex {
            try engine.grammarIndex(key: "tools:" + tools.map(\.name).joined(separator: ",")
                + tools.map(\.parameters.canonicalJSON).joined()) {
                try ToolCallGrammar.compile(for: tools)
            }
        }

        if toolsEnabled && mode == .required {
            try generator.force(HermesToolFormat.callOpen + "\n")
            grammar?.constrain(with: GrammarConstraint(try toolCallGrammar(), activation: .required))
            inCall = true
        } else if toolsEnabled {
            grammar?.constrain(with: GrammarConstraint(
                try toolCallGrammar(), activation: .lazy(triggers: [HermesToolFormat.callOpen])))
        }

        generation: while let token = try await generator.next() {
            if firstToken == nil { firstToken = .now }
            let piece = token.text

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
                callText += generator.finishText()
                guard let body = try? GeneratedContent(json: callText), case .structure(let fields, _) = body.kind,
                    case .string(let name)? = fields["name"]?.kind, let arguments = fields["arguments"]
                else {
                    throw EngineError.malformedToolCall(callText)
                }
                calls.append((name, arguments))
                try generator.force("\n" + HermesToolFormat.callClose)
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

        let generated = generator.ids.count
        switch generator.stopReason {
        case .cancelled?: throw CancellationError()
        case .contextFull?:
            throw EngineError.contextFull(
                contextSize: contextSize, tokenCount: sequence.position + 1,
                detail: "the response filled the context window after \(generated) tokens")
        case .noAllowedToken?: throw EngineError.noAllowedToken
        default: break
        }
        if calls.isEmpty {
            let tail = String(outputText.dropFirst(streamed)) + generator.finishText()
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
        try generator.evaluatePending()
        await channel.send(.response(action: .updateUsage(
            input: .init(totalTokenCount: tokens.count + generator.forcedTokenCount, cachedTokenCount: cached),
            output: .init(totalTokenCount: generated, reasoningTokenCount: 0))))
        let finished = ContinuousClock.now
        logger.trace("output tokens", metadata: ["tokens": "\(generator.ids)"])
        logger.debug(
            "generated",
            metadata: [
                "promptTokens": "\(tokens.count + generator.forcedTokenCount)", "cachedTokens": "\(cached)", "outputTokens": "\(generated)",
                "prefilledTokens": "\(prefilledCount)", "timeToFirstToken": "\((firstToken ?? finished) - started)",
                "prefill": "\(prefilled - started)", "decode": "\(finished - prefilled)",
                "toolCalls": "\(calls.map(\.name))",
            ])
    }
}
