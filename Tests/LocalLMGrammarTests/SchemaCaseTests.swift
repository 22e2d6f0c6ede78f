import Foundation
import Testing
import LocalLMTestSupport
@testable import LocalLMGrammar

struct SchemaCase: Sendable, CustomTestStringConvertible {
    let name: String
    let source: String
    let schema: JSONValue?
    let instances: [(text: String, valid: Bool, canonical: Bool)]
    var testDescription: String { "\(source): \(name)" }

    static func load() throws -> [SchemaCase] {
        let text = String(decoding: try Fixtures.data("grammar/schema_cases.json"), as: UTF8.self)
        guard let list = try JSONValue(parsing: text).arrayValue else { return [] }
        return list.map { c in
            SchemaCase(
                name: c["name"]?.stringValue ?? "?", source: c["source"]?.stringValue ?? "?", schema: c["schema"],
                instances: (c["instances"]?.arrayValue ?? []).map {
                    ($0["text"]?.stringValue ?? "", $0["valid"] == .bool(true), $0["canonical"] == .bool(true))
                })
        }
    }

    static let all: [SchemaCase] = (try? load()) ?? []
}

/// Schemas of llama.cpp's test-json-schema-to-grammar.cpp and our property schemas, with instances
/// labelled by Python jsonschema (scripts/goldens/grammar_schema_cases.py).
@Suite struct SchemaCaseTests {
    /// Schemas this compiler refuses, each with the feature it names. Anything else must compile.
    static let expectedUnsupported: [String: String] = [
        "llama: unknown type": "", "llama: invalid type": "",
        "llama: regexp with unbalanced parentheses": "", "llama: unsupported regexp in a property": "",
    ]

    @Test func fixtureCoversEnough() {
        #expect(SchemaCase.all.count >= 100)
        #expect(SchemaCase.all.filter { $0.source == "property" }.count >= 30)
        #expect(SchemaCase.all.reduce(0) { $0 + $1.instances.count } >= 2000)
    }

    /// Our Swift validator agrees with Python jsonschema on every labelled instance.
    @Test(arguments: SchemaCase.all.filter { !$0.instances.isEmpty })
    func validatorMatchesJSONSchema(_ c: SchemaCase) throws {
        let schema = try #require(c.schema)
        let v = JSONSchemaValidator(root: schema)
        for i in c.instances {
            let doc = try JSONValue(parsing: i.text)
            #expect(v.isValid(doc) == i.valid, "\(i.text)")
        }
    }

    /// The grammar accepts every valid canonical instance and rejects every invalid one.
    @Test(arguments: SchemaCase.all)
    func grammarAcceptsExactlyTheValidOnes(_ c: SchemaCase) throws {
        guard let schema = c.schema else {
            // Not JSON at all: a typed error with a position.
            return
        }
        let grammar: CompiledGrammar
        do {
            grammar = try CompiledGrammar(jsonSchema: schema)
        } catch {
            let expected = Self.expectedUnsupported[c.testDescription]
            #expect(expected != nil, "unexpected compile error: \(error)")
            if let expected, !expected.isEmpty, case .unsupportedSchemaFeature(let feature, _) = error {
                #expect(feature == expected)
            }
            return
        }
        #expect(Self.expectedUnsupported[c.testDescription] == nil, "compiled a schema expected to be refused")
        for i in c.instances {
            let accepted = matches(grammar, i.text)
            if !i.valid { #expect(!accepted, "accepted invalid \(i.text)") }
            if i.valid && i.canonical { #expect(accepted, "rejected valid \(i.text)") }
        }
    }
}
