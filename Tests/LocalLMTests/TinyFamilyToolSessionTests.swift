import Foundation
import LocalLM
import LocalLMTestSupport
import Testing
import LocalLMSync

@Generable
struct ForecastArguments {
    @Guide(description: "The city", .anyOf(["Oslo", "Paris"]))
    var city: String
    @Guide(description: "How many days", .range(1...7))
    var days: Int
}

/// Records the arguments it is called with.
struct ForecastTool: Tool {
    final class Log: Sendable {
        let calls = SanitizableMutex<[(city: String, days: Int)]>([])
    }

    let name = "get_weather"
    let description = "Weather forecast"
    let log = Log()

    func call(arguments: ForecastArguments) async throws -> String {
        log.calls.withLock { $0.append((arguments.city, arguments.days)) }
        return "Sunny."
    }
}

/// The whole tool path, through the public API, on one tiny random-weight model per tool-call
/// family (the family's real template embedded, its markers as control tokens;
/// `scripts/make-tiny-models.py --families`): in `.required` mode the session gets a call the
/// family's parser read, with arguments its guides allow, runs the tool and records call and output.
/// (Random weights: only the grammar makes the output a call; temperature 3 over the whole
/// distribution, since the random model's sharp logits alone loop.)
@Suite("Tool calls through a session on each family's tiny model", .serialized)
struct TinyFamilyToolSessionTests {
    /// Gemma's generic `{"tool_calls": [...]}` is left to the engine test (ToolCallDecoderTests),
    /// which adds a frequency penalty the public API has no option for: without it this random
    /// model writes call after call into the list until any budget ends.
    static let models = ["tiny-hermes.gguf", "tiny-llama3.gguf", "tiny-mistral.gguf", "tiny-granite.gguf", "tiny-lfm2.gguf",
                         "tiny-phi4.gguf"]

    @Test(arguments: models)
    func aRequiredCallRunsTheTool(file: String) async throws {
        let model = SystemLanguageModel(contentsOf: Fixtures.url("tools/" + file), configuration: .init(contextSize: 8192))
        let tool = ForecastTool()
        let session = LanguageModelSession(model: model, tools: [tool], instructions: "Answer with the tool.")
        session.maximumToolRounds = 1
        session.transcriptErrorHandlingPolicy = .preserveTranscript
        let options = GenerationOptions(
            samplingMode: .random(top: 1000, seed: 5), temperature: 3, maximumResponseTokens: 3000, toolCallingMode: .required)
        do {
            _ = try await session.respond(to: "Weather in Oslo for 3 days?", options: options)
            Issue.record("`.required` calls every round: one round's bound must end the request")
        } catch is LanguageModelSession.ToolCallLimitExceeded {
        } catch let error as LanguageModelSession.GenerationError {
            // The second round's call may run past the budget; the first round is what is checked.
            guard case .decodingFailure = error else { throw error }
        }
        let calls = tool.log.calls.withLock { $0 }
        #expect(!calls.isEmpty)
        for call in calls {
            #expect(["Oslo", "Paris"].contains(call.city))
            #expect((1...7).contains(call.days))
        }
        let entries = Array(session.transcript)
        guard entries.count >= 4, case .toolCalls(let recorded) = entries[2], case .toolOutput(let output) = entries[3] else {
            Issue.record("unexpected transcript \(entries.map(\.description))")
            return
        }
        #expect(recorded.allSatisfy { $0.toolName == "get_weather" })
        #expect(output.id == recorded.first?.id)
        #expect(output.segments.map(\.description) == ["Sunny."])
    }
}
