import Foundation
import LocalLM
import LocalLMTestSupport
import Testing

/// Tool calling in `.allowed` mode on SmolLM2: the model writes `<tool_call>` itself and the call
/// grammar takes over lazily from there (the `.required` case is in FoundationModelsProgramTests).
@Suite("Lazy tool calls on SmolLM2", .serialized)
struct LazyToolCallTests {
    @Test func theModelOpensACallAndTheGrammarFinishesIt() async throws {
        let model = SystemLanguageModel(contentsOf: try TestModels.require(TestModels.smolLM2))
        let log = CallLog()
        let session = LanguageModelSession(
            model: model, tools: [WeatherTool(log: log)],
            instructions: "You call tools to answer. Help the person with getting weather information")
        session.maximumToolRounds = 1
        // Greedy, SmolLM2 copies the marker from the prompt and opens a call on its own; the
        // grammar then makes the JSON a valid call of the one registered tool.
        let response = try await session.respond(
            to: "<tool_call> for the weather in Rome, please.",
            options: GenerationOptions(samplingMode: .greedy, maximumResponseTokens: 32))
        #expect(log.order == ["Rome"])
        let entries = Array(session.transcript)
        guard entries.count >= 5, case .toolCalls(let calls) = entries[2], case .toolOutput(let output) = entries[3] else {
            Issue.record("expected a tool call and its output: \(entries.map(\.description))")
            return
        }
        #expect(calls.map(\.toolName) == ["getWeather"])
        let arguments = try #require(calls.first?.arguments)
        #expect(try CityArguments(arguments).city == "Rome")
        #expect(output.segments.map(\.description) == ["It is 20 degrees in Rome."])
        #expect(response.transcriptEntries.count == 4)  // prompt, call, output, response
    }
}
