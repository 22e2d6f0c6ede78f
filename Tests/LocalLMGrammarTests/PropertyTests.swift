import Foundation
import Testing
import LocalLMTestSupport
@testable import LocalLMGrammar

/// Strings walked out of each schema's own grammar must be JSON that our validator accepts,
/// and the matcher must accept them (the generator and matcher read the grammar independently).
@Suite struct PropertyTests {
    static let schemas: [SchemaCase] = SchemaCase.all.filter { $0.source == "property" }

    @Test func enoughSchemas() { #expect(Self.schemas.count >= 30) }

    @Test(arguments: schemas)
    func generatedDocumentsValidate(_ c: SchemaCase) throws {
        let schema = try #require(c.schema)
        let grammar = try CompiledGrammar(jsonSchema: schema)
        let gen = GrammarGenerator(grammar.grammar)
        let validator = JSONSchemaValidator(root: schema)
        var rng = SplitMix64(seed: 7)
        for _ in 0..<40 {
            let bytes = try #require(gen.generate(using: &rng))
            let text = try #require(String(validating: bytes, as: UTF8.self), "not UTF-8: \(bytes)")
            let doc = try JSONValue(parsing: text)
            #expect(validator.isValid(doc), "\(text)")
            #expect(matches(grammar, text), "\(text)")
        }
    }

    /// Constrained generation with a random "model" over SmolLM2's real vocabulary: every
    /// completed output is valid JSON for the schema (several seeds).
    @Test(arguments: schemas.filter { ["tool call", "nested", "defs ref", "integer -5..5", "number exclusive", "format date-time", "enum"].contains($0.name) })
    func maskSampledDocumentsValidate(_ c: SchemaCase) throws {
        let table = try #require(TokenFixtures.smolLM2)
        let schema = try #require(c.schema)
        let index = GrammarTokenIndex(grammar: try CompiledGrammar(jsonSchema: schema), tokens: table)
        let validator = JSONSchemaValidator(root: schema)
        var completed = 0
        for seed in UInt64(1)...6 {
            // A uniformly random "model" rarely closes unbounded numbers and strings: allow long walks.
            guard let bytes = sampleWalk(index, seed: seed, maxTokens: 1500) else { continue }
            completed += 1
            let text = try #require(String(validating: bytes, as: UTF8.self))
            #expect(validator.isValid(try JSONValue(parsing: text)), "\(text)")
        }
        #expect(completed >= 3)
    }
}
