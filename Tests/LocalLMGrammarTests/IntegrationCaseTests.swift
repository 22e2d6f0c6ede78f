import Testing
import LocalLMTestSupport
@testable import LocalLMGrammar

/// llama.cpp's tests/test-grammar-integration.cpp, ported as data by
/// scripts/goldens/grammar_integration_cases.py (schema labels re-checked with Python jsonschema).
@Suite struct IntegrationCaseTests {
    @Test func fixtureIsComplete() throws {
        let cases = try GrammarFixtures.integrationCases()
        #expect(cases.count >= 45)
    }

    @Test(arguments: GrammarFixtures.integrationCasesOrEmpty)
    func passAndFailStrings(_ c: IntegrationCase) throws {
        let grammar: CompiledGrammar
        if c.kind == "gbnf" {
            if c.source.contains("<[") {
                // Token references constrain token ids, not text: refused with a typed error.
                #expect(throws: GrammarError.self) { try CompiledGrammar(gbnf: c.source) }
                return
            }
            grammar = try CompiledGrammar(gbnf: c.source)
        } else {
            var schema = try JSONValue(parsing: c.source)
            if !c.unsupported.isEmpty {
                // Keywords a grammar cannot enforce are refused by name, never ignored.
                let result = Result { () throws(GrammarError) -> CompiledGrammar in
                    try CompiledGrammar(jsonSchema: schema, whitespace: .flexible)
                }
                if case .failure(.unsupportedSchemaFeature(let feature, _)) = result {
                    #expect(c.unsupported.contains(feature))
                } else {
                    Issue.record("expected an unsupported-feature error for \(c.unsupported)")
                }
                schema = stripping(c.unsupported, from: schema)
            }
            grammar = try CompiledGrammar(jsonSchema: schema, whitespace: .flexible)
        }
        for s in c.pass { #expect(matches(grammar, s), "should accept \(s.debugDescription)") }
        for s in c.fail { #expect(!matches(grammar, s), "should reject \(s.debugDescription)") }
    }

    @Test func missingReferenceIsAnErrorWithPosition() {
        let src = "root ::= expr\nexpr ::= term (\"+\" term)*\nterm ::= numero\nnumber ::= [0-9]+"
        #expect(throws: GrammarError.gbnf(message: "undefined rule 'numero'", line: 3, column: 10)) {
            try CompiledGrammar(gbnf: src)
        }
    }

    @Test(arguments: [
        #"root ::= "a" | root "a""#,
        "root ::= asdf\nasdf ::= \"a\" | asdf \"a\"",
        "root ::= asdf\nasdf ::= \"a\" | foo \"b\"\nfoo ::= \"c\" | asdf \"d\" | \"e\"",
        "root ::= asdf\nasdf ::= \"a\" | foo \"b\"\nfoo ::= \"c\" | empty asdf \"d\" | \"e\"\nempty ::= \"blah\" | ",
    ])
    func leftRecursionIsRefused(_ src: String) {
        do {
            _ = try CompiledGrammar(gbnf: src)
            Issue.record("left recursion accepted")
        } catch {
            guard case .leftRecursion = error else { Issue.record("wrong error \(error)"); return }
        }
    }

    @Test func rootSymbols() throws {
        #expect(throws: GrammarError.missingRoot(name: "root")) { try CompiledGrammar(gbnf: "rot ::= \"x\"\n") }
        #expect(throws: GrammarError.missingRoot(name: "nonexistent")) { try CompiledGrammar(gbnf: "root ::= \"foobar\"", root: "nonexistent") }
        let g = try CompiledGrammar(gbnf: "foobar ::= \"foobar\"", root: "foobar")
        #expect(matches(g, "foobar"))
    }
}
