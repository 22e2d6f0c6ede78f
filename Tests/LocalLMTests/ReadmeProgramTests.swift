// The README's "One whole program", compiled and run on Qwen2.5-Coder-0.5B so the README stays true.
// Keep the two in step: the code inside `ReadmeProgram` is the README's, with options added for speed.
import Foundation
import LocalLM
import LocalLMTestSupport
import Testing

enum ReadmeProgram {
    @Generable
    struct Trip {
        @Guide(description: "A city name")
        var city: String
        @Guide(description: "Nights", .range(1...14))
        var nights: Int
    }

    struct GetWeather: Tool {
        let description = "Gets the weather in a city"
        @Generable struct Arguments {
            @Guide(description: "The city") var city: String
        }
        func call(arguments: Arguments) async throws -> String {
            "It is 20 degrees in \(arguments.city)."
        }
    }
}

@Suite("README program on Qwen2.5-Coder-0.5B", .serialized)
struct ReadmeProgramTests {
    @Test func theReadmeProgramRuns() async throws {
        let model = SystemLanguageModel(contentsOf: try TestModels.require(TestModels.qwen05))
        let options = GenerationOptions(samplingMode: .greedy, maximumResponseTokens: 64)
        let session = LanguageModelSession(
            model: model, tools: [ReadmeProgram.GetWeather()], instructions: "You are a concise travel assistant.")
        let answer = try await session.respond(to: "What is the weather in Lisbon?", options: options)
        var calls: [String] = []
        for case .toolCalls(let made) in answer.transcriptEntries {
            for call in made { calls.append("\(call.toolName) \(call.arguments.jsonString)") }
        }
        print("README program:", calls, "|", answer.content.debugDescription)

        let trip = try await session.respond(
            to: "Plan a short trip to Lisbon.", generating: ReadmeProgram.Trip.self, options: options)
        #expect(!trip.content.city.isEmpty)
        #expect((1...14).contains(trip.content.nights))
        print("README program:", trip.content.city, trip.content.nights)
    }
}
