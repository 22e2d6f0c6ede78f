// A program written against Apple's documented FoundationModels API, run on SmolLM2.
// Only the import differs from what compiles against FoundationModels (plus `LocalLMTestSupport`,
// which locates the model file, and `maximumToolRounds`, a LocalLM addition).
import Foundation
import LocalLM
import LocalLMTestSupport
import Testing

@Suite("Apple's API on SmolLM2", .serialized)
struct FoundationModelsProgramTests {
    /// Short, repeatable answers.
    let greedy = GenerationOptions(samplingMode: .greedy, maximumResponseTokens: 12)

    init() throws {
        _ = try TestModels.require(TestModels.smolLM2)
    }

    @Test func availabilityInstructionsAndARespond() async throws {
        let model = SystemLanguageModel.default
        #expect(model.availability == .available)
        #expect(model.isAvailable)
        let session = LanguageModelSession(instructions: "You are a helpful assistant. Answer in one short sentence.")
        let response = try await session.respond(to: "What is the capital of France?", options: greedy)
        #expect(!response.content.isEmpty)
        #expect(response.content.localizedCaseInsensitiveContains("paris"))
        #expect(session.transcript.count == 3)
        #expect(response.usage.outputTokenCount > 0 && response.usage.outputTokenCount <= 12)
    }

    @Test func multiTurnReusesTheCache() async throws {
        let session = LanguageModelSession(instructions: "You are a helpful assistant.")
        let first = try await session.respond(to: "Say hello.", options: greedy)
        let second = try await session.respond(to: "Now say goodbye.", options: greedy)
        // The second turn's prompt starts with the whole first turn, which is in the cache.
        #expect(second.usage.cachedInputTokenCount >= first.usage.inputTokenCount)
        #expect(second.usage.inputTokenCount - second.usage.cachedInputTokenCount < 30)
        #expect(session.transcript.count == 5)
    }

    @Test func greedyIsRepeatableAndSeedsRepeat() async throws {
        let a = try await LanguageModelSession().respond(to: "Count: one, two,", options: greedy)
        let b = try await LanguageModelSession().respond(to: "Count: one, two,", options: greedy)
        #expect(a.content == b.content)
        let seeded = GenerationOptions(samplingMode: .random(top: 40, seed: 42), temperature: 1.0, maximumResponseTokens: 10)
        let c = try await LanguageModelSession().respond(to: "Write a word.", options: seeded)
        let d = try await LanguageModelSession().respond(to: "Write a word.", options: seeded)
        #expect(c.content == d.content)
    }

    @Test func streamingSnapshotsGrowAndCollect() async throws {
        let session = LanguageModelSession()
        let stream = session.streamResponse(to: "Name three colors.", options: greedy)
        var snapshots: [String] = []
        for try await snapshot in stream {
            snapshots.append(snapshot.content)
        }
        #expect(snapshots.count > 1)
        for (earlier, later) in zip(snapshots, snapshots.dropFirst()) {
            #expect(later.hasPrefix(earlier))
        }
        let response = try await stream.collect()
        #expect(response.content == snapshots.last)
    }

    @Test func savedTranscriptContinuesTheConversation() async throws {
        let original = LanguageModelSession(instructions: "You are a helpful assistant.")
        try await original.respond(to: "My name is Ada.", options: greedy)
        let saved = try JSONEncoder().encode(original.transcript)
        let answer = try await original.respond(to: "What is my name?", options: greedy)

        let transcript = try JSONDecoder().decode(Transcript.self, from: saved)
        let restored = LanguageModelSession(transcript: transcript)
        let again = try await restored.respond(to: "What is my name?", options: greedy)
        // Same history, same greedy answer: the restored session sees exactly what the original saw.
        #expect(again.content == answer.content)
    }

    @Test func aSecondRespondWhileRespondingIsAnError() async throws {
        let session = LanguageModelSession()
        let first = Task { try await session.respond(to: "Tell me a long story.", options: greedy) }
        while !session.isResponding { await Task.yield() }
        do {
            try await session.respond(to: "Interrupt!")
            Issue.record("expected concurrentRequests")
        } catch LanguageModelSession.GenerationError.concurrentRequests {
        }
        _ = try await first.value
        #expect(session.transcript.count == 2)
    }

    @Test func contextOverflowIsAnErrorAndTheSessionRecovers() async throws {
        let small = SystemLanguageModel(contentsOf: TestModels.smolLM2, configuration: .init(contextSize: 64))
        let session = LanguageModelSession(model: small)
        let long = String(repeating: "This sentence is filler text. ", count: 40)
        do {
            try await session.respond(to: long, options: greedy)
            Issue.record("expected exceededContextWindowSize")
        } catch LanguageModelSession.GenerationError.exceededContextWindowSize(let context) {
            #expect(context.debugDescription.contains("64"))
        }
        #expect(session.transcript.isEmpty)
        let short = try await session.respond(to: "Hi", options: GenerationOptions(samplingMode: .greedy, maximumResponseTokens: 4))
        #expect(short.usage.outputTokenCount > 0)
    }

    @Test func cancellationStopsPromptly() async throws {
        let session = LanguageModelSession()
        let options = GenerationOptions(samplingMode: .greedy, maximumResponseTokens: 3000)
        let task = Task { try await session.respond(to: "Write a very long essay about the sea.", options: options) }
        while !session.isResponding { await Task.yield() }
        try await Task.sleep(for: .milliseconds(200))
        let cancelled = ContinuousClock.now
        task.cancel()
        await #expect(throws: CancellationError.self) { try await task.value }
        // It stops at the next token or prefill batch: well under a second in release builds.
        #expect(ContinuousClock.now - cancelled < .seconds(3))
        #expect(!session.isResponding)
        #expect(session.transcript.isEmpty)
        let after = try await session.respond(to: "Hi", options: GenerationOptions(samplingMode: .greedy, maximumResponseTokens: 4))
        #expect(after.usage.outputTokenCount > 0)
    }

    @Test func requiredToolCallDecodesAndRuns() async throws {
        let log = CallLog()
        let session = LanguageModelSession(
            tools: [WeatherTool(log: log)], instructions: "Help the person with getting weather information")
        session.transcriptErrorHandlingPolicy = .preserveTranscript
        session.maximumToolRounds = 1
        // `.required` keeps calling tools (Apple's semantics); one round is allowed here.
        await #expect(throws: LanguageModelSession.ToolCallLimitExceeded.self) {
            try await session.respond(to: "What is the weather in Boston?", options: GenerationOptions(toolCallingMode: .required))
        }
        #expect(log.order.count == 1)
        guard case .toolCalls(let calls) = session.transcript[2], case .toolOutput(let output) = session.transcript[3] else {
            Issue.record("expected a tool call and its output: \(session.transcript.map(\.description))")
            return
        }
        #expect(calls.first?.toolName == "getWeather")
        #expect(output.segments.map(\.description) == ["It is 20 degrees in \(log.order[0])."])
        // Without tools, the model answers from the tool output.
        let answer = try await session.respond(
            to: "So, what is it like?", options: GenerationOptions(samplingMode: .greedy, maximumResponseTokens: 16, toolCallingMode: .disallowed))
        #expect(!answer.content.isEmpty)
    }
}
