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

    /// The session answers the next question as a control session does: one that had the same warm
    /// exchange (same tools, same greedy answer) and no failed request. The answers must agree on
    /// their first 16 characters (all of them when shorter). A cache still holding rows of the failed
    /// request where the transcript has others, or cut short of the kept exchange, or with its token
    /// list and rows out of step, shifts every later position and diverges from the first tokens.
    ///
    /// Not token for token: a failed request's prompt batch computed the rows of the next turn's
    /// opening tokens (`<|im_start|>user`, which every prompt shares), and a prompt batch of 24 tokens
    /// or more computes in the fast prefill arithmetic (``BatchArithmetic/fast``), an ulp or so from
    /// what the control's small batch computes for the same rows. A later near tie in greedy decoding
    /// can then fall the other way on one host and not another: on the AVX2 AMD host, SmolLM2 answers
    /// "The planet is called Kepler-62f." in the control and "The planet is called \"Europa\" …" after
    /// the grammar failure, while the Xeon's kernels gave both the same answer. (A *fresh* session
    /// prefilled with the transcript differs from both the same way: it computes the warm answer's
    /// rows in one prompt batch, where the sessions computed them in decode.)
    static func expectConsistentAndUsable(_ session: LanguageModelSession, before: Transcript, tools: [any Tool] = []) async throws {
        #expect(!session.isResponding)
        #expect(session.transcript == before)
        let options = GenerationOptions(samplingMode: .greedy, maximumResponseTokens: 16, toolCallingMode: .disallowed)
        let next = try await session.respond(to: "Name a planet.", options: options)
        let control = try await warmSession(tools: tools)
        #expect(control.transcript.count == before.count)
        let expected = try await control.respond(to: "Name a planet.", options: options)
        let agreed = zip(next.content, expected.content).prefix { $0 == $1 }.count
        #expect(agreed >= min(16, expected.content.count), "\(next.content) / \(expected.content)")
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
        try await Self.expectConsistentAndUsable(session, before: before)
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
        try await Self.expectConsistentAndUsable(session, before: before, tools: [SlowWeather()])
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
        try await Self.expectConsistentAndUsable(session, before: before, tools: [ThrowingWeather()])
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
