import Foundation
import LocalLM
import Testing

/// `@SessionPropertyEntry var toolCallCount: Int = 0`, written out by hand.
struct ToolCallCountKey: SessionPropertyKey {
    static let defaultValue = 0
}

extension SessionPropertyValues {
    var toolCallCount: Int {
        get { self[ToolCallCountKey.self] }
        set { self[ToolCallCountKey.self] = newValue }
    }
}

/// Apple's documented pattern: require one tool call, then let the model answer.
struct WeatherDynamicProfile: LanguageModelSession.DynamicProfile {
    @LanguageModelSession.SessionProperty(\.toolCallCount)
    var toolCallCount

    let log: CallLog

    var body: some LanguageModelSession.DynamicProfile {
        LanguageModelSession.Profile {
            "Help the person with getting weather information."
            WeatherTool(log: log)
        }
        .toolCallingMode(toolCallCount < 1 ? .required : .allowed)
        .onToolCall {
            toolCallCount += 1
        }
    }
}

@Suite("Dynamic profiles")
struct DynamicProfileTests {
    @Test func requiredThenAllowedAfterTheFirstCall() async throws {
        let model = ScriptedModel([
            .toolCalls([("getWeather", #"{"city":"Oslo"}"#)]),
            .text(["It is 20 degrees in Oslo."]),
        ])
        let log = CallLog()
        let session = LanguageModelSession(model: model, profile: WeatherDynamicProfile(log: log))
        let response = try await session.respond(to: "Weather in Oslo?")
        #expect(response.content == "It is 20 degrees in Oslo.")
        let requests = model.script.requests
        #expect(requests.map(\.generationOptions.toolCallingMode) == [.required, .allowed])
        #expect(requests[0].toolDefinitions.map(\.name) == ["getWeather"])
        #expect(session.transcript.first?.description == "Instructions: Help the person with getting weather information.")
        #expect(log.order == ["Oslo"])
    }

    @Test func profileConditionalsAndPolicy() async throws {
        struct Switching: LanguageModelSession.DynamicProfile {
            let creative: Bool
            var body: some LanguageModelSession.DynamicProfile {
                if creative {
                    LanguageModelSession.Profile { "Write poems." }.temperature(0.9)
                } else {
                    LanguageModelSession.Profile { "Be exact." }.temperature(0.1)
                        .transcriptErrorHandlingPolicy(.preserveTranscript)
                }
            }
        }
        let model = ScriptedModel([.text(["ok"]), .fail(partial: ["par"], error: .decodingFailure(.init(debugDescription: "x")))])
        let session = LanguageModelSession(model: model, profile: Switching(creative: false))
        try await session.respond(to: "One")
        #expect(model.script.requests[0].generationOptions.temperature == 0.1)
        await #expect(throws: LanguageModelSession.GenerationError.self) { try await session.respond(to: "Two") }
        // The profile's policy preserved the partial response.
        #expect(session.transcript.last?.description == "Response: par")
    }
}
