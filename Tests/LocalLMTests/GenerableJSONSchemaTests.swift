import Foundation
import LocalLM
import LocalLMTestSupport
import Testing

/// Our JSON Schema output checked by an independent validator, Python `jsonschema`.
///
/// `schema-cases.json` holds, per type, the schema we emit, instances we generate from Swift
/// values (must validate) and hand-written violations (must not). The committed script
/// `scripts/goldens/validate_generable_schemas.py` validates it with `jsonschema` (Draft 2020-12)
/// and writes `schema-cases.validated.json`. This test checks that the fixture is what the code
/// emits today and that Python's verdicts are the expected ones, without needing Python.
/// Rerun after a schema change: `LOCALLM_RECORD_GOLDENS=1 swift test --filter GenerableJSONSchemaTests`,
/// then the script.
@Suite("JSON Schema validated by jsonschema")
struct GenerableJSONSchemaTests {
    struct Case {
        var name: String
        var schema: GenerationSchema
        var valid: [any ConvertibleToGeneratedContent]
        var invalid: [String]
    }

    static var cases: [Case] {
        [
            Case(
                name: "Hedgehog",
                schema: Hedgehog.generationSchema,
                valid: [Hedgehog(name: "Bramble", age: 8, favoriteFood: "leek", home: "a hedge", hobbies: ["a", "b", "c"])],
                invalid: [
                    #"{"name": "B", "age": 9, "favoriteFood": "leek", "home": "a hedge", "hobbies": ["a", "b", "c"]}"#,
                    #"{"name": "B", "age": 1, "favoriteFood": "kale", "home": "a hedge", "hobbies": ["a", "b", "c"]}"#,
                    #"{"name": "B", "age": 1, "favoriteFood": "leek", "home": "a house", "hobbies": ["a", "b", "c"]}"#,
                    #"{"name": "B", "age": 1, "favoriteFood": "leek", "home": "a hedge", "hobbies": ["a", "b"]}"#,
                    #"{"age": 1, "favoriteFood": "leek", "home": "a hedge", "hobbies": ["a", "b", "c"]}"#,
                    #"{"name": "B", "age": 1.5, "favoriteFood": "leek", "home": "a hedge", "hobbies": ["a", "b", "c"]}"#,
                    #"{"name": "B", "age": 1, "favoriteFood": "leek", "home": "a hedge", "hobbies": ["a", "b", "c"], "x": 1}"#,
                ]
            ),
            Case(
                name: "ShelterNewsletter",
                schema: ShelterNewsletter.generationSchema,
                valid: [
                    try! ShelterNewsletter(GeneratedContent(json: #"{"title": "Paws", "topic": "Adoption"}"#)),
                    try! ShelterNewsletter(GeneratedContent(json: """
                    {"title": "Paws", "topic": "Adoption", "sponsor": "Acme", "issueNumber": 3, "tags": ["cats"],
                     "featuredCats": [{"age": {"years": 2, "months": 1}, "name": "Tom", "profile": "Calm."}],
                     "featuredStaff": [{"age": 40, "name": "Ann", "children": [{"name": "Bo", "children": []}]}]}
                    """)),
                ],
                invalid: [
                    #"{"title": "Paws"}"#,
                    #"{"title": "Paws", "topic": "A", "featuredCats": [{"age": {"years": 2}, "name": "Tom", "profile": "x"}]}"#,
                    #"{"title": "Paws", "topic": "A", "featuredStaff": [{"age": 17, "name": "Ann", "children": []}]}"#,
                    #"{"title": "Paws", "topic": "A", "featuredStaff": [{"name": "Ann", "children": [{"name": "a", "children": [{}]}]}]}"#,
                ]
            ),
            Case(
                name: "SearchArguments",
                schema: SearchArguments.generationSchema,
                valid: [
                    SearchArguments(artist: "Nina Simone", limit: 5, years: [1958, 1965], rating: 5, genre: .default, shape: Shape.none),
                    SearchArguments(artist: "X", limit: 1, years: [2030], rating: 0.5, genre: .rock, shape: .point(1, 2)),
                    SearchArguments(artist: "Y", limit: 2, years: [1950], rating: 1, genre: .jazz,
                                    shape: .rectangle(width: 1, height: 2, label: "l")),
                ],
                invalid: [
                    #"{"artist": "X", "limit": 6, "years": [2000], "rating": 1, "genre": "jazz"}"#,
                    #"{"artist": "X", "limit": 1, "years": [], "rating": 1, "genre": "jazz"}"#,
                    #"{"artist": "X", "limit": 1, "years": [1949], "rating": 1, "genre": "jazz"}"#,
                    #"{"artist": "X", "limit": 1, "years": [2000], "rating": 0.25, "genre": "jazz"}"#,
                    #"{"artist": "X", "limit": 1, "years": [2000], "rating": 1, "genre": "pop"}"#,
                    #"{"artist": "X", "limit": 1, "years": [2000], "rating": 1, "genre": "jazz", "shape": "square"}"#,
                    #"{"artist": "X", "limit": 1, "years": [2000], "rating": 1, "genre": "jazz", "shape": {"circle": {}}}"#,
                    #"{"artist": "X9", "limit": 1, "years": [2000], "rating": 1, "genre": "jazz"}"#,
                ]
            ),
            Case(
                name: "DynamicCat",
                schema: try! GenerationSchema(
                    root: DynamicGenerationSchema(name: "Cat", properties: [
                        .init(name: "name", schema: .init(type: String.self)),
                        .init(name: "fur", schema: .init(referenceTo: "Fur"), isOptional: true),
                        .init(name: "kittens", schema: .init(arrayOf: .init(referenceTo: "Cat"), maximumElements: 2)),
                    ]),
                    dependencies: [DynamicGenerationSchema(name: "Fur", anyOf: ["black", "white"])]
                ),
                valid: [GeneratedContent(properties: ["name": "Tom", "fur": "black", "kittens": [
                    GeneratedContent(properties: ["name": "Kit", "kittens": [GeneratedContent]()]),
                ]])],
                invalid: [
                    #"{"name": "Tom", "fur": "grey", "kittens": []}"#,
                    #"{"name": "Tom", "kittens": [{"name": "a", "kittens": []}, {"name": "b", "kittens": []}, {"name": "c", "kittens": []}]}"#,
                ]
            ),
        ]
    }

    static func document() -> String {
        let entries: [any ConvertibleToGeneratedContent] = cases.map { item in
            GeneratedContent(properties: [
                "name": item.name,
                "schema": item.schema.jsonSchema,
                "valid": GeneratedContent(elements: item.valid),
                "invalid": GeneratedContent(elements: item.invalid.map { try! GeneratedContent(json: $0) }),
            ])
        }
        return GeneratedContent(properties: ["cases": GeneratedContent(elements: entries)]).jsonString + "\n"
    }

    @Test func fixtureIsWhatWeEmitAndJSONSchemaAgrees() throws {
        let text = Self.document()
        let url = Fixtures.url("generable/schema-cases.json")
        if ProcessInfo.processInfo.environment["LOCALLM_RECORD_GOLDENS"] == "1" {
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data(text.utf8).write(to: url)
        }
        let committed = try String(decoding: Fixtures.data("generable/schema-cases.json"), as: UTF8.self)
        #expect(committed == text, "schemas changed: rerecord and rerun scripts/goldens/validate_generable_schemas.py")

        let validated = try GeneratedContent(json: String(decoding: Fixtures.data("generable/schema-cases.validated.json"), as: UTF8.self))
        #expect(try validated.value(String.self, forProperty: "source") == committed, "validation is stale: rerun the script")
        let results = try validated.value([GeneratedContent].self, forProperty: "results")
        #expect(results.count == Self.cases.count)
        for (result, item) in zip(results, Self.cases) {
            #expect(try result.value(String.self, forProperty: "name") == item.name)
            #expect(try result.value(Bool.self, forProperty: "schemaIsValid"), "\(item.name): not a valid JSON Schema")
            let valid = try result.value([Bool].self, forProperty: "valid")
            let invalid = try result.value([Bool].self, forProperty: "invalid")
            #expect(valid == Array(repeating: true, count: item.valid.count), "\(item.name): generated instances rejected")
            #expect(invalid == Array(repeating: false, count: item.invalid.count), "\(item.name): violations accepted")
        }
    }
}
