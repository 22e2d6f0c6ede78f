import Foundation
import LocalLM
import LocalLMTestSupport
import Testing

/// Every way a tool round can end, on the real Qwen2.5-Coder-0.5B-Instruct (greedy), leaves the
/// transcript as Apple's rules say and the session's KV cache consistent with it:
///
/// - the transcript after the request is checked entry by entry (reverted on errors by default,
///   kept up to the failure with `.preserveTranscript`);
/// - the cache is checked by what it changes: the session's next request reuses the tokens the
///   history shares with the failed or finished round, and answers exactly as a new session
///   started from the same transcript answers (which has no cache). A cache holding tokens the
///   transcript does not hold would make the two differ.
@Suite("Tool paths keep the transcript and the KV cache consistent (Qwen 0.5B)", .serialized)
struct QwenToolPathConsistencyTests {
    let model: SystemLanguageModel

    init() throws {
        model = SystemLanguageModel(contentsOf: try TestModels.require(TestModels.qwen05))
    }

    static func greedy(_ tokens: Int, _ mode: GenerationOptions.ToolCallingMode? = nil) -> GenerationOptions {
        GenerationOptions(samplingMode: .greedy, maximumResponseTokens: tokens, toolCallingMode: mode)
    }

    /// The entries' kinds and texts, without ids (a new session makes its own).
    static func shape(_ transcript: Transcript) -> [String] {
        transcript.map(\.description)
    }

    /// What a request ended with: its text, or the error's type and description.
    static func outcome(_ request: () async throws -> String) async -> String {
        do {
            return "text: " + (try await request())
        } catch {
            return "error: \(type(of: error)) \(error)"
        }
    }

    /// The session's next request (`.allowed`, tools offered) against a new session made from the
    /// same transcript: the same outcome and the same transcript after it; the session reused at
    /// least the history up to and including `sharedPrompt` (when the history holds it), which the
    /// round before read too.
    func expectTheCacheMatchesTheTranscript(
        _ session: LanguageModelSession, tools: [any Tool], sharedPrompt: String, reusesHistory: Bool = true,
        sourceLocation: SourceLocation = #_sourceLocation
    ) async throws {
        let history = session.transcript
        var shared: [Transcript.Entry] = []
        for entry in history {
            shared.append(entry)
            if case .prompt(let prompt) = entry, prompt.description == "Prompt: " + sharedPrompt { break }
        }
        // (A reverted transcript does not hold the failed round's prompt: the whole history is shared.)
        // Instructions alone, empty, render no message (and Qwen's template needs one).
        let rendersNothing = shared.count == 1 && session.transcript.first?.description == "Instructions: "
        let sharedTokens = rendersNothing ? 0 : try await model.tokenCount(for: shared)
        let followUp = "Thanks. In one word, what colour is the sky?"
        var usage: LanguageModelSession.Usage?
        let mine = await Self.outcome {
            let response = try await session.respond(to: followUp, options: Self.greedy(24))
            usage = response.usage
            return response.content
        }
        let fresh = LanguageModelSession(model: model, tools: tools, transcript: history)
        fresh.maximumToolRounds = session.maximumToolRounds
        fresh.transcriptErrorHandlingPolicy = session.transcriptErrorHandlingPolicy
        var freshUsage: LanguageModelSession.Usage?
        let theirs = await Self.outcome {
            let response = try await fresh.respond(to: followUp, options: Self.greedy(24))
            freshUsage = response.usage
            return response.content
        }
        #expect(mine == theirs, sourceLocation: sourceLocation)
        #expect(Self.shape(session.transcript) == Self.shape(fresh.transcript), sourceLocation: sourceLocation)
        if let usage, let freshUsage {
            // (Both sum over the follow-up's rounds, so the new session reuses its own later rounds.)
            // The prompt of the round before ends with `<|im_end|>\n`, which the round before never
            // evaluated as prompt (it was followed by the assistant header): hence the slack of 2.
            #expect(!reusesHistory || usage.cachedInputTokenCount >= sharedTokens - 2,
                    "cached \(usage.cachedInputTokenCount), shared history \(sharedTokens)", sourceLocation: sourceLocation)
            #expect(usage.inputTokenCount == freshUsage.inputTokenCount, sourceLocation: sourceLocation)
        }
    }

    /// A call made: its round recorded as one tool-calls entry and its output. Greedy Qwen 0.5B
    /// calls again once shown the output; the repeat ends the loop (`endsRepeatedToolCalls`) and
    /// the answer round, asked with calls disallowed, keeps the tools in the prompt, so the next
    /// request still reuses the history from the cache. (Without the policy, one round's bound
    /// ends the request and, preserved, the transcript keeps the round that ran.)
    @Test func aCallMade() async throws {
        let log = CallLog()
        let tools: [any Tool] = [WeatherTool(log: log)]
        let session = LanguageModelSession(model: model, tools: tools)
        session.maximumToolRounds = 1
        session.transcriptErrorHandlingPolicy = .preserveTranscript
        let prompt = "What is the weather in Boston?"
        let result = await Self.outcome { try await session.respond(to: prompt, options: Self.greedy(48)).content }
        print("Qwen 0.5B, one call:", result, Self.shape(session.transcript))
        #expect(log.order.first == "Boston")
        let entries = Array(session.transcript)
        guard entries.count >= 4, case .toolCalls(let calls) = entries[2], case .toolOutput(let output) = entries[3] else {
            Issue.record("unexpected entries \(Self.shape(session.transcript))")
            return
        }
        #expect(calls.map(\.toolName) == ["getWeather"])
        #expect(output.id == calls[0].id)
        if result.hasPrefix("text: ") {
            guard entries.count == 5, case .response = entries[4] else {
                Issue.record("unexpected entries \(Self.shape(session.transcript))")
                return
            }
        } else {
            #expect(result.contains("ToolCallLimitExceeded"))
            #expect(entries.count == 4)
        }
        try await expectTheCacheMatchesTheTranscript(session, tools: tools, sharedPrompt: prompt)
    }

    /// A tool that throws: `ToolCallError` naming the tool with its error; the transcript reverted
    /// (default) or kept up to the calls (`.preserveTranscript`), with no output entry.
    @Test(arguments: [false, true])
    func aToolThatThrows(preserving: Bool) async throws {
        let tools: [any Tool] = [FailingTool()]
        let session = LanguageModelSession(model: model, tools: tools, instructions: "Use the tool to answer.")
        if preserving { session.transcriptErrorHandlingPolicy = .preserveTranscript }
        let prompt = "Find a recipe for tomato soup in Paris."
        do {
            _ = try await session.respond(to: prompt, options: Self.greedy(48, .required))
            Issue.record("expected a ToolCallError")
        } catch let error as LanguageModelSession.ToolCallError {
            #expect(error.tool.name == "FailingTool")
            #expect(error.underlyingError as? DatabaseUnavailable == DatabaseUnavailable())
        }
        let shape = Self.shape(session.transcript)
        if preserving {
            #expect(shape.count == 3, "\(shape)")
            #expect(shape.dropLast() == ["Instructions: Use the tool to answer.", "Prompt: " + prompt])
            #expect(shape.last?.hasPrefix("Tool calls:\nFailingTool: {\"city\": ") == true, "\(shape)")
        } else {
            #expect(shape == ["Instructions: Use the tool to answer."])
        }
        try await expectTheCacheMatchesTheTranscript(session, tools: tools, sharedPrompt: prompt)
    }

    /// A call the budget cuts: `decodingFailure` with the partial call, no tool run, the transcript
    /// reverted — or, preserved, kept with the prompt and no call (the partial call is no entry).
    @Test(arguments: [false, true])
    func anIncompleteCall(preserving: Bool) async throws {
        let log = CallLog()
        let tools: [any Tool] = [WeatherTool(log: log)]
        let session = LanguageModelSession(model: model, tools: tools)
        if preserving { session.transcriptErrorHandlingPolicy = .preserveTranscript }
        let prompt = "What is the weather in Boston?"
        do {
            _ = try await session.respond(to: prompt, options: Self.greedy(6, .required))
            Issue.record("expected a decoding failure")
        } catch let error as LanguageModelSession.GenerationError {
            guard case .decodingFailure(let context) = error else {
                Issue.record("expected decodingFailure, got \(error)")
                return
            }
            // The partial call: the opener the grammar forced and the model's first tokens.
            #expect(context.debugDescription.contains("<tool_call>"), "\(context.debugDescription)")
        }
        #expect(log.order.isEmpty)
        let shape = Self.shape(session.transcript)
        #expect(shape.first == "Instructions: ")
        #expect(shape.dropFirst().allSatisfy { !$0.hasPrefix("Tool calls") && !$0.contains("tool_call") }, "\(shape)")
        #expect(shape.count == (preserving ? 2 : 1), "\(shape)")
        try await expectTheCacheMatchesTheTranscript(session, tools: tools, sharedPrompt: prompt)
    }

    /// `.disallowed`: text, no call, no call text; the tools are out of that prompt, so the next
    /// request (tools offered) shares little with it and must still answer as a new session does.
    @Test func disallowed() async throws {
        let log = CallLog()
        let tools: [any Tool] = [WeatherTool(log: log)]
        let session = LanguageModelSession(model: model, tools: tools)
        let response = try await session.respond(to: "Say hello.", options: Self.greedy(24, .disallowed))
        #expect(log.order.isEmpty)
        #expect(!response.content.contains("\"name\"") && !response.content.contains("<tool_call>"))
        #expect(Self.shape(session.transcript) == ["Instructions: ", "Prompt: Say hello.", "Response: " + response.content])
        try await expectTheCacheMatchesTheTranscript(session, tools: tools, sharedPrompt: "Say hello.", reusesHistory: false)
    }

    /// `.required` asks for a call every round (Apple's rule), so one round's bound ends the
    /// request after its call ran; preserved, the transcript holds the call and its output.
    @Test(arguments: [false, true])
    func required(preserving: Bool) async throws {
        let log = CallLog()
        let tools: [any Tool] = [WeatherTool(log: log)]
        let session = LanguageModelSession(model: model, tools: tools)
        session.maximumToolRounds = 1
        if preserving { session.transcriptErrorHandlingPolicy = .preserveTranscript }
        let prompt = "Tell me about Oslo."
        await #expect(throws: LanguageModelSession.ToolCallLimitExceeded.self) {
            _ = try await session.respond(to: prompt, options: Self.greedy(48, .required))
        }
        #expect(log.order == ["Oslo"])
        let shape = Self.shape(session.transcript)
        if preserving {
            #expect(shape == ["Instructions: ", "Prompt: " + prompt, "Tool calls:\ngetWeather: {\"city\": \"Oslo\"}",
                              "getWeather output: It is 20 degrees in Oslo."])
        } else {
            #expect(shape == ["Instructions: "])
        }
        try await expectTheCacheMatchesTheTranscript(session, tools: tools, sharedPrompt: prompt)
    }

    /// A history with a round of several calls (one tool-calls entry, the outputs in call order),
    /// as a restored session holds it: the session answers, then the cache as above. (Greedy
    /// Qwen 0.5B, prompted exactly as llama.cpp prompts it, writes one call per turn — llama.cpp's
    /// run of the same prompt too — so the round is in the history; running several calls
    /// concurrently, outputs in call order, is ToolLoopTests' with the scripted model.)
    @Test func aRoundOfSeveralCallsInTheHistory() async throws {
        let log = CallLog()
        let tools: [any Tool] = [WeatherTool(log: log)]
        func text(_ content: String) -> [Transcript.Segment] { [.text(.init(content: content))] }
        let calls = [
            Transcript.ToolCall(id: "call-1", toolName: "getWeather", arguments: GeneratedContent(properties: ["city": "Boston"])),
            Transcript.ToolCall(id: "call-2", toolName: "getWeather", arguments: GeneratedContent(properties: ["city": "Wichita"])),
        ]
        let prompt = "What is the weather in Boston and Wichita?"
        let history = Transcript(entries: [
            .instructions(.init(segments: [], toolDefinitions: [Transcript.ToolDefinition(tool: WeatherTool(log: log))])),
            .prompt(.init(segments: text(prompt))),
            .toolCalls(.init(calls)),
            .toolOutput(.init(id: "call-1", toolName: "getWeather", segments: text("It is 20 degrees in Boston."))),
            .toolOutput(.init(id: "call-2", toolName: "getWeather", segments: text("It is 25 degrees in Wichita."))),
        ])
        let session = LanguageModelSession(model: model, tools: tools, transcript: history)
        session.maximumToolRounds = 2
        session.transcriptErrorHandlingPolicy = .preserveTranscript
        let first = await Self.outcome { try await session.respond(to: "Which one is warmer?", options: Self.greedy(40)).content }
        print("Qwen 0.5B, after a round of two calls:", first)
        #expect(Array(Self.shape(session.transcript).prefix(5)) == Self.shape(history))
        try await expectTheCacheMatchesTheTranscript(session, tools: tools, sharedPrompt: "Which one is warmer?")
    }
}
