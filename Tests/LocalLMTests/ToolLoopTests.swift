import Foundation
import LocalLM
import Testing

@Suite("The tool loop inside respond")
struct ToolLoopTests {
    @Test func callsRunConcurrentlyAndOutputsFollowCallOrder() async throws {
        let model = ScriptedModel([
            .toolCalls([("getWeather", #"{"city":"Boston"}"#), ("getWeather", #"{"city":"Wichita"}"#)]),
            .text(["Boston and Wichita are both at 20 degrees."]),
        ])
        let log = CallLog()
        let session = LanguageModelSession(
            model: model, tools: [WeatherTool(log: log)], instructions: "Help the person with getting weather information")
        let response = try await session.respond(to: "Is it hotter in Boston or Wichita?")

        #expect(response.content == "Boston and Wichita are both at 20 degrees.")
        #expect(log.peak == 2, "both calls should run at the same time")
        let entries = Array(session.transcript)
        #expect(entries.count == 6)
        guard case .instructions(let instructions) = entries[0], case .toolCalls(let calls) = entries[2],
            case .toolOutput(let first) = entries[3], case .toolOutput(let second) = entries[4],
            case .response = entries[5]
        else {
            Issue.record("unexpected entries \(entries.map(\.description))")
            return
        }
        #expect(instructions.toolDefinitions.map(\.name) == ["getWeather"])
        #expect(calls.map(\.toolName) == ["getWeather", "getWeather"])
        // Boston is slower, yet its output comes first: outputs are in call order.
        #expect(first.id == calls[0].id && second.id == calls[1].id)
        #expect(first.segments.map(\.description) == ["It is 20 degrees in Boston."])
        #expect(second.segments.map(\.description) == ["It is 20 degrees in Wichita."])
        // The second executor call saw the tool outputs.
        let followUp = model.script.requests[1].transcript
        #expect(followUp.last?.description == "getWeather output: It is 20 degrees in Wichita.")
        #expect(response.transcriptEntries.count == 5)
    }

    @Test func aThrowingToolSurfacesAsToolCallError() async throws {
        let model = ScriptedModel([.toolCalls([("FailingTool", #"{"city":"Paris"}"#)]), .text(["unused"])])
        let session = LanguageModelSession(model: model, tools: [FailingTool()])
        do {
            try await session.respond(to: "Find a recipe for tomato soup.")
            Issue.record("expected a ToolCallError")
        } catch let error as LanguageModelSession.ToolCallError {
            // `name` defaults to the type name.
            #expect(error.tool.name == "FailingTool")
            #expect(error.underlyingError as? DatabaseUnavailable == DatabaseUnavailable())
        }
        #expect(session.transcript.map(\.description) == ["Instructions: "], "the default policy reverts the transcript")
    }

    @Test func aThrowingToolWithPreservePolicyKeepsTheCalls() async throws {
        let model = ScriptedModel([.toolCalls([("FailingTool", #"{"city":"Paris"}"#)])])
        let session = LanguageModelSession(model: model, tools: [FailingTool()])
        session.transcriptErrorHandlingPolicy = .preserveTranscript
        await #expect(throws: LanguageModelSession.ToolCallError.self) {
            try await session.respond(to: "Find it")
        }
        #expect(session.transcript.map(\.description) == ["Instructions: ", "Prompt: Find it", "Tool calls:\nFailingTool: {\"city\": \"Paris\"}"])
    }

    @Test func runawayToolCallingStopsAtTheBound() async throws {
        let model = ScriptedModel([.toolCalls([("getWeather", #"{"city":"Oslo"}"#)])], repeatsLast: true)
        let session = LanguageModelSession(model: model, tools: [WeatherTool(log: CallLog())])
        session.maximumToolRounds = 3
        await #expect {
            try await session.respond(to: "Weather?", options: GenerationOptions(toolCallingMode: .required))
        } throws: { error in
            (error as? LanguageModelSession.ToolCallLimitExceeded)?.maximumToolRounds == 3
        }
        #expect(model.script.requests.count == 4)
        #expect(model.script.requests.allSatisfy { $0.generationOptions.toolCallingMode == .required })
        #expect(session.transcript.count == 1)
    }

    @Test func unknownToolIsADecodingFailure() async throws {
        let model = ScriptedModel([.toolCalls([("nope", "{}")])])
        let session = LanguageModelSession(model: model, tools: [WeatherTool(log: CallLog())])
        await #expect {
            try await session.respond(to: "x")
        } throws: { error in
            guard case LanguageModelSession.GenerationError.decodingFailure = error else { return false }
            return true
        }
    }

    /// A round that only repeats a call of the same request is dropped, and the model is asked
    /// again with calls disallowed (`endsRepeatedToolCalls`).
    @Test func aRepeatedCallEndsTheLoop() async throws {
        let model = ScriptedModel([
            .toolCalls([("getWeather", #"{"city":"Oslo"}"#)]),
            .toolCalls([("getWeather", #"{"city":"Oslo"}"#)]),
            .text(["It is 20 degrees in Oslo."]),
        ])
        let session = LanguageModelSession(model: model, tools: [WeatherTool(log: CallLog())])
        let response = try await session.respond(to: "Weather in Oslo?")
        #expect(response.content == "It is 20 degrees in Oslo.")
        #expect(session.transcript.map(\.description) == [
            "Instructions: ", "Prompt: Weather in Oslo?", "Tool calls:\ngetWeather: {\"city\": \"Oslo\"}",
            "getWeather output: It is 20 degrees in Oslo.", "Response: It is 20 degrees in Oslo.",
        ])
        let modes = model.script.requests.map(\.generationOptions.toolCallingMode)
        #expect(modes == [nil, nil, .disallowed])
        // The second and third requests show the model the same transcript: the repeat left nothing.
        #expect(model.script.requests[1].transcript.map(\.description) == model.script.requests[2].transcript.map(\.description))
    }

    @Test func aCallWithOtherArgumentsIsNotARepeat() async throws {
        let model = ScriptedModel([
            .toolCalls([("getWeather", #"{"city":"Oslo"}"#)]),
            .toolCalls([("getWeather", #"{"city":"Oslo"}"#), ("getWeather", #"{"city":"Bergen"}"#)]),
            .text(["Both at 20 degrees."]),
        ])
        let session = LanguageModelSession(model: model, tools: [WeatherTool(log: CallLog())])
        _ = try await session.respond(to: "Weather in Oslo and Bergen?")
        let rounds = session.transcript.filter { if case .toolCalls = $0 { true } else { false } }
        #expect(rounds.count == 2)
        #expect(model.script.requests.map(\.generationOptions.toolCallingMode) == [nil, nil, nil])
    }

    @Test func repeatedCallsRunWhenThePolicyIsOff() async throws {
        let model = ScriptedModel([
            .toolCalls([("getWeather", #"{"city":"Oslo"}"#)]),
            .toolCalls([("getWeather", #"{"city":"Oslo"}"#)]),
            .text(["Done."]),
        ])
        let session = LanguageModelSession(model: model, tools: [WeatherTool(log: CallLog())])
        session.endsRepeatedToolCalls = false
        _ = try await session.respond(to: "Weather in Oslo?")
        let outputs = session.transcript.filter { if case .toolOutput = $0 { true } else { false } }
        #expect(outputs.count == 2)
    }
}
