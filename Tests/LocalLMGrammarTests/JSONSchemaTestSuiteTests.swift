import Foundation
import Testing
import LocalLMTestSupport
@testable import LocalLMGrammar

/// One group of the JSON-Schema-Test-Suite (drafts 7 and 2020-12, the keywords the grammar
/// enforces), each instance labelled by Python jsonschema (scripts/goldens/json_schema_test_suite.py).
struct SuiteGroup: Sendable, CustomTestStringConvertible {
    let draft: String
    let file: String
    let description: String
    let schema: JSONValue
    let tests: [(description: String, data: JSONValue, valid: Bool)]
    var testDescription: String { "\(draft)/\(file): \(description)" }

    static let all: [SuiteGroup] = {
        guard let data = try? Fixtures.data("grammar/json_schema_test_suite.json"),
              let list = try? JSONValue(parsing: String(decoding: data, as: UTF8.self)).arrayValue else { return [] }
        return list.compactMap { g in
            guard let schema = g["schema"] else { return nil }
            return SuiteGroup(
                draft: g["draft"]?.stringValue ?? "?", file: g["file"]?.stringValue ?? "?",
                description: g["description"]?.stringValue ?? "?", schema: schema,
                tests: (g["tests"]?.arrayValue ?? []).compactMap { t in
                    guard let d = t["data"] else { return nil }
                    return (t["description"]?.stringValue ?? "?", d, t["valid"] == .bool(true))
                })
        }
    }()
}

@Suite struct JSONSchemaTestSuiteTests {
    @Test func fixtureIsThere() {
        #expect(SuiteGroup.all.count >= 300)
    }

    /// By default (exact) the grammar never accepts an instance Python jsonschema rejects (when the
    /// schema compiles).
    @Test(arguments: SuiteGroup.all)
    func grammarNeverAcceptsAnInvalidInstance(_ g: SuiteGroup) {
        let options = JSONSchemaOptions(whitespace: .compact, closesUnlistedObjects: false)
        guard let grammar = try? CompiledGrammar(jsonSchema: g.schema, options: options) else { return }
        for t in g.tests where !t.valid {
            #expect(!matches(grammar, t.data.compactText), "accepted invalid: \(t.description) \(t.data.compactText)")
        }
    }

    /// With the opt-in `oneOf` approximation, the invalid instances let through are only ones a
    /// `oneOf` refuses: every other keyword stays exact.
    @Test(arguments: SuiteGroup.all)
    func onlyTheOneOfApproximationLetsInvalidInstancesThrough(_ g: SuiteGroup) {
        let options = JSONSchemaOptions(whitespace: .compact, closesUnlistedObjects: false, approximatesOneOf: true)
        guard let grammar = try? CompiledGrammar(jsonSchema: g.schema, options: options) else { return }
        let hasOneOf = g.schema.compactText.contains("\"oneOf\"")
        for t in g.tests where !t.valid && !hasOneOf {
            #expect(!matches(grammar, t.data.compactText), "accepted invalid: \(t.description) \(t.data.compactText)")
        }
    }
}
