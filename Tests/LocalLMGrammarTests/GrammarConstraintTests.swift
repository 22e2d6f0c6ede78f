import Testing
@testable import LocalLMGrammar

/// Lazy activation at a trigger (free text and constrained spans mixed) and required mode.
@Suite struct GrammarConstraintTests {
    // Tokens: 0 "Hi ", 1 "<tool", 2 "_call>", 3 "{\"x\":", 4 "1", 5 "}", 6 "</tool_call>", 7 "oops",
    // 8 "<tool_call>{", 9 "\"x\":2}</tool_call> ok", 10 EOS, 11 "<tool_call>zz"
    static let table = TokenTable(
        tokenBytes: ["Hi ", "<tool", "_call>", "{\"x\":", "1", "}", "</tool_call>", "oops", "<tool_call>{", "\"x\":2}</tool_call> ok", "", "<tool_call>zz"].map { Array($0.utf8) },
        endOfGeneration: [10])
    static let grammar = #"root ::= "{\"x\":" [0-9] "}</tool_call>""#

    func allowed(_ c: inout GrammarConstraint) -> [Int] {
        var mask = [UInt64](repeating: 0, count: Self.table.maskWordCount)
        c.fillNextTokenBitmask(into: &mask)
        return allowedTokens(mask)
    }

    @Test func lazySpanSwitchesOnAtTriggerAndOffWhenComplete() throws {
        let index = GrammarTokenIndex(grammar: try CompiledGrammar(gbnf: Self.grammar), tokens: Self.table)
        var c = GrammarConstraint(index, activation: .lazy(triggers: ["<tool_call>"]))
        #expect(allowed(&c) == Array(0..<12))
        for t in [0, 1, 2] { let ok = c.accept(token: t); #expect(ok) }  // trigger split over two tokens
        #expect(c.isActive)
        #expect(allowed(&c) == [3])
        for t in [3, 4, 5] { let ok = c.accept(token: t); #expect(ok) }
        #expect(allowed(&c) == [6])
        let bad = c.accept(token: 7)
        #expect(!bad)
        let ok = c.accept(token: 6)
        #expect(ok && !c.isActive)
        #expect(allowed(&c) == Array(0..<12))
        // Trigger and part of the span inside one token. A token that would complete the span and
        // run on into free text is refused (the span must end on a token boundary).
        let a = c.accept(token: 8)
        #expect(a && c.isActive)
        let b = c.accept(token: 9)
        #expect(!b && c.isActive)
        // A trigger followed by bytes the grammar refuses is rejected.
        var d = GrammarConstraint(index, activation: .lazy(triggers: ["<tool_call>"]))
        let z = d.accept(token: 11)
        #expect(!z && !d.isActive)
        // Rollback across activation.
        var e = GrammarConstraint(index, activation: .lazy(triggers: ["<tool_call>"]))
        for t in [0, 8] { let ok = e.accept(token: t); #expect(ok) }
        #expect(e.isActive)
        let r = e.rollback(1)
        #expect(r && !e.isActive)
        #expect(allowed(&e) == Array(0..<12))
    }

    @Test func requiredModeEndsWithEOGOnly() throws {
        let index = GrammarTokenIndex(grammar: try CompiledGrammar(gbnf: Self.grammar), tokens: Self.table)
        var c = GrammarConstraint(index)
        #expect(allowed(&c) == [3])
        for t in [3, 4, 5, 6] { let ok = c.accept(token: t); #expect(ok) }
        #expect(allowed(&c) == [10])
        let ok = c.accept(token: 10)
        #expect(ok && c.isCompleted)
    }
}
