import Foundation
import LocalLM
import LocalLMTestSupport
import Testing

/// Tool calling on the real Qwen2.5-Coder-0.5B-Instruct with its own chat template (Hermes
/// `<tool_call>` format). Greedy, so each case is one fixed run of the model.
@Suite("Tool calls on Qwen2.5-Coder-0.5B", .serialized)
struct QwenToolCallingTests {
    static func model() throws -> SystemLanguageModel {
        SystemLanguageModel(contentsOf: try TestModels.require(TestModels.qwen05))
    }

    /// A question that needs three calls. Greedy Qwen 0.5B, prompted exactly as llama.cpp prompts
    /// it (the tool's schema as a caller writes it), writes one call per turn: Boston, in a
    /// ```` ```json ```` fence, then — shown its output — Boston again, bare (llama.cpp's greedy run of
    /// the same prompts writes the same, and goes on repeating it). The repeat ends the loop
    /// (`endsRepeatedToolCalls`): the request finishes after one round of calls, with an answer
    /// asked for with calls disallowed. (Earlier, shown the schema's encoding with `x-order`, it
    /// wrote several calls in its second turn; Docs/tools.md.)
    @Test func threeCitiesAreCalledOneCallPerTurn() async throws {
        let log = CallLog()
        let session = LanguageModelSession(model: try Self.model(), tools: [WeatherTool(log: log)])
        session.maximumToolRounds = 2
        let response = try await session.respond(
            to: "What is the weather in Boston, Wichita and Pittsburgh?",
            options: GenerationOptions(samplingMode: .greedy, maximumResponseTokens: 120))
        print("Qwen 0.5B, three cities: calls \(log.order), answer \(response.content.debugDescription)")
        #expect(log.order == ["Boston"])
        let rounds = response.transcriptEntries.filter { if case .toolCalls = $0 { true } else { false } }
        #expect(rounds.count == 1)
        #expect(!response.content.contains("<tool_call>"))
    }

    /// The same question with the repeat policy off: the model calls Boston again in the second
    /// round, and the round bound stops the request.
    @Test func withoutTheRepeatPolicyTheBoundStopsTheLoop() async throws {
        let log = CallLog()
        let session = LanguageModelSession(model: try Self.model(), tools: [WeatherTool(log: log)])
        session.maximumToolRounds = 2
        session.endsRepeatedToolCalls = false
        await #expect(throws: LanguageModelSession.ToolCallLimitExceeded.self) {
            _ = try await session.respond(
                to: "What is the weather in Boston, Wichita and Pittsburgh?",
                options: GenerationOptions(samplingMode: .greedy, maximumResponseTokens: 120))
        }
        #expect(log.order == ["Boston", "Boston"])
    }

    /// With tools disallowed, no call text reaches the answer (the issue's `Say hello.` case).
    @Test func disallowedToolsLeaveNoCallText() async throws {
        let log = CallLog()
        let session = LanguageModelSession(model: try Self.model(), tools: [WeatherTool(log: log)])
        let response = try await session.respond(
            to: "Say hello.",
            options: GenerationOptions(samplingMode: .greedy, maximumResponseTokens: 40, toolCallingMode: .disallowed))
        #expect(log.order.isEmpty)
        #expect(!response.content.contains("\"name\""))
        #expect(!response.content.contains("<tool_call>"))
    }

    /// `.required`: the first thing generated is a call, in `<tool_call>` form.
    @Test func requiredModeCallsFirst() async throws {
        let log = CallLog()
        let session = LanguageModelSession(model: try Self.model(), tools: [WeatherTool(log: log)])
        session.maximumToolRounds = 1
        await #expect(throws: (any Error).self) {
            // The second round must call again (required) and exceeds the bound of one round.
            _ = try await session.respond(
                to: "Tell me about Oslo.",
                options: GenerationOptions(samplingMode: .greedy, maximumResponseTokens: 60, toolCallingMode: .required))
        }
        #expect(log.order.first == "Oslo")
    }

    /// A call still open when the budget runs out is a typed error with the partial call.
    @Test func aCallCutByTheBudgetIsATypedError() async throws {
        let log = CallLog()
        let session = LanguageModelSession(model: try Self.model(), tools: [WeatherTool(log: log)])
        let before = session.transcript.count
        do {
            _ = try await session.respond(
                to: "What is the weather in Boston?",
                options: GenerationOptions(samplingMode: .greedy, maximumResponseTokens: 8, toolCallingMode: .required))
            Issue.record("expected an error")
        } catch let error as LanguageModelSession.GenerationError {
            guard case .decodingFailure(let context) = error else {
                Issue.record("expected decodingFailure, got \(error)")
                return
            }
            #expect(context.debugDescription.contains("did not close"))
            #expect(context.debugDescription.contains("<tool_call>"))
        }
        #expect(log.order.isEmpty)
        #expect(session.transcript.count == before)
        // The session (and its cache) still answers.
        let next = try await session.respond(
            to: "Say hi.", options: GenerationOptions(samplingMode: .greedy, maximumResponseTokens: 8, toolCallingMode: .disallowed))
        #expect(!next.content.isEmpty)
    }
}
