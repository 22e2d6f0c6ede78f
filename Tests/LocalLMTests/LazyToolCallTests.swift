import Foundation
import LocalLM
import LocalLMTestSupport
import Testing

/// Tool calling in `.allowed` mode on SmolLM2: the model writes `<tool_call>` itself and the call
/// grammar takes over lazily from there (the `.required` case is in FoundationModelsProgramTests).
@Suite("Lazy tool calls on SmolLM2", .serialized)
struct LazyToolCallTests {
    /// Whether greedy SmolLM2 opens a call on its own depends on the prompt and, at near ties, on the
    /// last bits of the arithmetic; so a few phrasings that invite `<tool_call>` are tried in turn.
    /// At least one must open a call, and the first that does must complete as a valid call of the
    /// registered tool (the grammar's part), with the tool run and its output recorded.
    /// (64 tokens: the model now writes the closing `</tool_call>` itself, inside the budget.)
    static let prompts = [
        "What's the weather in Rome? Use <tool_call>.",
        "<tool_call> getWeather Rome",
        "<tool_call> for the weather in Rome, please.",
    ]

    @Test func theModelOpensACallAndTheGrammarFinishesIt() async throws {
        let model = SystemLanguageModel(contentsOf: try TestModels.require(TestModels.smolLM2))
        var tried: [String] = []
        for prompt in Self.prompts {
            let log = CallLog()
            let session = LanguageModelSession(
                model: model, tools: [WeatherTool(log: log)],
                instructions: "You call tools to answer. Help the person with getting weather information")
            session.maximumToolRounds = 1
            let response = try await session.respond(
                to: prompt, options: GenerationOptions(samplingMode: .greedy, maximumResponseTokens: 64))
            let entries = Array(session.transcript)
            guard !log.order.isEmpty else {
                tried.append("\(prompt) → \(entries.last?.description ?? "")")
                continue
            }
            #expect(log.order == ["Rome"])
            guard entries.count >= 5, case .toolCalls(let calls) = entries[2], case .toolOutput(let output) = entries[3] else {
                Issue.record("expected a tool call and its output: \(entries.map(\.description))")
                return
            }
            #expect(calls.map(\.toolName) == ["getWeather"])
            let arguments = try #require(calls.first?.arguments)
            #expect(try CityArguments(arguments).city == "Rome")
            #expect(output.segments.map(\.description) == ["It is 20 degrees in Rome."])
            #expect(response.transcriptEntries.count == 4)  // prompt, call, output, response
            return
        }
        Issue.record("no prompt made the model open a call: \(tried)")
    }
}
