import Foundation
import LocalLM
import LocalLMTestSupport
import Testing
import LocalLMSync

/// Fault paths on a real model (SmolLM2): after each failure the transcript is as documented (put
/// back as it was before the request, the default policy), the session takes the next request, and
/// its KV cache holds exactly what it should: the next answer is token for token what a new session
/// prefilled with the same transcript answers.
@Suite("Fault paths on SmolLM2", .serialized)
struct FaultPathTests {
    static let model = SystemLanguageModel(contentsOf: TestModels.smolLM2)
    static let short = GenerationOptions(samplingMode: .greedy, maximumResponseTokens: 16)

    init() throws {
        _ = try TestModels.require(TestModels.smolLM2)
    }

    final class Count: Sendable {
        private let value = SanitizableMutex(0)
        func increment() { value.withLock { $0 += 1 } }
        var current: Int { value.withLock { $0 } }
    }

    /// A session with one exchange in it, so the cache holds something worth keeping.
    static func warmSession(tools: [any Tool] = []) async throws -> LanguageModelSession {
        let session = LanguageModelSession(model: model, tools: tools, instructions: "You are a concise assistant.")
        _ = try await session.respond(to: "Name a fruit.", options: short)
        return session
    }

    /// The session answers the next question as a fresh session on its transcript does. With
    /// `exactTokens` off, the answers must agree on their first 24 characters: used where the
    /// reused cache rows were computed in a batch of another shape than the fresh session's (a
    /// cancelled 256-token prefill batch against one 45-token batch), which sums the same products
    /// in another order, so a later near-tie in greedy decoding may fall the other way. A cache
    /// holding wrong rows diverges from the first token.
    static func expectConsistentAndUsable(_ session: LanguageModelSession, before: Transcript, exactTokens: Bool = true) async throws {
        #expect(!session.isResponding)
        #expect(session.transcript == before)
        let next = try await session.respond(to: "Name a planet.", options: GenerationOptions(samplingMode: .greedy, maximumResponseTokens: 16, toolCallingMode: .disallowed))
        let fresh = try await LanguageModelSession(model: model, tools: [], transcript: before)
            .respond(to: "Name a planet.", options: GenerationOptions(samplingMode: .greedy, maximumResponseTokens: 16, toolCallingMode: .disallowed))
        if exactTokens {
            #expect(next.content == fresh.content)
        } else {
            let agreed = zip(next.content, fresh.content).prefix { $0 == $1 }.count
            #expect(agreed >= min(24, fresh.content.count), "\(next.content) / \(fresh.content)")
        }
        #expect(!next.content.isEmpty)
    }

    @Test func cancellationDuringPrefill() async throws {
        let session = try await Self.warmSession()
        let before = session.transcript
        let long = String(repeating: "This sentence is filler text about nothing in particular. ", count: 150)
        let streamed = Count()
        let task = Task {
            for try await _ in session.streamResponse(to: long, options: Self.short) {
                streamed.increment()
            }
        }
        while !session.isResponding { await Task.yield() }
        try await Task.sleep(for: .milliseconds(150))
        task.cancel()
        await #expect(throws: CancellationError.self) { try await task.value }
        // Nothing was generated: the cancellation came during the prefill of about 1,700 tokens.
        #expect(streamed.current == 0)
        try await Self.expectConsistentAndUsable(session, before: before, exactTokens: false)
    }

    @Test func cancellationDuringDecode() async throws {
        let session = try await Self.warmSession()
        let before = session.transcript
        let streamed = Count()
        let task = Task {
            for try await _ in session.streamResponse(
                to: "Write a long story about the sea.", options: GenerationOptions(samplingMode: .greedy, maximumResponseTokens: 2000))
            {
                streamed.increment()
            }
        }
        while streamed.current < 5 { try await Task.sleep(for: .milliseconds(5)) }
        task.cancel()
        await #expect(throws: CancellationError.self) { try await task.value }
        try await Self.expectConsistentAndUsable(session, before: before)
    }

    /// A tool that waits far longer than the caller will: the caller's deadline cancels the request
    /// while the tool runs, and the tool's task is cancelled with it.
    struct SlowWeather: Tool {
        let name = "getWeather"
        let description = "Gets the weather in a city"
        let started = Count()
        let cancelled = Count()
        @Generable struct Arguments {
            @Guide(description: "The city") var city: String
        }
        func call(arguments: Arguments) async throws -> String {
            started.increment()
            do {
                try await Task.sleep(for: .seconds(60))
            } catch {
                cancelled.increment()
                throw error
            }
            return "Sunny."
        }
    }

    @Test func cancellationInsideAToolCall() async throws {
        let tool = SlowWeather()
        let session = try await Self.warmSession(tools: [tool])
        let before = session.transcript
        let task = Task {
            try await session.respond(to: "What is the weather in Oslo?", options: GenerationOptions(samplingMode: .greedy, toolCallingMode: .required))
        }
        while tool.started.current == 0 { try await Task.sleep(for: .milliseconds(5)) }
        task.cancel()
        await #expect(throws: CancellationError.self) { try await task.value }
        #expect(tool.cancelled.current == 1)
        try await Self.expectConsistentAndUsable(session, before: before)
    }

    struct Broken: Error {}

    struct ThrowingWeather: Tool {
        let name = "getWeather"
        let description = "Gets the weather in a city"
        @Generable struct Arguments {
            @Guide(description: "The city") var city: String
        }
        func call(arguments: Arguments) async throws -> String { throw Broken() }
    }

    /// A tool that throws: `ToolCallError` with the tool and the underlying error (Apple's rules),
    /// the transcript put back.
    @Test func aToolThatThrows() async throws {
        let session = try await Self.warmSession(tools: [ThrowingWeather()])
        let before = session.transcript
        do {
            _ = try await session.respond(to: "What is the weather in Oslo?", options: GenerationOptions(samplingMode: .greedy, toolCallingMode: .required))
            Issue.record("the tool's error was not thrown")
        } catch let error as LanguageModelSession.ToolCallError {
            #expect(error.tool.name == "getWeather")
            #expect(error.underlyingError is Broken)
        }
        try await Self.expectConsistentAndUsable(session, before: before)
    }

    @Generable
    struct Itinerary {
        @Guide(description: "Cities to visit") var cities: [String]
        @Guide(description: "A summary of the trip") var summary: String
    }

    /// A schema whose value cannot be finished in the token budget: a decoding failure, not a
    /// half-made value, whether the answer is awaited or streamed and collected.
    @Test(arguments: [false, true])
    func aGrammarThatCannotCompleteInTheBudget(streamed: Bool) async throws {
        let session = try await Self.warmSession()
        let before = session.transcript
        let prompt = "Plan a trip through Europe."
        let options = GenerationOptions(samplingMode: .greedy, maximumResponseTokens: 6)
        do {
            if streamed {
                _ = try await session.streamResponse(to: prompt, generating: Itinerary.self, options: options).collect()
            } else {
                _ = try await session.respond(to: prompt, generating: Itinerary.self, options: options)
            }
            Issue.record("a value was produced from 6 tokens")
        } catch LanguageModelSession.GenerationError.decodingFailure(let context) {
            #expect(!context.debugDescription.isEmpty)
        }
        try await Self.expectConsistentAndUsable(session, before: before)
    }

    /// The answer runs into the end of the context: `exceededContextWindowSize`, the transcript put
    /// back, and the next (shorter) request works on what the cache kept.
    @Test func contextOverflowMidAnswer() async throws {
        let small = SystemLanguageModel(contentsOf: TestModels.smolLM2, configuration: .init(contextSize: 96))
        let session = LanguageModelSession(model: small, instructions: "You are a concise assistant.")
        _ = try await session.respond(to: "Hi", options: GenerationOptions(samplingMode: .greedy, maximumResponseTokens: 8))
        let before = session.transcript
        do {
            _ = try await session.respond(to: "Write a long story about the sea.", options: GenerationOptions(samplingMode: .greedy))
            Issue.record("the answer fit in 96 tokens")
        } catch LanguageModelSession.GenerationError.exceededContextWindowSize {}
        #expect(session.transcript == before)
        let next = try await session.respond(to: "Name a planet.", options: GenerationOptions(samplingMode: .greedy, maximumResponseTokens: 8))
        let fresh = try await LanguageModelSession(model: small, transcript: before)
            .respond(to: "Name a planet.", options: GenerationOptions(samplingMode: .greedy, maximumResponseTokens: 8))
        #expect(next.content == fresh.content)
    }

    /// A model file deleted while it is mapped: the mapping keeps the data, and sessions go on.
    /// (A file truncated while mapped is another matter: reading a page past the new end raises
    /// SIGBUS, which a process cannot turn into an error and continue; see Docs/reliability.md.)
    @Test func aModelFileDeletedWhileMapped() async throws {
        let copy = FileManager.default.temporaryDirectory.appendingPathComponent("fault-\(UUID().uuidString).gguf")
        try FileManager.default.copyItem(at: TestModels.smolLM2, to: copy)
        let model = SystemLanguageModel(contentsOf: copy)
        let session = LanguageModelSession(model: model)
        let first = try await session.respond(to: "Name a fruit.", options: Self.short)
        try FileManager.default.removeItem(at: copy)
        let second = try await session.respond(to: "Name a color.", options: Self.short)
        #expect(!first.content.isEmpty && !second.content.isEmpty)
        // A new session on the same loaded model still works; a new load of the path fails cleanly.
        _ = try await LanguageModelSession(model: model).respond(to: "Hi", options: Self.short)
        let gone = SystemLanguageModel(contentsOf: copy, configuration: .init(contextSize: 512))
        #expect(gone.availability != .available)
    }
}
