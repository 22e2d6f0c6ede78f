import Foundation
import LocalLM
import Testing

// Apple's declaration of a session property, as in the DynamicProfile documentation.
extension SessionPropertyValues {
    @SessionPropertyEntry
    var toolCallCount: Int = 0

    @SessionPropertyEntry
    var lastCity: String?
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

    /// A counter declared with `@SessionPropertyEntry` counts every call, per session, and the
    /// profile reads it before each round.
    @Test func sessionPropertyEntryCountsToolCallsPerSession() async throws {
        struct TwoCalls: LanguageModelSession.DynamicProfile {
            @LanguageModelSession.SessionProperty(\.toolCallCount) var toolCallCount
            @LanguageModelSession.SessionProperty(\.lastCity) var lastCity
            let log: CallLog
            var body: some LanguageModelSession.DynamicProfile {
                LanguageModelSession.Profile {
                    // The instructions show the property values the profile saw.
                    "Calls so far: \(toolCallCount); last city: \(lastCity ?? "none")."
                    WeatherTool(log: log)
                }
                .toolCallingMode(toolCallCount < 2 ? .required : .disallowed)
                .onToolCall { call in
                    toolCallCount += 1
                    lastCity = try? call.arguments.value(String.self, forProperty: "city")
                }
            }
        }
        let steps: [ScriptedModel.Step] = [
            .toolCalls([("getWeather", #"{"city":"Oslo"}"#)]),
            .toolCalls([("getWeather", #"{"city":"Rome"}"#)]),
            .text(["Done."]),
        ]
        let model = ScriptedModel(steps)
        let log = CallLog()
        let session = LanguageModelSession(model: model, profile: TwoCalls(log: log))
        try await session.respond(to: "Weather in Oslo and Rome?")
        #expect(model.script.requests.map(\.generationOptions.toolCallingMode) == [.required, .required, .disallowed])
        #expect(session.transcript.first?.description == "Instructions: Calls so far: 2; last city: Rome.")
        #expect(log.order == ["Oslo", "Rome"])

        // A second session starts from the declared defaults: values are per session.
        let other = ScriptedModel([.toolCalls([("getWeather", #"{"city":"Lima"}"#)]), .text(["x"]), .text(["y"])])
        let second = LanguageModelSession(model: other, profile: TwoCalls(log: log))
        _ = try? await second.respond(to: "Lima?")
        #expect(other.script.requests.first?.generationOptions.toolCallingMode == .required)
        #expect(other.script.requests.first?.transcript.first?.description == "Instructions: Calls so far: 0; last city: none.")
    }
}
