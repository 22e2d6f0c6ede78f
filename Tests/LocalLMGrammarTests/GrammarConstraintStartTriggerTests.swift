import Testing
@testable import LocalLMGrammar

/// `.lazyFromTrigger`: the grammar matches from the trigger's first byte, and start triggers count
/// only at the start of the output (after whitespace).
@Suite struct GrammarConstraintStartTriggerTests {
    // Tokens: 0 "\n", 1 "{\"", 2 "name", 3 "\":", 4 "\"a\"}", 5 "\"b\"}", 6 "Sure: ", 7 "<call>", 8 "x", 9 EOS,
    // 10 "```json\n", 11 "\n```"
    static let table = TokenTable(
        tokenBytes: ["\n", "{\"", "name", "\":", "\"a\"}", "\"b\"}", "Sure: ", "<call>", "x", "", "```json\n", "\n```"].map { Array($0.utf8) },
        endOfGeneration: [9])
    // A call in three forms, each from its first byte; only the name "a" is allowed.
    static let grammar = #"""
        root ::= "<call>" obj | obj | "```json\n" obj "\n```"
        obj ::= "{\"name\":\"a\"}"
        """#
    static let activation = GrammarConstraint.Activation.lazyFromTrigger(anywhere: ["<call>"], atStart: ["{\"name\""])

    func accept(_ c: inout GrammarConstraint, _ tokens: [Int]) -> [Bool] {
        tokens.map { c.accept(token: $0) }
    }

    @Test func aBareCallAtTheStartIsConstrainedFromItsFirstByte() throws {
        let index = GrammarTokenIndex(grammar: try CompiledGrammar(gbnf: Self.grammar), tokens: Self.table)
        var c = GrammarConstraint(index, activation: Self.activation)
        #expect(accept(&c, [0, 1, 2]) == [true, true, true])
        #expect(!c.isActive)  // `{"name` is not yet the trigger
        #expect(accept(&c, [3]) == [true])
        #expect(c.isActive)
        // The grammar saw `{"name":` and allows only the offered name.
        do { let ok = c.accept(token: 5); #expect(!ok) }
        do { let ok = c.accept(token: 4); #expect(ok) }
        #expect(!c.isActive)
    }

    @Test func theSameTextAfterOtherTextIsFree() throws {
        let index = GrammarTokenIndex(grammar: try CompiledGrammar(gbnf: Self.grammar), tokens: Self.table)
        var c = GrammarConstraint(index, activation: Self.activation)
        #expect(accept(&c, [6, 1, 2, 3, 5]) == [true, true, true, true, true])
        #expect(!c.isActive)
        // An anywhere trigger still opens a call later, and the trigger is part of the grammar.
        #expect(accept(&c, [7]) == [true])
        #expect(c.isActive)
        #expect(accept(&c, [1, 2, 3, 4]) == [true, true, true, true])
        #expect(!c.isActive)
    }

    @Test func aFencedCallAndRollback() throws {
        let index = GrammarTokenIndex(grammar: try CompiledGrammar(gbnf: Self.grammar), tokens: Self.table)
        let fenced = GrammarConstraint.Activation.lazyFromTrigger(anywhere: [], atStart: ["```json\n{\"name\""])
        var c = GrammarConstraint(index, activation: fenced)
        #expect(accept(&c, [10, 1, 2, 3]) == [true, true, true, true])
        #expect(c.isActive)
        do { let ok = c.rollback(1); #expect(ok) }
        #expect(!c.isActive)
        #expect(accept(&c, [3, 4, 11]) == [true, true, true])
        #expect(!c.isActive)
    }

    @Test func aTriggerTheGrammarRefusesIsRejected() throws {
        // The grammar of nothing: every token that would complete a trigger is refused (tools disallowed).
        let index = GrammarTokenIndex(grammar: try CompiledGrammar(Grammar.nothing), tokens: Self.table)
        var c = GrammarConstraint(index, activation: Self.activation)
        #expect(accept(&c, [1, 2]) == [true, true])
        do { let ok = c.accept(token: 3); #expect(!ok) }
        do { let ok = c.accept(token: 8); #expect(ok) }
        do { let ok = c.accept(token: 7); #expect(!ok) }
        #expect(!c.isActive)
    }

    @Test func formsWrapAGrammar() throws {
        let inner = try Grammar(jsonSchema: JSONValue(parsing: #"{"const": 1}"#), whitespace: .compact)
        let wrapped = inner.wrapped(
            in: [[.text("<c>"), .whitespace(maximum: 2), .inner, .text("</c>")], [.inner]],
            repetition: .oneOrMore(separator: [.whitespace(maximum: 1)]))
        let compiled = try CompiledGrammar(wrapped)
        func accepts(_ text: String) -> Bool {
            var m = GrammarMatcher(compiled)
            return m.accept(bytes: Array(text.utf8)) && m.canTerminate
        }
        #expect(accepts("<c>\n 1</c>"))
        #expect(accepts("1\n<c>1</c> 1"))
        #expect(!accepts("<c>   1</c>"))  // three spaces where two are allowed
        #expect(!accepts(""))
        #expect(!accepts("2"))
        let any = try CompiledGrammar(inner.wrapped(in: [[.inner]], repetition: .zeroOrMore(separator: [])))
        let m = GrammarMatcher(any)
        #expect(m.canTerminate)
    }
}
