import Foundation
import LocalLM
import LocalLMEngine
import LocalLMGGUF
import LocalLMJinja
import LocalLMTestSupport
import Testing
import LocalLMSync

/// Reasoning on a model whose chat template has a thinking mode: Qwen3's real template on a tiny
/// random-weight qwen3 that writes `<think>…</think>` and then an answer
/// (`scripts/make-tiny-thinking-model.py`). The references are Python's jinja2 (rendered prompts),
/// llama.cpp (greedy text) and the template's own rule for splitting reasoning from content.
@Suite("Reasoning (Qwen3 template, tiny model)", .serialized)
struct ReasoningTests {
    struct Golden: Decodable {
        let maxTokens: Int
        let system: String
        let prompt: String
        let renderedThinkingDefault: String
        let renderedThinkingOff: String
        let renderedThinkingOn: String
        let greedyText: String
        let reasoning: String
        let answer: String
        let secondPrompt: String
        let renderedSecondTurn: String
    }

    static let golden: Golden = {
        do {
            return try JSONDecoder().decode(Golden.self, from: Fixtures.data("runtime/tiny-qwen3-thinking.json"))
        } catch {
            fatalError("tiny-qwen3-thinking.json: \(error)")
        }
    }()

    static let model = SystemLanguageModel(
        contentsOf: Fixtures.url("runtime/tiny-qwen3-thinking.gguf"), configuration: .init(contextSize: 512))

    static var options: GenerationOptions { GenerationOptions(samplingMode: .greedy, maximumResponseTokens: golden.maxTokens) }

    static func renderer() throws -> ChatRenderer {
        ChatRenderer(try ModelChatTemplate(gguf: try GGUFFile(contentsOf: Fixtures.url("runtime/tiny-qwen3-thinking.gguf"))))
    }

    struct Thinking: LanguageModelSession.DynamicProfile {
        let level: ContextOptions.ReasoningLevel?
        var body: some LanguageModelSession.DynamicProfile {
            Profile { ReasoningTests.golden.system }
                .reasoningLevel(level)
        }
    }

    final class Seen: Sendable {
        let reasoning = SanitizableMutex<[String]>([])
    }

    struct Observing: LanguageModelSession.DynamicProfile {
        let seen: Seen
        var body: some LanguageModelSession.DynamicProfile {
            Profile { ReasoningTests.golden.system }
                .onReasoning { reasoning in seen.reasoning.withLock { $0.append(reasoning.segments.renderedText) } }
        }
    }

    /// `onReasoning` runs with the reasoning the model produced.
    @Test func onReasoningSeesTheReasoning() async throws {
        let seen = Seen()
        let session = LanguageModelSession(model: Self.model, profile: Observing(seen: seen))
        _ = try await session.respond(to: Self.golden.prompt, options: Self.options)
        #expect(seen.reasoning.withLock { $0 } == [Self.golden.reasoning])
    }

    @Test func theModelDeclaresReasoning() {
        #expect(Self.model.capabilities.contains(.reasoning))
        #expect(Self.model.capabilities.contains(.toolCalling))
        #expect(Self.model.capabilities.contains(.guidedGeneration))
    }

    /// The reply is split as the template splits an assistant message: reasoning in its own
    /// transcript entry, the answer as the response, both equal to llama.cpp's greedy text cut by
    /// the template's rule.
    @Test(arguments: [nil, ContextOptions.ReasoningLevel.deep])
    func reasoningIsKeptApartFromTheAnswer(level: ContextOptions.ReasoningLevel?) async throws {
        let golden = Self.golden
        let session = LanguageModelSession(model: Self.model, profile: Thinking(level: level))
        let response = try await session.respond(to: golden.prompt, options: Self.options)
        #expect(response.content == golden.answer)
        let reasoning = session.transcript.compactMap { entry -> String? in
            if case .reasoning(let reasoning) = entry { reasoning.segments.renderedText } else { nil }
        }
        #expect(reasoning == [golden.reasoning])
        // Entries in order: instructions, prompt, reasoning, response.
        let kinds = session.transcript.map { entry -> String in
            switch entry {
            case .instructions: "instructions"
            case .prompt: "prompt"
            case .reasoning: "reasoning"
            case .response: "response"
            case .toolCalls: "toolCalls"
            case .toolOutput: "toolOutput"
            }
        }
        #expect(kinds == ["instructions", "prompt", "reasoning", "response"])
    }

    /// Streaming gives the answer only; the reasoning does not leak into the snapshots.
    @Test func streamedSnapshotsHoldOnlyTheAnswer() async throws {
        let golden = Self.golden
        let session = LanguageModelSession(model: Self.model, profile: Thinking(level: nil))
        var last = ""
        for try await snapshot in session.streamResponse(to: golden.prompt, options: Self.options) {
            #expect(!snapshot.content.contains("<think>"))
            #expect(!snapshot.content.contains("</think>"))
            last = snapshot.content
        }
        #expect(last == golden.answer)
    }

    /// The thinking switch reaches the template: the engine's prompts equal jinja2's renders with
    /// `enable_thinking` undefined, true and false.
    @Test func theReasoningLevelSetsTheTemplatesSwitch() throws {
        let golden = Self.golden
        let renderer = try Self.renderer()
        let messages = [ChatMessage(role: .system, content: golden.system), ChatMessage(role: .user, content: golden.prompt)]
        #expect(try renderer.render(messages) == golden.renderedThinkingDefault)
        #expect(try renderer.render(messages, enableThinking: true) == golden.renderedThinkingOn)
        #expect(try renderer.render(messages, enableThinking: false) == golden.renderedThinkingOff)
        #expect(renderer.reasoning?.switchable == true)
    }

    /// `.custom("none")` turns thinking off: the template closes an empty reasoning block in the
    /// prompt, and no reasoning entry is made.
    @Test func reasoningCanBeTurnedOff() async throws {
        let golden = Self.golden
        let session = LanguageModelSession(model: Self.model, profile: Thinking(level: .custom("none")))
        _ = try await session.respond(to: golden.prompt, options: Self.options)
        #expect(!session.transcript.contains { if case .reasoning = $0 { true } else { false } })
    }

    /// The next turn carries the reasoning as `reasoning_content`, which the template places or
    /// drops as it says (Qwen3 drops it before the last question): the prompt equals jinja2's.
    @Test func theNextTurnRendersTheHistoryAsTheTemplateSays() async throws {
        let golden = Self.golden
        let session = LanguageModelSession(model: Self.model, profile: Thinking(level: nil))
        _ = try await session.respond(to: golden.prompt, options: Self.options)
        let transcript = Transcript(
            entries: session.transcript + [.prompt(Transcript.Prompt(segments: [.text(.init(content: golden.secondPrompt))]))])
        #expect(try Self.renderer().render(transcript.chatMessages()) == golden.renderedSecondTurn)
    }
}

/// The splitter on its own: every way of cutting the golden reply into pieces gives the same two
/// parts as the template's rule.
@Suite("Reasoning splitter")
struct ReasoningSplitterTests {
    static let format = ReasoningFormat(templateSource: "{% if enable_thinking %}<think></think>{% endif %}")!

    static func split(_ pieces: [String], startsInside: Bool = false) -> (reasoning: String, answer: String) {
        var splitter = ReasoningSplitter(format: format, startsInside: startsInside)
        var reasoning = ""
        var answer = ""
        for piece in pieces {
            let parts = splitter.append(piece)
            reasoning += parts.reasoning
            answer += parts.answer
        }
        let last = splitter.finish()
        return (reasoning + last.reasoning, answer + last.answer)
    }

    /// The template's rule (`content.split('</think>')`), for texts that open with `<think>`.
    static func templateRule(_ text: String) -> (reasoning: String, answer: String) {
        let parts = text.components(separatedBy: "</think>")
        let answer = String(parts.last!.drop { $0 == "\n" })
        var head = Substring(parts.first!)
        while head.last == "\n" { head = head.dropLast() }
        let reasoning = String(head.components(separatedBy: "<think>").last!.drop { $0 == "\n" })
        return (reasoning, answer)
    }

    @Test(arguments: [
        "<think>\nLet me see.\n</think>\n\nIt is 4.",
        "<think>short</think>answer",
        "<think>\n\nline one\nline two\n\n</think>\n\n\nthe end\n",
        "<think></think>only answer",
        ReasoningTests.golden.greedyText,
    ])
    func everyCutGivesTheTemplatesSplit(text: String) {
        let expected = Self.templateRule(text)
        let characters = Array(text)
        for cut in 0...characters.count {
            let got = Self.split([String(characters[..<cut]), String(characters[cut...])])
            #expect(got.reasoning == expected.reasoning, "cut at \(cut)")
            #expect(got.answer == expected.answer, "cut at \(cut)")
        }
        let byCharacter = Self.split(characters.map { String($0) })
        #expect(byCharacter.reasoning == expected.reasoning)
        #expect(byCharacter.answer == expected.answer)
    }

    @Test func anAnswerWithoutReasoningIsAllAnswer() {
        #expect(Self.split(["It ", "is 4."]) == ("", "It is 4."))
        #expect(Self.split(["<tool", "_call>{}"]) == ("", "<tool_call>{}"))
    }

    @Test func reasoningThatNeverClosesStaysReasoning() {
        #expect(Self.split(["<think>\nstill ", "thinking\n"]) == ("still thinking", ""))
    }

    @Test func aPromptEndingInTheOpeningMarkerStartsInside() {
        #expect(Self.format.startsInside(prompt: "<|im_start|>assistant\n<think>\n"))
        #expect(!Self.format.startsInside(prompt: "<|im_start|>assistant\n<think>\n\n</think>\n\n"))
        #expect(Self.split(["thought</think>\n\nsaid"], startsInside: true) == ("thought", "said"))
    }

    @Test func templatesWithoutMarkersHaveNoReasoningFormat() {
        #expect(ReasoningFormat(templateSource: "{{ messages }}") == nil)
        #expect(ReasoningFormat(templateSource: "</think>")?.switchable == false)
    }
}
