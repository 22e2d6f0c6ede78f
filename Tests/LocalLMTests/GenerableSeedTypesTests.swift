import Foundation
import LocalLM
import Testing

// Declarations as the FoundationModels articles in /work/shared/seeds write them (tools'
// arguments nested in other types, `let` properties, optional guided values, Codable too).

struct BreadDatabaseLookup {
    @Generable
    struct Arguments {
        @Guide(description: "The type of bread to search for")
        var searchTerm: String
        @Guide(description: "The number of recipes to get", .range(1...6))
        var limit: Int
    }
}

final class RemindersLookup {
    @Generable
    struct Arguments {
        @Guide(description: "Filter reminders by completion status", .anyOf(["all", "completed", "incomplete"]))
        let status: String

        @Guide(description: "Number of reminders to return", .range(1...10))
        let count: Int?
    }
}

@Generable
struct LocalSearchResultData: Codable {
    var name: String?
    var address: String?
}

@Generable
struct LocalSearchToolOutput: Codable {
    var results: [LocalSearchResultData]
}

@Generable
struct TaskPlan {
    @Guide(description: "The original task")
    var originalTask: String
    @Guide(description: "How the subtasks fit together")
    var strategy: String
    @Guide(description: "The subtasks, in order", .count(1...5))
    var subtasks: [Subtask]
}

@Generable
struct Subtask {
    var id: Int
    @Guide(description: "What to do")
    var description: String
    @Guide(description: "Ids of subtasks this one needs", .maximumCount(4))
    var dependsOn: [Int]
}

@Generable
struct Pet {
    @Guide(description: "Kind of pet", /cat|dog/)
    var kind: String
}

@Generable
struct Labeled<Value: Generable> {
    var label: String
    var value: Value
}

@Generable
struct Secretive {
    private var code: Int
    var name: String

    var revealed: Int { code }
}

@Suite("@Generable as the FoundationModels articles use it")
struct GenerableSeedTypesTests {
    @Test func nestedArgumentsDecodeAndDescribeThemselves() throws {
        let arguments = try BreadDatabaseLookup.Arguments(GeneratedContent(json: #"{"searchTerm": "sourdough", "limit": 3}"#))
        #expect(arguments.searchTerm == "sourdough" && arguments.limit == 3)
        let schema = try jsonObject(BreadDatabaseLookup.Arguments.generationSchema.jsonSchemaString)
        #expect(schema["title"] as? String == "Arguments")
        let limit = (schema["properties"] as? [String: NSDictionary])?["limit"]
        #expect(limit == ["type": "integer", "minimum": 1, "maximum": 6, "description": "The number of recipes to get"])
    }

    @Test func optionalGuidedLetProperty() throws {
        let schema = try jsonObject(RemindersLookup.Arguments.generationSchema.jsonSchemaString)
        #expect(schema["required"] as? [String] == ["status"])
        let count = (schema["properties"] as? [String: NSDictionary])?["count"]
        #expect(count?["maximum"] as? Int == 10)
        let withCount = try RemindersLookup.Arguments(GeneratedContent(json: #"{"status": "all", "count": 4}"#))
        #expect(withCount.count == 4)
        let without = try RemindersLookup.Arguments(GeneratedContent(json: #"{"status": "completed"}"#))
        #expect(without.count == nil)
        #expect(without.generatedContent.jsonString == #"{"status": "completed"}"#)
    }

    @Test func generableAndCodableTogether() throws {
        let output = LocalSearchToolOutput(results: [LocalSearchResultData(name: "Café", address: nil)])
        // The seed reads a tool's structured output back with `value(_:)`.
        let content = GeneratedContent(output)
        let read = try content.value(LocalSearchToolOutput.self)
        #expect(read.results.first?.name == "Café")
        let encoded = try JSONEncoder().encode(read)
        #expect(try JSONDecoder().decode(LocalSearchToolOutput.self, from: encoded).results.count == 1)
    }

    @Test func plannerOutputWithAnIdProperty() throws {
        let plan = try TaskPlan(GeneratedContent(json: """
        {"originalTask": "What is quantum computing?", "strategy": "Research, then summarize.",
         "subtasks": [{"id": 1, "description": "Research", "dependsOn": []},
                      {"id": 2, "description": "Summarize", "dependsOn": [1]}]}
        """))
        #expect(plan.subtasks.map(\.id) == [1, 2])
        // A type with its own `id` keeps it in the partial type.
        let partial = try Subtask.PartiallyGenerated(GeneratedContent(json: #"{"id": 7, "descr"#))
        #expect(partial.id == 7)
        #expect(partial.description == nil)
        let schema = try jsonObject(TaskPlan.generationSchema.jsonSchemaString)
        let subtasks = (schema["properties"] as? [String: NSDictionary])?["subtasks"]
        #expect(subtasks?["minItems"] as? Int == 1)
        #expect(subtasks?["items"] as? NSDictionary == ["$ref": "#/$defs/Subtask"])
    }

    @Test func genericAndPrivateProperties() throws {
        let labeled = try Labeled<[Int]>(GeneratedContent(json: #"{"label": "primes", "value": [2, 3, 5]}"#))
        #expect(labeled.value == [2, 3, 5])
        let schema = try jsonObject(Labeled<Age>.generationSchema.jsonSchemaString)
        #expect(schema["title"] as? String == "Labeled<Age>")
        #expect((schema["properties"] as? [String: NSDictionary])?["value"] == ["$ref": "#/$defs/Age"])
        let secretive = try Secretive(GeneratedContent(json: #"{"code": 42, "name": "x"}"#))
        #expect(secretive.revealed == 42)
        #expect(secretive.generatedContent.jsonString == #"{"code": 42, "name": "x"}"#)
    }

    @Test func alternationPatternsAreAnchoredAsAWhole() throws {
        let schema = try jsonObject(Pet.generationSchema.jsonSchemaString)
        #expect((schema["properties"] as? [String: NSDictionary])?["kind"]?["pattern"] as? String == "^(cat|dog)$")
    }
}
