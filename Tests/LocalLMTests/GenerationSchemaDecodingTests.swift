import Foundation
import LocalLM
import LocalLMGrammar
import LocalLMTestSupport
import Testing

/// `GenerationSchema` decoded from JSON Schema that is not in Apple's shape (the schemas people
/// have: `oneOf`, `minLength`, `format`, `definitions`, type lists, open objects) keeps every keyword,
/// and `respond(to:schema:)` holds a real model to all of them.
@Suite("GenerationSchema decoded from real-world JSON Schema", .serialized)
struct GenerationSchemaDecodingTests {
    /// A meeting record in the style of schemas found in the wild (draft 7, written for this test):
    /// every keyword here but `title`, `type`, `properties`, `required` and `additionalProperties: false`
    /// is outside Apple's shape, and the old decoder dropped them silently.
    static let meeting = """
    {"$schema": "http://json-schema.org/draft-07/schema#", "title": "Meeting", "type": "object",
     "definitions": {"person": {"type": "object",
        "properties": {"name": {"type": "string", "minLength": 2, "maxLength": 24},
                       "role": {"enum": ["host", "guest", 0]}},
        "required": ["name", "role"], "additionalProperties": false}},
     "properties": {"topic": {"type": "string", "minLength": 3, "maxLength": 40},
                    "day": {"type": "string", "format": "date"},
                    "minutes": {"type": ["integer", "null"], "multipleOf": 15},
                    "people": {"type": "array", "items": {"$ref": "#/definitions/person"}, "minItems": 1, "maxItems": 3},
                    "status": {"oneOf": [{"const": "planned"}, {"const": "done"}]}},
     "required": ["topic", "day", "people", "status"], "additionalProperties": false}
    """

    static func decode(_ text: String) throws -> GenerationSchema {
        try JSONDecoder().decode(GenerationSchema.self, from: Data(text.utf8))
    }

    @Test func aDocumentOutsideApplesShapeIsKeptWhole() throws {
        let schema = try Self.decode(Self.meeting)
        // Nothing dropped: what the grammar compiles and what encoding writes is the document.
        #expect(try jsonObject(schema.jsonSchemaString) == jsonObject(Self.meeting))
        let encoded = try JSONEncoder().encode(schema)
        #expect(try jsonObject(String(decoding: encoded, as: UTF8.self)) == jsonObject(Self.meeting))
        #expect(try jsonObject(Self.decode(String(decoding: encoded, as: UTF8.self)).jsonSchemaString) == jsonObject(Self.meeting))
    }

    /// One keyword outside Apple's shape anywhere, however deep, keeps the whole document.
    @Test(arguments: [
        #"{"type": "object", "properties": {"a": {"type": "string", "minLength": 4}}, "required": ["a"]}"#,
        #"{"type": "object", "properties": {"a": {"type": "array", "items": {"type": "integer", "exclusiveMinimum": 0}}}}"#,
        #"{"type": "object", "properties": {"a": {"type": "string"}}, "additionalProperties": true}"#,
        #"{"type": "object", "properties": {"a": {"enum": [1, 2]}}}"#,
        #"{"type": ["string", "null"]}"#,
        ##"{"$defs": {"A": {"type": "string", "format": "email"}}, "$ref": "#/$defs/A"}"##,
        #"{"anyOf": [{"type": "string"}, {"type": "integer", "minimum": 1, "multipleOf": 2}]}"#,
        ##"{"type": "object", "properties": {"a": {"$ref": "#/properties/b"}, "b": {"type": "integer"}}}"##,
        ##"{"type": "object", "properties": {"a": {"type": "array", "items": {"$ref": "#"}}}}"##,
    ])
    func oneKeywordOutsideKeepsTheDocument(_ text: String) throws {
        #expect(try jsonObject(Self.decode(text).jsonSchemaString) == jsonObject(text))
    }

    /// Documents in Apple's shape still become schema nodes (which write `x-order` and close
    /// objects, so their text differs from the input).
    @Test func applesShapeBecomesNodes() throws {
        let text = #"{"type": "object", "title": "P", "properties": {"b": {"type": "integer", "minimum": 1}, "a": {"type": "string"}}, "required": ["a"]}"#
        let schema = try Self.decode(text)
        let written = try jsonObject(schema.jsonSchemaString)
        #expect(written["x-order"] as? [String] == ["a", "b"])
        #expect(written["additionalProperties"] as? Bool == false)
    }

    @Test func aNonObjectDocumentIsADecodingError() {
        #expect(throws: DecodingError.self) { try Self.decode("[1, 2]") }
    }

    /// Greedy SmolLM2 answers with the meeting schema: the grammar holds it to every keyword, so the
    /// value passes the JSON Schema validator (which agrees with Python `jsonschema` on the
    /// JSON-Schema-Test-Suite) on the original document.
    @Test func respondFollowsEveryKeyword() async throws {
        let model = SystemLanguageModel(contentsOf: try TestModels.require(TestModels.smolLM2))
        let session = LanguageModelSession(model: model, instructions: "You write JSON records.")
        let response = try await session.respond(
            to: "Record yesterday's planning meeting with Ada and Grace.", schema: try Self.decode(Self.meeting),
            options: GenerationOptions(samplingMode: .greedy, maximumResponseTokens: 400))
        let value = try JSONValue(parsing: response.content.jsonString)
        let document = try JSONValue(parsing: Self.meeting)
        #expect(JSONSchemaValidator(root: document).isValid(value), "\(response.content.jsonString)")
        // The keywords the old decoder dropped would have let these through.
        #expect(!JSONSchemaValidator(root: document).isValid(try JSONValue(parsing:
            #"{"topic": "x", "day": "2026-12-01", "people": [{"name": "Ada", "role": "host"}], "status": "planned"}"#)))
    }

    /// A keyword the grammar cannot enforce is refused when the response is asked for, with the
    /// grammar's typed error and the keyword's path; the session is untouched and answers again.
    @Test func aRefusedKeywordIsATypedErrorAndTheSessionGoesOn() async throws {
        let model = SystemLanguageModel(contentsOf: try TestModels.require(TestModels.smolLM2))
        let session = LanguageModelSession(model: model)
        let before = session.transcript
        let unique = try Self.decode(#"{"type": "object", "properties": {"tags": {"type": "array", "items": {"type": "string"}, "uniqueItems": true}}}"#)
        do {
            _ = try await session.respond(to: "Tags, please.", schema: unique, options: GenerationOptions(samplingMode: .greedy, maximumResponseTokens: 16))
            Issue.record("uniqueItems was not refused")
        } catch LanguageModelSession.GenerationError.unsupportedGuide(let context) {
            let grammar = try #require(context.underlyingError as? GrammarError)
            #expect(grammar.description.contains("uniqueItems"), "\(grammar)")
            #expect(grammar.description.contains("tags"), "\(grammar)")
        }
        #expect(session.transcript == before)
        #expect(!session.isResponding)
        let again = try await session.respond(to: "Say hi.", options: GenerationOptions(samplingMode: .greedy, maximumResponseTokens: 8))
        #expect(!again.content.isEmpty)
    }
}
