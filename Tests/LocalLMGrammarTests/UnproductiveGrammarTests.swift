import Testing
@testable import LocalLMGrammar

/// Alternatives that can derive no string are pruned when a grammar is compiled, so the mask never
/// lets a byte into one that `accept` would then refuse. The grammar fuzzer found the first case:
/// a regex with the empty class `[]`, whose mask allowed `Z`, `-` and the bytes of U+FFFD, the last
/// of which `accept` refused.
@Suite struct UnproductiveGrammarTests {
    /// Every byte a token; the mask at each step of the walk along `path` must be exactly the bytes
    /// `accept` takes, and equal `expected` at the start.
    @Test(arguments: [
        ("^Z-\u{FFFD}[]A{3mi\u{0}xLeng]$", "", Set<UInt8>()),
        ("a[]|b", "b", Set([UInt8(ascii: "b")])),
        ("(x[]y)?z", "z", Set([UInt8(ascii: "z")])),
    ])
    func theMaskAllowsOnlyWhatAcceptTakes(regex: String, path: String, expected: Set<UInt8>) throws {
        let tokens = TokenTable(tokenBytes: (0...255).map { [UInt8($0)] } + [[]], endOfGeneration: [256])
        let index = GrammarTokenIndex(grammar: try CompiledGrammar(regex: regex), tokens: tokens)
        var matcher = GrammarMatcher(index)
        var mask = [UInt64](repeating: 0, count: tokens.maskWordCount)
        for (step, next) in ([nil] + Array(path.utf8).map(Optional.some)).enumerated() {
            if let next {
                let taken = matcher.accept(token: Int(next))
                #expect(taken)
            }
            matcher.fillNextTokenBitmask(into: &mask)
            if let (t, inMask, accepted) = matcher.firstDisagreement(with: mask) {
                Issue.record("step \(step): byte \(t) in the mask \(inMask), accepted \(accepted)")
            }
            let allowed = Set((0...255).filter { mask[$0 >> 6] & (1 << UInt64($0 & 63)) != 0 }.map(UInt8.init))
            if step == 0 { #expect(allowed == expected) }
        }
    }
}
