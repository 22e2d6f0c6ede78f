// The README's "One whole program", compiled and run on SmolLM2 so the README stays true.
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

@Suite("README program on SmolLM2", .serialized)
struct ReadmeProgramTests {
    @Test func theReadmeProgramRuns() async throws {
        _ = try TestModels.require(TestModels.smolLM2)
        let options = GenerationOptions(samplingMode: .greedy, maximumResponseTokens: 48)
        let session = LanguageModelSession(
            tools: [ReadmeProgram.GetWeather()], instructions: "You are a concise travel assistant.")
        let answer = try await session.respond(to: "Name three primary colors.", options: options)
        #expect(!answer.content.isEmpty)

        let trip = try await session.respond(
            to: "Plan a short trip to Lisbon.", generating: ReadmeProgram.Trip.self, options: options)
        #expect(!trip.content.city.isEmpty)
        #expect((1...14).contains(trip.content.nights))
        print("README program:", answer.content, "|", trip.content.city, trip.content.nights)
    }
}
