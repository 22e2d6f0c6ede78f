import Foundation
@testable import LocalLM
import LocalLMEngine
import LocalLMTestSupport
import Testing

extension SessionPropertyValues {
    @SessionPropertyEntry
    var answeredTurns: Int = 0
}

/// Context management with a dynamic profile on the real Qwen2.5-Coder-0.5B-Instruct: a 20-turn
/// conversation on a 2,048-token context, compacted every 5 turns from `.onResponse`, never runs
/// out of context; the cache is reused up to the first token the compaction changed.
@Suite("Context management on Qwen2.5-Coder-0.5B", .serialized)
struct ContextManagementTests {
    static let questions = [
        "What is a linked list?", "How do I reverse a string in Python?", "What does HTTP 404 mean?",
        "Name a sorting algorithm that runs in n log n time.", "What is a hash map?", "What is recursion?",
        "How do I read a file in Swift?", "What is a race condition?", "What does git rebase do?",
        "What is the difference between a process and a thread?", "What is Big O notation?",
        "How do I declare a constant in Swift?", "What is a REST API?", "What is a mutex?",
        "How does binary search work?", "What is JSON?", "What is a closure?", "What does SQL JOIN do?",
        "What is a unit test?", "What is a compiler?",
    ]

    static func model() throws -> SystemLanguageModel {
        SystemLanguageModel(contentsOf: try TestModels.require(TestModels.qwen05), configuration: .init(contextSize: 2048))
    }

    static let options = GenerationOptions(samplingMode: .greedy, maximumResponseTokens: 128)
    static let instructions = "You are a programming assistant. Answer in a paragraph, with a short example."

    /// Prompt tokens of the whole conversation, uncompacted, as the engine renders it.
    static func tokenCount(of transcript: Transcript, on model: SystemLanguageModel) throws -> Int {
        let engine = try EngineRegistry.shared.engine(for: model.engineKey)
        return engine.promptTokens(rendered: try engine.renderer.render(transcript.chatMessages())).count
    }

    /// Every fifth response, keep only the last exchange (prompt and response).
    struct TrimmingProfile: LanguageModelSession.DynamicProfile {
        @SessionProperty(\.history) var history
        @SessionProperty(\.answeredTurns) var turns

        var body: some LanguageModelSession.DynamicProfile {
            Profile {
                ContextManagementTests.instructions
            }
            .onResponse {
                turns += 1
                if turns % 5 == 0 {
                    history = Array(history.suffix(2))
                }
            }
        }
    }

    struct Turn {
        var input: Int
        var cached: Int
        var output: Int
        var prefilled: Int { input - cached }
    }

    @Test func twentyTurnsCompactedEveryFiveStayInsideTheContext() async throws {
        let model = try Self.model()
        let session = LanguageModelSession(model: model, profile: TrimmingProfile())
        var turns: [Turn] = []
        var whole: [Transcript.Entry] = [.instructions(Transcript.Instructions(segments: [.text(.init(content: Self.instructions))], toolDefinitions: []))]
        for question in Self.questions {
            // Throws contextSizeExceeded if the conversation outgrows the context.
            let response = try await session.respond(to: question, options: Self.options)
            turns.append(Turn(input: response.usage.inputTokenCount, cached: response.usage.cachedInputTokenCount, output: response.usage.outputTokenCount))
            whole += [
                .prompt(Transcript.Prompt(segments: [.text(.init(content: question))])),
                .response(Transcript.Response(assetIDs: [], segments: [.text(.init(content: response.content))])),
            ]
        }
        // Uncompacted, the same conversation would not fit.
        let uncompacted = try Self.tokenCount(of: Transcript(entries: whole), on: model)
        print("the whole conversation, uncompacted: \(uncompacted) tokens; the context holds 2048")
        #expect(uncompacted > 2048)
        #expect(session.properties.answeredTurns == 20)
        if case .prompt(let prompt) = session.properties.history.first, case .response(let answer) = session.properties.history.last {
            print("last exchange kept: Q: \(prompt.segments.renderedText) A: \(answer.segments.renderedText)")
        }
        print("turn\tprompt tokens\tcached\tprefilled\toutput")
        for (index, turn) in turns.enumerated() {
            print("\(index + 1)\t\(turn.input)\t\(turn.cached)\t\(turn.prefilled)\t\(turn.output)")
        }
        let withReuse = turns.map(\.prefilled).reduce(0, +)
        let withoutReuse = turns.map(\.input).reduce(0, +)
        print("prefilled over 20 turns: \(withReuse) tokens with prefix reuse, \(withoutReuse) without")

        for (index, turn) in turns.enumerated() {
            #expect(turn.input + turn.output <= 2048, "turn \(index + 1)")
            guard index > 0 else { continue }
            let previous = turns[index - 1]
            if index % 5 == 0 {
                // Right after a compaction: the instructions are reused, the cut history is not.
                #expect(turn.cached > 0, "turn \(index + 1)")
                #expect(turn.cached < previous.input, "turn \(index + 1)")
            } else {
                // Otherwise the whole previous prompt is still in the cache.
                #expect(turn.cached >= previous.input, "turn \(index + 1)")
            }
        }
        #expect(withReuse * 2 < withoutReuse)
    }

    /// Every fifth response, a second session summarizes the conversation so far, and the history
    /// becomes that summary plus the last exchange.
    struct SummarizingProfile: LanguageModelSession.DynamicProfile {
        @SessionProperty(\.history) var history
        @SessionProperty(\.answeredTurns) var turns
        let summarizer: SystemLanguageModel

        var body: some LanguageModelSession.DynamicProfile {
            Profile {
                ContextManagementTests.instructions
            }
            .onResponse {
                turns += 1
                guard turns % 5 == 0 else { return }
                let old = history.dropLast(2).compactMap { entry -> String? in
                    switch entry {
                    case .prompt(let prompt): "Question: " + prompt.segments.renderedText
                    case .response(let response): "Answer: " + response.segments.renderedText
                    default: nil
                    }
                }
                let summary = try await LanguageModelSession(model: summarizer, instructions: "You are a helpful assistant.")
                    .respond(
                        to: "Summarize this conversation in two sentences.\n\n" + old.joined(separator: "\n"),
                        options: GenerationOptions(samplingMode: .greedy, maximumResponseTokens: 80)
                    )
                    .content
                let note = Transcript.Prompt(segments: [.text(.init(content: "Summary of our conversation so far: " + summary))])
                history = [.prompt(note)] + Array(history.suffix(2))
            }
        }
    }

    @Test func aSummarizingProfileKeepsASummaryAndTheLastExchange() async throws {
        let model = try Self.model()
        let session = LanguageModelSession(model: model, profile: SummarizingProfile(summarizer: model))
        var inputs: [Int] = []
        for question in Self.questions.prefix(10) {
            let response = try await session.respond(to: question, options: Self.options)
            inputs.append(response.usage.inputTokenCount)
        }
        let history = session.properties.history
        // Summary, last question, last answer.
        #expect(history.count == 3)
        guard case .prompt(let note) = history.first else {
            Issue.record("the summary is not first")
            return
        }
        print("summary kept in the history after 10 turns: \(note.segments.renderedText)")
        print("prompt tokens per turn: \(inputs)")
        #expect(note.segments.renderedText.hasPrefix("Summary of our conversation so far: "))
        // The summary is about the conversation: it names one of the first five topics.
        let topics = ["linked list", "string", "404", "sort", "hash"]
        #expect(topics.contains { note.segments.renderedText.localizedCaseInsensitiveContains($0) })
        #expect(inputs[5] < inputs[4])
    }
}

/// The cache after a history edit holds exactly what a fresh prefill of the edited transcript
/// would: a session that trimmed its history (and reused its cache up to the cut) answers the next
/// question with the same greedy tokens as a new session given the trimmed transcript.
@Suite("KV cache after history edits (SmolLM2)", .serialized)
struct HistoryEditCacheTests {
    static let options = GenerationOptions(samplingMode: .greedy, maximumResponseTokens: 32)

    @Test(arguments: [1, 2, 3])
    func aTrimmedSessionAnswersAsAFreshOne(kept: Int) async throws {
        let model = SystemLanguageModel(contentsOf: try TestModels.require(TestModels.smolLM2))
        let session = LanguageModelSession(model: model, instructions: "You are a concise assistant.")
        _ = try await session.respond(to: "Name a fruit.", options: Self.options)
        _ = try await session.respond(to: "Name a color.", options: Self.options)
        session.properties.history = Array(session.properties.history.suffix(kept))
        let trimmed = session.transcript
        let reused = try await session.respond(to: "Name an animal.", options: Self.options)
        #expect(reused.usage.cachedInputTokenCount > 0)

        let fresh = LanguageModelSession(model: model, transcript: trimmed)
        let prefilled = try await fresh.respond(to: "Name an animal.", options: Self.options)
        #expect(prefilled.usage.cachedInputTokenCount == 0)
        #expect(reused.content == prefilled.content)
    }
}
