// Programs in the style of Apple's tool-calling and guided-generation documentation (the seeds),
// compiled unchanged except for the import and run on SmolLM2: a weather tool behind a
// DynamicProfile with a tool-call counter, a database search tool with @Guide ranges and anyOf,
// a @Generable response streamed and collected, and a switch over ToolCallError and
// GenerationError cases. The coordinator with planner and worker tools is in AgentProgramTests.
import Foundation
import LocalLM
import LocalLMTestSupport
import Testing
import LocalLMSync

enum SeedPrograms {
    struct WeatherTool: Tool {
        let name = "getWeather"
        let description = "Retrieve the latest weather information for a city"

        @Generable
        struct Arguments {
            @Guide(description: "The city to get weather information for")
            var city: String
        }

        func call(arguments: Arguments) async throws -> String {
            // A fixed temperature, so the test can find it in the transcript.
            "The forecast for '\(arguments.city)' is '72' degrees Fahrenheit."
        }
    }

    /// Require one call, then let the model answer (the seeds' RecipeDynamicProfile), counting
    /// calls in a session property declared with `@SessionPropertyEntry` (DynamicProfileTests).
    struct WeatherDynamicProfile: LanguageModelSession.DynamicProfile {
        @SessionProperty(\.toolCallCount)
        var toolCallCount

        var body: some LanguageModelSession.DynamicProfile {
            Profile {
                "Help the person with getting weather information"
                WeatherTool()
            }
            .toolCallingMode(toolCallCount < 1 ? .required : .allowed)
            .onToolCall {
                toolCallCount += 1
            }
        }
    }

    enum SearchBreadDatabaseToolError: Error, Equatable {
        case databaseIsEmpty
    }

    struct BreadDatabaseTool: Tool {
        let name = "searchBreadDatabase"
        let description = "Searches a local database for bread recipes."

        @Generable
        struct Arguments {
            @Guide(description: "The type of bread to search for", .anyOf(["sourdough", "rye", "baguette", "brioche"]))
            var searchTerm: String
            @Guide(description: "The number of recipes to get", .range(1...6))
            var limit: Int
        }

        let recipes: [String: [String]]
        let log = ArgumentsLog()

        /// The arguments of every call, for the test to check against the schema.
        final class ArgumentsLog: Sendable {
            let calls = SanitizableMutex<[Arguments]>([])
        }

        func call(arguments: Arguments) async throws -> [String] {
            log.calls.withLock { $0.append(arguments) }
            guard !recipes.isEmpty else { throw SearchBreadDatabaseToolError.databaseIsEmpty }
            return Array((recipes[arguments.searchTerm] ?? []).prefix(arguments.limit))
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

    /// What an app shows for each error a request can end with.
    static func message(for error: any Error) -> String {
        switch error {
        case let error as LanguageModelSession.ToolCallError:
            if case .databaseIsEmpty = error.underlyingError as? SearchBreadDatabaseToolError {
                return "\(error.tool.name): the database is empty"
            }
            return "\(error.tool.name) failed: \(error.underlyingError)"
        case let error as LanguageModelSession.GenerationError:
            switch error {
            case .exceededContextWindowSize: return "too long"
            case .assetsUnavailable: return "model unavailable"
            case .guardrailViolation: return "guardrail"
            case .unsupportedGuide: return "unsupported guide"
            case .unsupportedLanguageOrLocale: return "unsupported language"
            case .decodingFailure: return "could not decode"
            case .rateLimited: return "rate limited"
            case .concurrentRequests: return "busy"
            case .refusal: return "refused"
            @unknown default: return "unknown generation error"
            }
        default:
            return "other: \(error)"
        }
    }
}

@Suite("Seed programs on SmolLM2", .serialized)
struct SeedProgramsTests {
    init() throws {
        _ = try TestModels.require(TestModels.smolLM2)
    }

    @Test func weatherToolWithAToolCallCounter() async throws {
        let session = LanguageModelSession(profile: SeedPrograms.WeatherDynamicProfile())
        let response = try await session.respond(
            to: "What is the weather in Boston?", options: GenerationOptions(samplingMode: .greedy, maximumResponseTokens: 48))
        let entries = Array(response.transcriptEntries)
        let calls = entries.flatMap { entry -> [Transcript.ToolCall] in
            if case .toolCalls(let calls) = entry { Array(calls) } else { [] }
        }
        // Required first, so at least one call; its arguments decode with the tool's own type.
        let first = try #require(calls.first, "\(entries.map(\.description))")
        #expect(first.toolName == "getWeather")
        let arguments = try SeedPrograms.WeatherTool.Arguments(first.arguments)
        #expect(!arguments.city.isEmpty)
        guard case .toolOutput(let output)? = entries.first(where: { if case .toolOutput = $0 { true } else { false } }) else {
            Issue.record("no tool output")
            return
        }
        #expect(output.segments.map(\.description) == ["The forecast for '\(arguments.city)' is '72' degrees Fahrenheit."])
        #expect(!response.content.isEmpty)
        print("weather:", calls.map { $0.arguments.jsonString }, "→", response.content)
    }

    @Test func databaseSearchToolWithRangeAndAnyOf() async throws {
        let tool = SeedPrograms.BreadDatabaseTool(recipes: [
            "sourdough": ["Country sourdough", "Seeded sourdough", "Sourdough rolls"], "rye": ["Dark rye"],
        ])
        let session = LanguageModelSession(tools: [tool], instructions: "Help the person find bread recipes.")
        session.maximumToolRounds = 1
        session.transcriptErrorHandlingPolicy = .preserveTranscript
        // `.required` keeps calling tools; the round bound stops it after one call here.
        await #expect(throws: LanguageModelSession.ToolCallLimitExceeded.self) {
            try await session.respond(to: "Find three sourdough bread recipes", options: GenerationOptions(toolCallingMode: .required))
        }
        let made = tool.log.calls.withLock { $0 }
        let arguments = try #require(made.first)
        #expect(made.count == 1)
        #expect(["sourdough", "rye", "baguette", "brioche"].contains(arguments.searchTerm))
        #expect((1...6).contains(arguments.limit))
        guard case .toolOutput(let output)? = session.transcript.last else {
            Issue.record("expected the tool output last: \(session.transcript.map(\.description))")
            return
        }
        let expected = Array((tool.recipes[arguments.searchTerm] ?? []).prefix(arguments.limit))
        // A `[String]` output is one text segment per element.
        #expect(output.segments.map(\.description) == expected)
        print("bread search:", arguments.searchTerm, arguments.limit, "→", expected)
    }

    @Test func generableResponseStreamedAndCollected() async throws {
        let session = LanguageModelSession(instructions: "You write bread recipes.")
        let stream = session.streamResponse(
            to: "A recipe for a baguette.", generating: SeedPrograms.Recipe.self,
            options: GenerationOptions(samplingMode: .greedy, maximumResponseTokens: 80))
        var snapshots: [SeedPrograms.Recipe.PartiallyGenerated] = []
        for try await snapshot in stream {
            snapshots.append(snapshot.content)
        }
        let recipe = try await stream.collect().content
        #expect(snapshots.count > 2)
        // Fields fill in as they are generated: the name appears before the ingredients are done.
        #expect(snapshots.contains { $0.name != nil && $0.ingredients == nil })
        let last = try #require(snapshots.last)
        #expect(last.name == recipe.name && last.bakingMinutes == recipe.bakingMinutes && last.ingredients == recipe.ingredients)
        #expect((10...90).contains(recipe.bakingMinutes))
        #expect((2...3).contains(recipe.ingredients.count))
        print("recipe:", recipe.name, recipe.bakingMinutes, recipe.ingredients)
    }

    @Test func switchingOverToolCallErrorAndGenerationError() async throws {
        let empty = SeedPrograms.BreadDatabaseTool(recipes: [:])
        let session = LanguageModelSession(tools: [empty])
        do {
            try await session.respond(to: "Find a recipe for rye bread.", options: GenerationOptions(toolCallingMode: .required))
            Issue.record("expected a ToolCallError")
        } catch {
            #expect(SeedPrograms.message(for: error) == "searchBreadDatabase: the database is empty")
        }
        #expect(session.transcript.count == 1, "the transcript rolls back to before the request")

        let small = SystemLanguageModel(contentsOf: TestModels.smolLM2, configuration: .init(contextSize: 64))
        do {
            try await LanguageModelSession(model: small).respond(to: String(repeating: "Long prompt. ", count: 40))
            Issue.record("expected exceededContextWindowSize")
        } catch {
            #expect(SeedPrograms.message(for: error) == "too long")
        }
    }
}
