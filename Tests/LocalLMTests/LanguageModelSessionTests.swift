import Foundation
import Observation
import LocalLM
import Testing

@Suite("LanguageModelSession on a scripted model")
struct LanguageModelSessionTests {
    @Test func respondRecordsInstructionsPromptAndResponse() async throws {
        let model = ScriptedModel([.text(["Hello", ", ", "world"])])
        let session = LanguageModelSession(model: model, instructions: "Be brief.")
        let response = try await session.respond(to: "Greet me")
        #expect(response.content == "Hello, world")
        #expect(response.rawContent == GeneratedContent("Hello, world"))
        #expect(response.usage.outputTokenCount == 3)
        #expect(response.usage.cachedInputTokenCount == 5)

        let entries = Array(session.transcript)
        #expect(entries.count == 3)
        guard case .instructions(let instructions) = entries[0], case .prompt(let prompt) = entries[1],
            case .response(let answer) = entries[2]
        else {
            Issue.record("unexpected entries \(entries)")
            return
        }
        #expect(instructions.segments.map(\.description) == ["Be brief."])
        #expect(prompt.segments.map(\.description) == ["Greet me"])
        #expect(answer.segments.map(\.description) == ["Hello, world"])
        #expect(Array(response.transcriptEntries) == Array(entries[1...]))
    }

    @Test func multiTurnSendsTheWholeHistory() async throws {
        let model = ScriptedModel([.text(["First"]), .text(["Second"])])
        let session = LanguageModelSession(model: model)
        try await session.respond(to: "One")
        try await session.respond(to: "Two", options: GenerationOptions(samplingMode: .greedy, maximumResponseTokens: 8))
        let requests = model.script.requests
        #expect(requests.count == 2)
        #expect(requests[1].transcript.map(\.description) == ["Prompt: One", "Response: First", "Prompt: Two"])
        #expect(requests[1].generationOptions.samplingMode == .greedy)
        #expect(requests[1].generationOptions.maximumResponseTokens == 8)
    }

    @Test func promptBuilderAndInstructionsBuilder() async throws {
        let model = ScriptedModel([.text(["ok"])])
        let includeExtra = true
        let session = LanguageModelSession(model: model) {
            "You are a helpful assistant."
            if includeExtra { "Respond naturally." }
        }
        try await session.respond {
            "USER MESSAGE START"
            for word in ["a", "b"] { word }
            "USER MESSAGE END"
        }
        let transcript = model.script.requests[0].transcript
        #expect(transcript[0].description == "Instructions: You are a helpful assistant.\nRespond naturally.")
        #expect(transcript[1].description == "Prompt: USER MESSAGE START\na\nb\nUSER MESSAGE END")
    }

    @Test func secondRequestWhileRespondingIsAnErrorNotACrash() async throws {
        let model = ScriptedModel([.gated("done"), .text(["again"])])
        let session = LanguageModelSession(model: model)
        let first = Task { try await session.respond(to: "first") }
        while !session.isResponding { await Task.yield() }

        await #expect {
            try await session.respond(to: "second")
        } throws: { error in
            guard case LanguageModelSession.GenerationError.concurrentRequests = error else { return false }
            return true
        }
        #expect(session.isResponding)
        model.script.release()
        #expect(try await first.value.content == "done")
        #expect(!session.isResponding)
        // The rejected request left no trace, and the session still works.
        #expect(session.transcript.map(\.description) == ["Prompt: first", "Response: done"])
        #expect(try await session.respond(to: "third").content == "again")
    }

    @Test func contextOverflowRevertsTheTranscriptByDefault() async throws {
        let overflow = LanguageModelError.contextSizeExceeded(
            .init(contextSize: 100, tokenCount: 140, debugDescription: "140 tokens do not fit in 100"))
        let model = ScriptedModel([.text(["fine"]), .fail(partial: ["par"], error: overflow), .text(["after"])])
        let session = LanguageModelSession(model: model)
        try await session.respond(to: "one")
        let before = session.transcript

        await #expect {
            try await session.respond(to: "a very long prompt")
        } throws: { error in
            guard case LanguageModelSession.GenerationError.exceededContextWindowSize(let context) = error else { return false }
            return context.debugDescription.contains("140") && (error as? LocalizedError)?.errorDescription != nil
        }
        #expect(session.transcript == before)
        #expect(!session.isResponding)
        // The next request sees the history without the failed request.
        try await session.respond(to: "two")
        #expect(model.script.requests[2].transcript.map(\.description) == ["Prompt: one", "Response: fine", "Prompt: two"])
    }

    @Test func preservePolicyKeepsThePartialResponse() async throws {
        let model = ScriptedModel([.fail(partial: ["Half an ", "answer"], error: .decodingFailure(.init(debugDescription: "bad")))])
        let session = LanguageModelSession(model: model)
        session.transcriptErrorHandlingPolicy = .preserveTranscript
        await #expect(throws: LanguageModelSession.GenerationError.self) {
            try await session.respond(to: "question")
        }
        #expect(session.transcript.map(\.description) == ["Prompt: question", "Response: Half an answer"])
    }

    @Test func cancellationStopsPromptlyAndLeavesTheSessionUsable() async throws {
        let slow = Array(repeating: "tok ", count: 1000)
        let model = ScriptedModel([.text(slow, pause: .milliseconds(5)), .text(["quick"])])
        let session = LanguageModelSession(model: model)
        let task = Task { try await session.respond(to: "long story") }
        try await Task.sleep(for: .milliseconds(50))
        let cancelled = ContinuousClock.now
        task.cancel()
        await #expect(throws: CancellationError.self) { try await task.value }
        #expect(ContinuousClock.now - cancelled < .milliseconds(500))
        #expect(!session.isResponding)
        #expect(session.transcript.isEmpty)
        #expect(try await session.respond(to: "short").content == "quick")
    }

    @Test func streamingYieldsCumulativeSnapshotsThenCollects() async throws {
        let model = ScriptedModel([.text(["The ", "quick ", "fox"]), .text(["x", "y"])])
        let session = LanguageModelSession(model: model)
        var snapshots: [String] = []
        for try await snapshot in session.streamResponse(to: "Tell me") {
            snapshots.append(snapshot.content)
        }
        #expect(snapshots == ["The ", "The quick ", "The quick fox", "The quick fox"])
        let response = try await session.streamResponse(to: "More").collect()
        #expect(response.content == "xy")
        #expect(session.transcript.count == 4)
    }

    @Generable struct Pair {
        var name: String
        var count: Int
    }

    /// A complete value that does not make the requested type (a model that ignored the schema):
    /// `respond` and `collect()` both fail with `decodingFailure` before the value enters the
    /// transcript, which stays as it was.
    @Test func aValueThatDoesNotMakeTheTypeLeavesTheTranscript() async throws {
        let wrong = #"{"name": "a", "count": "many"}"#
        let model = ScriptedModel([.text([wrong]), .text([wrong]), .text([#"{"name": "b", "count": 2}"#])])
        let session = LanguageModelSession(model: model)
        do {
            _ = try await session.respond(to: "one", generating: Pair.self)
            Issue.record("respond decoded a string as an Int")
        } catch LanguageModelSession.GenerationError.decodingFailure {}
        #expect(session.transcript.isEmpty)
        do {
            _ = try await session.streamResponse(to: "two", generating: Pair.self).collect()
            Issue.record("collect decoded a string as an Int")
        } catch LanguageModelSession.GenerationError.decodingFailure {}
        #expect(session.transcript.isEmpty)
        #expect(try await session.respond(to: "three", generating: Pair.self).content.count == 2)
        #expect(session.transcript.count == 2)
    }

    @Test func observationReportsIsRespondingChanges() async throws {
        let model = ScriptedModel([.text(["ok"])])
        let session = LanguageModelSession(model: model)
        let changed = Locked(false)
        withObservationTracking {
            _ = session.isResponding
        } onChange: {
            changed.set(true)
        }
        try await session.respond(to: "hi")
        #expect(changed.value)
    }
}

/// A tiny lock for test flags.
final class Locked<Value: Sendable>: @unchecked Sendable {
    private var stored: Value
    private let lock = NSLock()
    init(_ value: Value) { stored = value }
    var value: Value { lock.withLock { stored } }
    func set(_ value: Value) { lock.withLock { stored = value } }
}
