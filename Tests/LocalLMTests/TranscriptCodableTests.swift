import Foundation
import LocalLM
import LocalLMTestSupport
import Testing

@Suite("Transcript Codable in Apple's JSON shape")
struct TranscriptCodableTests {
    let fixture: Transcript

    init() throws {
        fixture = try JSONDecoder().decode(Transcript.self, from: Fixtures.data("transcript/apple-shaped.json"))
    }

    @Test func decodesEveryEntryKind() throws {
        #expect(fixture.count == 7)
        guard case .instructions(let instructions) = fixture[0], case .prompt(let prompt) = fixture[1],
            case .toolCalls(let calls) = fixture[2], case .toolOutput(let output) = fixture[3],
            case .response(let response) = fixture[4], case .prompt(let structuredPrompt) = fixture[5],
            case .response(let structured) = fixture[6]
        else {
            Issue.record("unexpected entries: \(fixture.map(\.description))")
            return
        }
        #expect(instructions.toolDefinitions.map(\.name) == ["lookupArtist"])
        #expect(instructions.toolDefinitions[0].description == "Finds the records of an artist in the collection.")
        #expect(prompt.options.temperature == 0.5)
        #expect(prompt.options.maximumResponseTokens == 200)
        #expect(prompt.options.toolCallingMode == .allowed)
        #expect(prompt.options.samplingMode == .random(top: 20, seed: 7))
        #expect(calls.count == 1 && calls[0].toolName == "lookupArtist")
        #expect(try calls[0].arguments.value(String.self, forProperty: "artist") == "Tool")
        #expect(try calls[0].arguments.value(Int.self, forProperty: "limit") == 3)
        #expect(output.id == calls[0].id && output.toolName == "lookupArtist")
        #expect(response.assetIDs == ["SmolLM2-135M-Instruct.Q4_1.gguf"])
        #expect(response.segments.map(\.description) == ["Yes: Lateralus (2001)."])
        #expect(structuredPrompt.responseFormat?.name == "Record")
        guard case .structure(let segment)? = structured.segments.first else {
            Issue.record("expected a structured segment")
            return
        }
        #expect(segment.source == "Record")
        // Key order comes back from the response format's x-order, not from the file.
        #expect(segment.content.jsonString == #"{"title": "Lateralus", "year": 2001}"#)
    }

    @Test func roundTripsThroughJSON() throws {
        let data = try JSONEncoder().encode(fixture)
        let again = try JSONDecoder().decode(Transcript.self, from: data)
        #expect(again == fixture)
        // The encoded form has Apple's top-level shape and roles.
        let object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        #expect(object["type"] as? String == "FoundationModels.Transcript")
        #expect(object["version"] as? Int == 1)
        let entries = try #require((object["transcript"] as? [String: Any])?["entries"] as? [[String: Any]])
        #expect(entries.map { $0["role"] as? String } == ["instructions", "user", "response", "tool", "response", "user", "response"])
        let call = try #require((entries[2]["toolCalls"] as? [[String: Any]])?.first)
        #expect(call["arguments"] is String, "tool call arguments are JSON text, as Apple writes them")
        #expect(entries[3]["toolCallID"] as? String == entries[3]["id"] as? String)
    }

    @Test func sessionTranscriptRoundTrips() async throws {
        let model = ScriptedModel([
            .toolCalls([("getWeather", #"{"city":"Boston"}"#)]), .text(["Sunny."]),
        ])
        let session = LanguageModelSession(model: model, tools: [WeatherTool(log: CallLog())], instructions: "Be helpful.")
        try await session.respond(to: "Weather in Boston?", options: GenerationOptions(samplingMode: .greedy, temperature: 0))
        let data = try JSONEncoder().encode(session.transcript)
        let restored = try JSONDecoder().decode(Transcript.self, from: data)
        #expect(restored == session.transcript)

        // A session restored from it continues the conversation with the whole history.
        let next = ScriptedModel([.text(["Still sunny."])])
        let resumed = LanguageModelSession(model: next, tools: [WeatherTool(log: CallLog())], transcript: restored)
        try await resumed.respond(to: "And tomorrow?")
        #expect(next.script.requests[0].transcript.count == restored.count + 1)
        #expect(next.script.requests[0].toolDefinitions.map(\.name) == ["getWeather"])
    }

    @Test(arguments: [
        #"{"type": "Something.Else", "version": 1, "transcript": {"entries": []}}"#,
        #"{"type": "FoundationModels.Transcript", "version": 99, "transcript": {"entries": []}}"#,
        #"{"type": "FoundationModels.Transcript", "version": 1, "transcript": {"entries": [{"role": "alien", "id": "x"}]}}"#,
        #"{"type": "FoundationModels.Transcript", "version": 1, "transcript": {"entries": "nope"}}"#,
        #"{"type": "FoundationModels.Transcript", "version": 1}"#,
    ])
    func rejectsMalformedTranscripts(json: String) {
        #expect(throws: DecodingError.self) {
            try JSONDecoder().decode(Transcript.self, from: Data(json.utf8))
        }
    }

    @Test func acceptsVersionOnePointOne() throws {
        let json = #"{"type": "FoundationModels.Transcript", "version": "1.1", "transcript": {"entries": []}}"#
        #expect(try JSONDecoder().decode(Transcript.self, from: Data(json.utf8)).isEmpty)
    }
}
