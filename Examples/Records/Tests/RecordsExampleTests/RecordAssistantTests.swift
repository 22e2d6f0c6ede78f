import Foundation
import LocalLM
import RecordsExample
import Testing

/// The assistant end to end on Qwen2.5-Coder-0.5B-Instruct (`locallm-records ask`'s default model): a
/// required tool call whose arguments satisfy the tool's schema, run against the real database, then
/// an answer written without further calls.
@Suite("Record assistant on Qwen2.5-Coder-0.5B", .serialized)
struct RecordAssistantTests {
    @Test func oneQuestionEndToEnd() async throws {
        let url = try ExampleModels.require(ExampleModels.qwen05)
        let collection = try await TemporaryCollection()
        defer { collection.remove() }
        let session = LanguageModelSession(
            model: SystemLanguageModel(contentsOf: url), profile: RecordAssistantProfile(store: collection.store))
        let answer = try await session.respond(
            to: "Which records by Miles Davis are in the collection?",
            options: GenerationOptions(samplingMode: .greedy, maximumResponseTokens: 64))

        let entries = Array(answer.transcriptEntries)
        let calls = entries.compactMap { entry -> [Transcript.ToolCall]? in
            if case .toolCalls(let calls) = entry { Array(calls) } else { nil }
        }.flatMap { $0 }
        let outputs = entries.compactMap { entry -> Transcript.ToolOutput? in
            if case .toolOutput(let output) = entry { output } else { nil }
        }
        // Exactly one call (required once, then disallowed), and its output is in the transcript.
        let call = try #require(calls.count == 1 ? calls.first : nil, "\(entries.map(\.description))")
        let output = try #require(outputs.first)
        #expect(output.id == call.id)
        let text = output.segments.map(\.description).joined()

        // Whatever the model chose, its arguments satisfy the schema, and the output is what the
        // tool gives for them on the real database.
        switch call.toolName {
        case "lookUpArtist":
            let arguments = try LookUpArtistTool.Arguments(call.arguments)
            #expect(text == (try await LookUpArtistTool(store: collection.store).call(arguments: arguments)))
        case "suggestByGenre":
            let arguments = try SuggestByGenreTool.Arguments(call.arguments)
            #expect(Album.genres.contains(arguments.genre))
            #expect(Album.years.contains(arguments.fromYear) && Album.years.contains(arguments.toYear))
            #expect((1...5).contains(arguments.count))
            #expect(text == (try await SuggestByGenreTool(store: collection.store).call(arguments: arguments)))
        default:
            Issue.record("unknown tool \(call.toolName)")
        }
        #expect(!answer.content.isEmpty)
        print("records assistant:", call.toolName, call.arguments.jsonString, "→", text, "→", answer.content)
    }
}
