import Foundation
import Logging

extension LanguageModelSession {
    /// What one request produced.
    package struct RequestOutcome: Sendable {
        var rawContent: GeneratedContent
        var transcriptEntries: ArraySlice<Transcript.Entry>
        var usage: Usage
    }

    /// Runs one request: the prompt, then as many tool-calling rounds as the model asks for (up
    /// to `maximumToolRounds`), then the response. `onProgress` gets the cumulative response
    /// content after every text delta, for streaming.
    ///
    /// Errors leave the transcript as the policy says (reverted by default) and the session usable.
    ///
    /// `validate` checks the final content (that it makes the requested type) before it enters the
    /// transcript, so a response the caller cannot get is a failure of the request.
    package func performRequest(
        prompt: Prompt, schema: GenerationSchema?, includeSchemaInPrompt: Bool, options: GenerationOptions,
        validate: ((GeneratedContent) throws -> Void)? = nil,
        onProgress: (@Sendable (GeneratedContent) async -> Void)? = nil
    ) async throws -> RequestOutcome {
        let responseFormat = schema.map { Transcript.ResponseFormat(schema: $0) }
        let promptEntry = Transcript.Prompt(segments: prompt.segments, options: options, responseFormat: responseFormat)
        let begun = try beginRequest(prompt: .prompt(promptEntry))
        let before = begun.before
        var transcript = begun.after
        let placement: AgentPlacement
        do {
            placement = try joinCallGraph()
        } catch {
            setTranscript(before)
            setResponding(false)
            throw error
        }
        let requestSessions = AgentCounter()
        let requestID = UUID()
        var logger = self.logger
        logger[metadataKey: "request"] = "\(requestID.uuidString.prefix(8))"
        let started = ContinuousClock.now
        // The entries this request added, and where the first of them that is left starts: hooks
        // and tools may edit the history, this request's part of it included.
        var added: Set<String> = [promptEntry.id]
        var firstEntry: Int { transcript.entries.firstIndex { added.contains($0.id) } ?? transcript.entries.endIndex }
        // Profile hooks and tools run with the session's property values, and may edit the
        // transcript through them; the request continues from what they left.
        func insideSession<T>(_ work: () async throws -> T) async rethrows -> T {
            let result = try await SessionPropertyValues.$current.withValue(properties) { try await work() }
            transcript = self.transcript
            return result
        }
        logger.debug("request started", metadata: ["prompt": "\(prompt.text)"])

        var usage = Usage()
        var rounds = 0
        var partialText = ""
        // Set when a round only repeated earlier calls of this request: the next round must answer.
        var answerNow = false
        var policy = transcriptErrorHandlingPolicy
        do {
            while true {
                try Task.checkCancellation()
                var roundOptions = options
                var roundTools = tools
                var resolved = ResolvedProfile()
                var executor = self.executor
                if let profile {
                    resolved = await insideSession { profile() }
                    roundTools = resolved.tools
                    executor = self.executor(for: resolved.model)
                    let active = Set(resolved.onActivate.map(\.path))
                    let before = activeProfiles.withLock { previous in
                        defer { previous = active }
                        return previous
                    }
                    for (path, action) in resolved.onActivate where !before.contains(path) {
                        await insideSession { await action() }
                    }
                    roundOptions.toolCallingMode = options.toolCallingMode ?? resolved.toolCallingMode
                    roundOptions.temperature = options.temperature ?? resolved.temperature
                    policy = resolved.transcriptErrorHandlingPolicy ?? transcriptErrorHandlingPolicy
                    Self.setInstructions(resolved.instructions, tools: resolved.tools, in: &transcript)
                    setTranscript(transcript)
                    if rounds == 0 {
                        for hook in resolved.onPrompt { try await insideSession { try await hook() } }
                    }
                }
                if answerNow { roundOptions.toolCallingMode = .disallowed }
                let collector = EventCollector()
                let progress = StreamingContent(structured: schema != nil)
                let channel = LanguageModelExecutorGenerationChannel { event in
                    guard let text = collector.apply(event), let onProgress else { return }
                    await onProgress(progress.update(text))
                }
                let shown =
                    resolved.historyTransforms.isEmpty
                    ? transcript
                    : transcript.replacingHistory(with: resolved.historyTransforms.reduce(transcript.history) { $1($0) })
                let request = LanguageModelExecutorGenerationRequest(
                    id: requestID, transcript: shown, generationOptions: roundOptions,
                    contextOptions: ContextOptions(includeSchemaInPrompt: includeSchemaInPrompt, reasoningLevel: resolved.reasoningLevel),
                    schema: schema, endsRepeatedToolCalls: endsRepeatedToolCalls)
                try Self.checkCapabilities(of: request, tools: roundTools, on: executor)
                do {
                    try await executor.respond(request, channel)
                } catch {
                    partialText = collector.accumulated.text
                    throw error
                }
                let result = collector.accumulated
                usage.inputTokenCount += result.usage.inputTokenCount
                usage.cachedInputTokenCount += result.usage.cachedInputTokenCount
                usage.outputTokenCount += max(result.usage.outputTokenCount, result.outputTokens)
                try Task.checkCancellation()

                if !result.reasoning.isEmpty {
                    let reasoning = Transcript.Reasoning(
                        id: result.reasoningID ?? UUID().uuidString, segments: [.text(Transcript.TextSegment(content: result.reasoning))])
                    transcript.entries.append(.reasoning(reasoning))
                    added.insert(reasoning.id)
                    setTranscript(transcript)
                    for hook in resolved.onReasoning { try await insideSession { try await hook(reasoning) } }
                }

                if !result.toolCalls.isEmpty, endsRepeatedToolCalls, roundOptions.toolCallingMode != .required,
                   Self.repeatsEarlierCalls(result.toolCalls, in: transcript.entries[firstEntry...]) {
                    logger.debug("repeated tool calls: asking for the answer", metadata: ["calls": "\(result.toolCalls.map(\.description))"])
                    answerNow = true
                    continue
                }
                if !result.toolCalls.isEmpty {
                    rounds += 1
                    guard rounds <= maximumToolRounds else { throw ToolCallLimitExceeded(maximumToolRounds: maximumToolRounds) }
                    let calls = Transcript.ToolCalls(id: result.toolCallsID ?? UUID().uuidString, result.toolCalls)
                    transcript.entries.append(.toolCalls(calls))
                    added.insert(calls.id)
                    setTranscript(transcript)
                    logger.debug(
                        "tool calls", metadata: ["round": "\(rounds)", "calls": "\(result.toolCalls.map(\.description))"])
                    for call in result.toolCalls {
                        for hook in resolved.onToolCall { try await insideSession { try await hook(call) } }
                    }
                    let outputs = try await insideSession {
                        try await callTools(result.toolCalls, tools: roundTools, placement: placement, requestSessions: requestSessions)
                    }
                    transcript.entries.append(contentsOf: outputs.map { .toolOutput($0) })
                    added.formUnion(outputs.map(\.id))
                    setTranscript(transcript)
                    continue
                }

                let content = try Self.finalContent(of: result.text, schema: schema)
                try validate?(content)
                let segment: Transcript.Segment =
                    if let schema {
                        .structure(Transcript.StructuredSegment(source: schema.schemaName, content: content))
                    } else {
                        .text(Transcript.TextSegment(content: result.text))
                    }
                let response = Transcript.Response(
                    id: result.responseID ?? UUID().uuidString, assetIDs: [executor.modelName], segments: [segment])
                transcript.entries.append(.response(response))
                added.insert(response.id)
                setTranscript(transcript)
                let outcome = RequestOutcome(rawContent: content, transcriptEntries: transcript.entries[firstEntry...], usage: usage)
                for hook in resolved.onResponse { try await insideSession { try await hook() } }
                setResponding(false)
                let elapsed = ContinuousClock.now - started
                logger.debug(
                    "request finished",
                    metadata: [
                        "inputTokens": "\(usage.inputTokenCount)", "cachedInputTokens": "\(usage.cachedInputTokenCount)",
                        "outputTokens": "\(usage.outputTokenCount)", "toolRounds": "\(rounds)", "elapsed": "\(elapsed)",
                    ])
                return outcome
            }
        } catch {
            if policy?.value == .preserve {
                if !partialText.isEmpty {
                    transcript.entries.append(
                        .response(Transcript.Response(
                            assetIDs: [executor.modelName], segments: [.text(Transcript.TextSegment(content: partialText))])))
                }
                setTranscript(transcript)
            } else {
                setTranscript(before)
            }
            setResponding(false)
            logger.debug("request failed", metadata: ["error": "\(error)"])
            throw Self.publicError(error, entries: Array(transcript.entries[firstEntry...]))
        }
    }

    /// Whether every call of a round repeats (same tool, same arguments) a call made earlier in the
    /// request, whose output the model has therefore seen.
    static func repeatsEarlierCalls(_ calls: [Transcript.ToolCall], in entries: ArraySlice<Transcript.Entry>) -> Bool {
        var earlier: Set<String> = []
        for case .toolCalls(let made) in entries {
            for call in made { earlier.insert("\(call.toolName)\u{0}\(call.arguments.jsonString)") }
        }
        return !earlier.isEmpty && calls.allSatisfy { earlier.contains("\($0.toolName)\u{0}\($0.arguments.jsonString)") }
    }

    /// Runs one round of tool calls concurrently; outputs come back in call order. Each call runs
    /// in an `AgentContext`, so sessions the tool starts join this session's call graph.
    private func callTools(
        _ calls: [Transcript.ToolCall], tools: [any Tool], placement: AgentPlacement, requestSessions: AgentCounter
    ) async throws -> [Transcript.ToolOutput] {
        var resolved: [(call: Transcript.ToolCall, tool: any Tool)] = []
        for call in calls {
            guard let tool = tools.first(where: { $0.name == call.toolName }) else {
                throw GenerationError.decodingFailure(
                    GenerationError.Context(debugDescription: "the model called an unknown tool '\(call.toolName)'"))
            }
            resolved.append((call, tool))
        }
        let segments = try await withThrowingTaskGroup(of: (Int, [Transcript.Segment]).self) { group in
            for (index, item) in resolved.enumerated() {
                let tool = item.tool
                let arguments = item.call.arguments
                let context = AgentContext(parent: agentNode, call: item.call, placement: placement, requestSessions: requestSessions)
                group.addTask {
                    do {
                        return (index, try await AgentContext.$current.withValue(context) {
                            try await tool.call(generatedArguments: arguments)
                        })
                    } catch let error as CancellationError {
                        throw error
                    } catch let error as AgentLimitExceeded {
                        // A bound of the whole graph, not a failure of this tool: the top caller sees it as is.
                        throw error
                    } catch {
                        throw ToolCallError(tool: tool, underlyingError: error)
                    }
                }
            }
            var outputs = [[Transcript.Segment]](repeating: [], count: resolved.count)
            for try await (index, output) in group {
                outputs[index] = output
            }
            return outputs
        }
        return zip(resolved, segments).map { item, segments in
            Transcript.ToolOutput(id: item.call.id, toolName: item.call.toolName, segments: segments)
        }
    }

    /// Makes the transcript's instructions entry (the first) say what a profile says.
    private static func setInstructions(_ instructions: Instructions?, tools: [any Tool], in transcript: inout Transcript) {
        let definitions = tools.map { Transcript.ToolDefinition(tool: $0) }
        let segments = instructions?.segments ?? []
        if case .instructions(var existing)? = transcript.entries.first {
            existing.segments = segments
            existing.toolDefinitions = definitions
            transcript.entries[0] = .instructions(existing)
        } else if !segments.isEmpty || !definitions.isEmpty {
            transcript.entries.insert(.instructions(Transcript.Instructions(segments: segments, toolDefinitions: definitions)), at: 0)
        }
    }

    /// The content of a finished response; output that does not parse, or stops before its value
    /// is complete (the token budget ran out), is a `decodingFailure`.
    package static func finalContent(of text: String, schema: GenerationSchema?) throws -> GeneratedContent {
        guard schema != nil else { return GeneratedContent(text) }
        let content: GeneratedContent
        do {
            content = try GeneratedContent(json: text)
        } catch {
            throw GenerationError.decodingFailure(
                GenerationError.Context(
                    debugDescription: "the response is not valid JSON for the schema: \(error)", underlyingError: error))
        }
        guard content.isComplete else {
            throw GenerationError.decodingFailure(
                GenerationError.Context(
                    debugDescription: "the response ended before its value was complete (the token budget ran out?): \(text)"))
        }
        return content
    }

    /// What callers see: executor errors (`LanguageModelError`, `LanguageModelSession.Error`) become
    /// `GenerationError`; tool errors, cancellation and the tool-round bound pass through.
    package static func publicError(_ error: any Swift.Error, entries: [Transcript.Entry]) -> any Swift.Error {
        switch error {
        case let error as LanguageModelError:
            if case .unsupportedCapability = error { return error }
            if case .refusal(let info) = error {
                return GenerationError.refusal(
                    GenerationError.Refusal(transcriptEntries: entries),
                    GenerationError.Context(debugDescription: info.debugDescription))
            }
            return error.generationError
        case let error as LanguageModelSession.Error:
            switch error {
            case .concurrentRequests, .transcriptMutationWhileResponding:
                return GenerationError.concurrentRequests(GenerationError.Context(debugDescription: error.localizedDescription))
            }
        default:
            return error
        }
    }
}
