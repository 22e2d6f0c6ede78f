import Foundation
import Testing
import LocalLMTestSupport
@testable import LocalLMGrammar

/// Every .gbnf shipped with llama.cpp (copied to Tests/Fixtures/grammar/gbnf) parses and accepts
/// samples; plus GBNF syntax details and error positions.
@Suite struct GBNFTests {
    static let samples: [String: (pass: [String], fail: [String])] = [
        "json.gbnf": ([#"{"a": [1, -2.5e3, true, null], "b": {"c": "d\n\u00e9"}}"#, "{}", #"{"k":"v"}"#], ["[]", #"{"a":}"#, "{", #"{"a": 01}"#]),
        "json_arr.gbnf": (["[\n1,\n{\"a\": \"b\"}]", "[\n]"], ["[1]", "{}"]),
        "arithmetic.gbnf": (["1+2= 3\n", "x*(y-2)= z\n(1)= 1\n"], ["1+2\n", "= 3\n"]),
        "list.gbnf": (["- one\n- two items\n"], ["- \n", "one\n", "- a"]),
        "chess.gbnf": (["1. e4 e5\n2. Nf3 Nc6\n", "1. d4 d5\n2. c4 dxc4\n3. O-O O-O-O\n"], ["1. e4 e5\n", "1. e9 e5\n2. a3 a4\n"]),
        "japanese.gbnf": (["こんにちは 世界", "カタカナ、ひらがな"], ["hello", "こんにちは  世界"]),
        "english.gbnf": (["Hello, world!", "a b\tc"], ["héllo", "a  b"]),
        "c.gbnf": (["int main(){return 0;}", "float f(int x){y = x*2;while(y<10){y = y+1;}return y;}"], ["int main() {\n  return 0;\n}\n", "int main( {"]),
    ]

    static var files: [String] {
        (try? FileManager.default.contentsOfDirectory(atPath: Fixtures.url("grammar/gbnf").path).filter { $0.hasSuffix(".gbnf") }.sorted()) ?? []
    }

    @Test func allReferenceGrammarsAreHere() { #expect(Self.files.count >= 8) }

    @Test(arguments: files)
    func parsesAndAcceptsSamples(_ file: String) throws {
        let text = String(decoding: try Fixtures.data("grammar/gbnf/" + file), as: UTF8.self)
        let g = try CompiledGrammar(gbnf: text)
        let s = try #require(Self.samples[file], "add samples for \(file)")
        for p in s.pass { #expect(matches(g, p), "\(file) should accept \(p.debugDescription)") }
        for f in s.fail { #expect(!matches(g, f), "\(file) should reject \(f.debugDescription)") }
        // Strings walked out of the grammar are accepted by the matcher.
        var rng = SplitMix64(seed: 3)
        let gen = GrammarGenerator(g.grammar)
        for _ in 0..<20 {
            let bytes = try #require(gen.generate(using: &rng, depthBudget: 8))
            var m = GrammarMatcher(g)
            let ok = m.accept(bytes: bytes) && m.canTerminate
            #expect(ok, "\(file): \(String(decoding: bytes, as: UTF8.self).debugDescription)")
        }
    }

    @Test func jsonGBNFAcceptsWhatJSONSerializationWrites() throws {
        let g = try CompiledGrammar(gbnf: String(decoding: try Fixtures.data("grammar/gbnf/json.gbnf"), as: UTF8.self))
        // (json.gbnf allows no "\/" escape, so no slashes here.)
        let docs: [Any] = [["a": 1, "b": [true, false, NSNull()], "c": ["d": "e \"q\" \\ \u{1F600}\n"]], ["x": [[], [:], 0.25, -3]]]
        for d in docs {
            let text = String(decoding: try JSONSerialization.data(withJSONObject: d, options: [.sortedKeys]), as: UTF8.self)
            #expect(matches(g, text), "\(text)")
        }
    }

    @Test func syntax() throws {
        let g = try CompiledGrammar(gbnf: """
            # comment
            root ::= "x" [a-c]{2,3} ( "y" | "z" )+ [^\\x00-\\x60] "\\u00e9" "\\U0001F600" . end
            end ::= "!"? # trailing comment
            """)
        #expect(matches(g, "xabyzzd\u{e9}\u{1F600}q!"))
        #expect(matches(g, "xcccyd\u{e9}\u{1F600}\u{4e2d}"))
        #expect(!matches(g, "xayd\u{e9}\u{1F600}q"))
        #expect(!matches(g, "xabyA\u{e9}\u{1F600}q"))
    }

    @Test(arguments: [
        ("root ::= \"abc", 1, 10, "unterminated string literal"),
        ("root ::= [a-", 1, 10, "unterminated character class"),
        ("root ::= x\n\nx ::= \"\\q\"", 3, 8, "unknown escape '\\q'"),
        ("root ::= (\"a\"", 1, 14, "expected ')'"),
        ("root ::= <[12]>", 1, 10, "token references are not supported"),
        ("root := \"a\"", 1, 6, "expected ::="),
        ("root ::= \"a\"{3,1}", 1, 13, "repetition maximum below minimum"),
        ("root ::= *", 1, 10, "quantifier without a preceding element"),
    ])
    func errorsHavePositions(_ src: String, _ line: Int, _ column: Int, _ message: String) {
        #expect(throws: GrammarError.gbnf(message: message, line: line, column: column)) { try CompiledGrammar(gbnf: src) }
    }
}
