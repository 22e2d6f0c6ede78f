import Foundation
import LocalLM
import Testing
import LocalLMSync

extension SessionPropertyValues {
    @SessionPropertyEntry
    var answeredCount: Int = 0
}

/// Session state (Apple's 27 API): `session.properties`, `SessionPropertyValues.history`, the
/// `.onResponse` and `.onPrompt` modifiers, and the transcript a model sees after history edits.
/// The scripted model records every request, so each test checks what the model was shown.
@Suite("Session properties and history")
struct SessionPropertiesTests {
    /// Keeps the last two history entries after every response, and counts responses.
    struct TrimmingProfile: LanguageModelSession.DynamicProfile {
        @SessionProperty(\.history) var history
        @SessionProperty(\.answeredCount) var answered

        var body: some LanguageModelSession.DynamicProfile {
            Profile {
                "You are terse."
            }
            .onResponse {
                answered += 1
                if history.count > 2 {
                    history = Array(history.suffix(2))
                }
            }
        }
    }

    private static func prompts(_ transcript: Transcript) -> [String] {
        transcript.compactMap { entry in
            if case .prompt(let prompt) = entry { prompt.segments.renderedText } else { nil }
        }
    }

    @Test func onResponseTrimsHistoryAndTheNextRequestSeesTheTrimmedTranscript() async throws {
        let model = ScriptedModel([.text(["one"]), .text(["two"]), .text(["three"])])
        let session = LanguageModelSession(model: model, profile: TrimmingProfile())
        _ = try await session.respond(to: "a")
        _ = try await session.respond(to: "b")
        let third = try await session.respond(to: "c")
        #expect(third.content == "three")

        // Read from outside the session, as Apple's entries are.
        #expect(session.properties.answeredCount == 3)
        // Instructions, then the last prompt and response.
        #expect(session.transcript.count == 3)
        guard case .instructions = session.transcript.first else {
            Issue.record("the instructions entry was not kept")
            return
        }
        #expect(session.properties.history.count == 2)
        #expect(Self.prompts(session.transcript) == ["c"])

        // The third request was made on the history the second response's hook left: b, two, c.
        let requests = model.script.requests
        #expect(requests.count == 3)
        #expect(Self.prompts(requests[2].transcript) == ["b", "c"])
        #expect(requests[2].transcript.count == 4)
    }

    @Test func historyWrittenBetweenRequestsReplacesTheConversationButKeepsInstructions() async throws {
        let model = ScriptedModel([.text(["one"]), .text(["two"])])
        let session = LanguageModelSession(model: model, instructions: "Be brief.")
        _ = try await session.respond(to: "first")
        #expect(session.properties.history.count == 2)
        session.properties.history = []
        _ = try await session.respond(to: "second")
        let shown = model.script.requests[1].transcript
        #expect(shown.count == 2)
        guard case .instructions(let instructions) = shown.first else {
            Issue.record("the instructions were dropped")
            return
        }
        #expect(instructions.segments.renderedText == "Be brief.")
        #expect(Self.prompts(shown) == ["second"])
    }

    @Test func transcriptCanBeReplacedBetweenRequests() async throws {
        let model = ScriptedModel([.text(["one"]), .text(["two"])])
        let session = LanguageModelSession(model: model)
        _ = try await session.respond(to: "first")
        let kept = session.transcript
        _ = try await session.respond(to: "second")
        session.transcript = kept
        #expect(session.transcript == kept)
        #expect(Self.prompts(session.transcript) == ["first"])
    }

    /// A write from outside the session while it responds is refused; the request's result stands.
    @Test func historyWrittenFromOutsideDuringARequestIsRefused() async throws {
        let model = ScriptedModel([.gated("late")])
        let session = LanguageModelSession(model: model)
        let task = Task { try await session.respond(to: "wait") }
        while !session.isResponding { await Task.yield() }
        session.properties.history = []
        session.transcript = Transcript()
        #expect(Self.prompts(session.transcript) == ["wait"])
        model.script.release()
        _ = try await task.value
        #expect(session.properties.history.count == 2)
    }

    /// A tool that compacts the history in the middle of a request: the next round is rendered from
    /// the compacted history plus the calls and outputs that follow, and the request finishes.
    struct Forgetful: Tool {
        let name = "forget"
        let description = "Forgets the conversation so far"
        @Generable struct Arguments {
            var reason: String
        }
        @SessionProperty(\.history) var history

        func call(arguments: Arguments) async throws -> String {
            history = Array(history.suffix(1))
            return "forgotten"
        }
    }

    @Test func aToolCanTrimHistoryDuringTheRequest() async throws {
        let model = ScriptedModel([
            .text(["hello"]),
            .toolCalls([(name: "forget", arguments: #"{"reason": "asked"}"#)]),
            .text(["done"]),
        ])
        let session = LanguageModelSession(model: model, tools: [Forgetful()])
        _ = try await session.respond(to: "hi")
        let response = try await session.respond(to: "forget it")
        #expect(response.content == "done")
        // The second round saw: instructions (tools), the tool calls entry the tool kept, its output.
        let second = model.script.requests[2].transcript
        #expect(Self.prompts(second).isEmpty)
        #expect(second.count == 3)
        // The request's own entries are what is left of it.
        #expect(response.transcriptEntries.count == 3)
        #expect(session.transcript.count == 4)
    }

    struct Failing: Error {}

    struct ThrowingOnResponse: LanguageModelSession.DynamicProfile {
        var body: some LanguageModelSession.DynamicProfile {
            Profile { "x" }
                .onResponse { _ in throw Failing() }
        }
    }

    @Test func anOnResponseErrorIsWhatRespondThrowsAndTheTranscriptIsReverted() async throws {
        let model = ScriptedModel([.text(["one"])])
        let session = LanguageModelSession(model: model, profile: ThrowingOnResponse())
        await #expect(throws: Failing.self) { _ = try await session.respond(to: "a") }
        #expect(Self.prompts(session.transcript).isEmpty)
        #expect(!session.isResponding)
    }

    final class Counter: Sendable {
        let value = SanitizableMutex(0)
    }

    @Test func onPromptRunsOncePerRequestWhateverTheRounds() async throws {
        let counter = Counter()
        let model = ScriptedModel([
            .toolCalls([(name: "forget", arguments: #"{"reason": "asked"}"#)]),
            .text(["done"]),
            .text(["again"]),
        ])
        let session = LanguageModelSession(model: model, profile: PromptCounting(counter: counter))
        _ = try await session.respond(to: "one")
        _ = try await session.respond(to: "two")
        #expect(model.script.requests.count == 3)
        #expect(counter.value.withLock { $0 } == 2)
    }

    struct PromptCounting: LanguageModelSession.DynamicProfile {
        let counter: Counter
        var body: some LanguageModelSession.DynamicProfile {
            Profile {
                "x"
                Forgetful()
            }
            .onPrompt { counter.value.withLock { $0 += 1 } }
        }
    }

    /// A `@SessionProperty` outside any session keeps its own value.
    @Test func aDetachedPropertyKeepsItsOwnValue() {
        let property = LanguageModelSession.SessionProperty(\.answeredCount)
        property.wrappedValue = 5
        #expect(property.wrappedValue == 5)
        let history = LanguageModelSession.SessionProperty(\.history)
        #expect(history.wrappedValue.isEmpty)
    }
}

/// `historyTransform`: the model is shown a transformed history; the transcript keeps everything.
@Suite("History transform")
struct HistoryTransformTests {
    struct LastTwo: LanguageModelSession.DynamicProfile {
        var body: some LanguageModelSession.DynamicProfile {
            Profile { "Be brief." }
                .historyTransform { Array($0.suffix(2)) }
        }
    }

    @Test func theModelSeesTheTransformAndTheTranscriptKeepsEverything() async throws {
        let model = ScriptedModel([.text(["one"]), .text(["two"]), .text(["three"])])
        let session = LanguageModelSession(model: model, profile: LastTwo())
        for prompt in ["a", "b", "c"] { _ = try await session.respond(to: prompt) }
        #expect(session.transcript.count == 7)
        let shown = model.script.requests[2].transcript
        // Instructions, then the last two history entries: b's response "two" and the prompt "c".
        #expect(shown.count == 3)
        guard case .instructions = shown.first, case .prompt(let prompt) = shown.last else {
            Issue.record("unexpected shown transcript \(shown)")
            return
        }
        #expect(prompt.segments.renderedText == "c")
    }
}
