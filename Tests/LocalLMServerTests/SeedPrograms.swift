// The seed programs (Apple's tool-calling and guided-generation documentation, as in
// LocalLMTests/SeedProgramsTests), run here on a remote model: the same source, only the model differs.
import Foundation
import LocalLM
import Testing

extension SessionPropertyValues {
    @SessionPropertyEntry
    var weatherCallCount: Int = 0
}

enum RemoteSeeds {
    struct WeatherTool: Tool {
        let name = "getWeather"
        let description = "Retrieve the latest weather information for a city"

        @Generable
        struct Arguments {
            @Guide(description: "The city to get weather information for")
            var city: String
        }

        func call(arguments: Arguments) async throws -> String {
            "The forecast for '\(arguments.city)' is '72' degrees Fahrenheit."
        }
    }

    /// Require one call, then let the model answer.
    struct WeatherProfile: LanguageModelSession.DynamicProfile {
        @LanguageModelSession.SessionProperty(\.weatherCallCount)
        var weatherCallCount

        var body: some LanguageModelSession.DynamicProfile {
            Profile {
                "Help the person with getting weather information"
                WeatherTool()
            }
            .toolCallingMode(weatherCallCount < 1 ? .required : .allowed)
            .onToolCall {
                weatherCallCount += 1
            }
        }
    }

    @Generable(description: "A bread recipe")
    struct Recipe {
        @Guide(description: "The name of the bread")
        var name: String
        @Guide(description: "Minutes in the oven", .range(10...90))
        var bakingMinutes: Int
        @Guide(description: "Main ingredients", .count(2...3))
        var ingredients: [String]
    }

    /// The weather program: one call to the tool (run by the session, on this machine), its output
    /// in the transcript, then an answer.
    static func weather(on model: some LanguageModel) async throws {
        let session = LanguageModelSession(model: model, profile: WeatherProfile())
        let response = try await session.respond(
            to: "What is the weather in Boston?", options: GenerationOptions(samplingMode: .greedy, maximumResponseTokens: 48))
        let entries = Array(response.transcriptEntries)
        let calls = entries.flatMap { entry -> [Transcript.ToolCall] in
            if case .toolCalls(let calls) = entry { Array(calls) } else { [] }
        }
        let first = try #require(calls.first, "\(entries.map(\.description))")
        #expect(first.toolName == "getWeather")
        let arguments = try WeatherTool.Arguments(first.arguments)
        #expect(arguments.city.localizedCaseInsensitiveContains("boston"))
        let outputs = entries.compactMap { entry -> Transcript.ToolOutput? in
            if case .toolOutput(let output) = entry { output } else { nil }
        }
        #expect(outputs.first?.segments.map(\.description) == ["The forecast for '\(arguments.city)' is '72' degrees Fahrenheit."])
        // Every call has its output, in call order (parallel calls included).
        #expect(outputs.map(\.toolName) == calls.map(\.toolName))
        // Not asserted: that the answer after the tool round is non-empty. Qwen2.5-Coder-0.5B, given the
        // result, often calls again (the same city) until its budget ends the turn with no text; that is
        // the model, not the transport, and the local run of this program shows the same.
        print("weather:", calls.map { $0.arguments.jsonString }, "→", response.content)
    }

    /// The structured-output program: a @Generable streamed (snapshots fill in) and collected.
    /// `inSchemaOrder`: the server writes the properties in the schema's order, as LocalLM does
    /// (llama.cpp's server sometimes writes a later property first).
    static func recipe(on model: some LanguageModel, inSchemaOrder: Bool = true) async throws {
        let session = LanguageModelSession(model: model, instructions: "You write bread recipes.")
        let stream = session.streamResponse(
            to: "A recipe for a baguette.", generating: Recipe.self,
            options: GenerationOptions(samplingMode: .greedy, maximumResponseTokens: 120))
        var snapshots: [Recipe.PartiallyGenerated] = []
        for try await snapshot in stream {
            snapshots.append(snapshot.content)
        }
        let recipe = try await stream.collect().content
        #expect(snapshots.count > 2)
        // Snapshots fill in, in the schema's order. (Which intermediate ones a reader sees depends on
        // timing: deltas that arrive together, as a remote server's often do, make one snapshot.)
        let describe = snapshots.map { "\($0.name ?? "nil") \($0.bakingMinutes.map(String.init) ?? "nil") \($0.ingredients.map { "\($0)" } ?? "nil")" }
        #expect(snapshots.contains { $0.name == nil || $0.bakingMinutes == nil || $0.ingredients == nil }, "\(describe)")
        if inSchemaOrder {
            #expect(snapshots.allSatisfy { $0.ingredients == nil || $0.name != nil }, "\(describe)")
        }
        #expect((10...90).contains(recipe.bakingMinutes))
        #expect((2...3).contains(recipe.ingredients.count))
        #expect(!recipe.name.isEmpty)
        print("recipe:", recipe.name, recipe.bakingMinutes, recipe.ingredients)
    }
}
