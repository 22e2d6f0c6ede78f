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

    /// The Swift validator (Tests/LocalLMTestSupport), which the property and real-model tests use as
    /// their oracle, agrees with Python jsonschema on every instance, valid and invalid, under the
    /// group's draft (draft-7 groups carry no `$schema`, so the draft is given, not inferred).
    @Test(arguments: SuiteGroup.all)
    func validatorAgreesWithPythonJsonschema(_ g: SuiteGroup) throws {
        let named: JSONSchemaValidator.Draft? = switch g.draft {
        case "draft7": .draft7
        case "draft2020-12": .draft2020_12
        default: nil
        }
        let draft = try #require(named, "unknown draft \(g.draft)")
        let validator = JSONSchemaValidator(root: g.schema, draft: draft)
        for t in g.tests {
            #expect(validator.isValid(t.data) == t.valid,
                    "\(t.description): \(t.data.compactText) is \(t.valid ? "valid" : "invalid") for jsonschema")
        }
    }

    static let escapedPointers = ##"{"$defs": {"tilde~field": {"type": "integer"}, "slash/field": {"type": "integer"}, "percent%field": {"type": "integer"}}, "properties": {"tilde": {"$ref": "#/$defs/tilde~0field"}, "slash": {"$ref": "#/$defs/slash~1field"}, "percent": {"$ref": "#/$defs/percent%25field"}}}"##
    static let quotedPointer = ##"{"properties": {"foo\"bar": {"$ref": "#/$defs/foo%22bar"}}, "$defs": {"foo\"bar": {"type": "number"}}}"##
    static let emptyTokens = ##"{"$defs": {"": {"$defs": {"": {"type": "number"}}}}, "allOf": [{"$ref": "#/$defs//$defs/"}]}"##

    /// (schema, instance, valid) for the pointer tests below.
    static let refPointerCases: [(String, String, Bool)] = [
        (escapedPointers, #"{"slash": "aoeu"}"#, false), (escapedPointers, #"{"tilde": "aoeu"}"#, false),
        (escapedPointers, #"{"percent": "aoeu"}"#, false), (escapedPointers, #"{"slash": 123}"#, true),
        (escapedPointers, #"{"tilde": 123}"#, true), (escapedPointers, #"{"percent": 123}"#, true),
        (quotedPointer, #"{"foo\"bar": 1}"#, true), (quotedPointer, #"{"foo\"bar": "1"}"#, false),
        (emptyTokens, "1", true), (emptyTokens, #""a""#, false),
    ]

    /// `$ref` pointers as the suite's ref.json spells them (the fixture leaves ref.json out, as most
    /// of its groups need `$id`): `~0`/`~1`, percent-encoding, empty tokens. Labels by Python
    /// jsonschema 4.26 (Draft202012Validator).
    @Test(arguments: refPointerCases)
    func validatorResolvesRefPointers(schema: String, instance: String, valid: Bool) throws {
        let validator = JSONSchemaValidator(root: try JSONValue(parsing: schema), draft: .draft2020_12)
        #expect(validator.isValid(try JSONValue(parsing: instance)) == valid)
    }

    /// The grammar resolves the same pointers (the empty tokens included) and accepts exactly the valid
    /// instances.
    @Test(arguments: refPointerCases)
    func grammarResolvesRefPointers(schema: String, instance: String, valid: Bool) throws {
        let options = JSONSchemaOptions(whitespace: .compact, closesUnlistedObjects: false)
        let grammar = try CompiledGrammar(jsonSchema: try JSONValue(parsing: schema), options: options)
        #expect(matches(grammar, try JSONValue(parsing: instance).compactText) == valid)
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
