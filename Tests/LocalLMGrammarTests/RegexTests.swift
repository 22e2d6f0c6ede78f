import Foundation
import Testing
import LocalLMTestSupport
@testable import LocalLMGrammar

/// Regex subset: strings generated from the compiled grammar must fully match under
/// NSRegularExpression, and mutations of them must agree with it both ways.
@Suite struct RegexTests {
    static let patterns: [String] = [
        #"^[a-z]+@[a-z]+\.(com|org)$"#, #"\d{3}-\d{4}"#, #"(?:ab|cd)*e?"#, #"[^\s,]+(,[^\s,]+){0,3}"#,
        #"\w+\s\W"#, #"[A-F0-9]{2}(:[A-F0-9]{2}){5}"#, #"a.c"#, #"x{2,}y{,}"#, #"(\.|\\|\[|\])+"#, #"[\u00e0-\u00ff]+é"#,
        #"colou?r|colr"#, #"((a|b)c){1,2}?d+?"#, #"[-a-c]+[x-]"#, #"\x41\u0042[\d\s]"#, #"(?<year>\d{4})-\d\d"#,
    ]

    static func fullMatch(_ re: NSRegularExpression, _ s: String) -> Bool {
        re.firstMatch(in: s, range: NSRange(location: 0, length: (s as NSString).length)) != nil
    }

    @Test(arguments: patterns)
    func agreesWithNSRegularExpression(_ pattern: String) throws {
        let g = try CompiledGrammar(regex: pattern)
        // ICU needs '{' literal escaped in "y{,}" and ECMA classes for \d \w \s.
        let icu = JSONSchemaValidator.ecmaClasses(pattern.replacingOccurrences(of: "y{,}", with: #"y\{,\}"#))
        let re = try NSRegularExpression(pattern: #"\A(?:"# + icu + #")\z"#)
        var rng = SplitMix64(seed: 11)
        let gen = GrammarGenerator(g.grammar)
        for _ in 0..<30 {
            let bytes = try #require(gen.generate(using: &rng))
            let s = try #require(String(validating: bytes, as: UTF8.self))
            #expect(Self.fullMatch(re, s), "generated \(s.debugDescription) does not match \(pattern)")
            for mutated in [s + "a", String(s.dropLast()), "-" + s, s + "\u{e9}", String(s.dropFirst())] {
                #expect(matches(g, mutated) == Self.fullMatch(re, mutated), "\(mutated.debugDescription) vs \(pattern)")
            }
        }
    }

    @Test(arguments: [
        ("a(b", 1, "missing ')'"), ("ab)", 2, "unmatched ')'"), ("[abc", 0, "missing ']'"), ("a\\b", 1, "word boundaries are not supported"),
        ("(?=x)", 0, "lookahead is not supported"), ("a{3,1}", 1, "repetition maximum below minimum"), ("*a", 0, "quantifier without a preceding element"),
        ("a^b", 1, "'^' is only supported at the start of the pattern"), ("a$b", 1, "'$' is only supported at the end of the pattern"), ("\\1", 0, "unsupported escape '\\1'"),
    ])
    func errorsHaveOffsets(_ pattern: String, _ offset: Int, _ message: String) {
        #expect(throws: GrammarError.regex(message: message, offset: offset)) { try CompiledGrammar(regex: pattern) }
    }

    @Test func schemaErrorsNameFeatureAndPath() {
        #expect(throws: GrammarError.unsupportedSchemaFeature(feature: "uniqueItems", path: "$.properties.tags.uniqueItems")) {
            try CompiledGrammar(jsonSchema: #"{"type":"object","properties":{"tags":{"type":"array","uniqueItems":true}}}"#)
        }
        #expect(throws: GrammarError.unsupportedSchemaFeature(feature: "multipleOf other than an integer in 1...1000", path: "$.items.multipleOf")) {
            try CompiledGrammar(jsonSchema: #"{"type":"array","items":{"type":"number","multipleOf":0.01}}"#)
        }
        #expect(throws: GrammarError.unsupportedSchemaFeature(feature: "not", path: "$.not")) {
            try CompiledGrammar(jsonSchema: #"{"not":{"minLength":2}}"#)
        }
        #expect(throws: GrammarError.schema(message: "$ref target #/$defs/missing not found", path: "$.$ref")) {
            try CompiledGrammar(jsonSchema: ##"{"$ref":"#/$defs/missing"}"##)
        }
        #expect(throws: GrammarError.self) { try CompiledGrammar(jsonSchema: #"{"type": "string""#) }
    }

    @Test func compactJSONHasNoFreeWhitespace() throws {
        let g = try CompiledGrammar(jsonSchema: #"{"type":"object","properties":{"a":{"type":"array","items":{"type":"integer"}}},"required":["a"]}"#)
        #expect(matches(g, #"{"a":[1,2]}"#))
        #expect(!matches(g, #"{"a": [1,2]}"#))
        #expect(!matches(g, #"{"a":[1, 2]}"#))
        #expect(!matches(g, "{\"a\":[1,2]}\n"))
    }
}

@Suite struct HostileInputTests {
    @Test func deepNestingIsAnError() {
        let deep = String(repeating: "(", count: 5000) + "a" + String(repeating: ")", count: 5000)
        #expect(throws: GrammarError.self) { try CompiledGrammar(regex: deep) }
        #expect(throws: GrammarError.self) { try CompiledGrammar(gbnf: "root ::= " + deep.replacingOccurrences(of: "a", with: "\"a\"")) }
    }

    @Test func hugeGrammarsAreAnError() throws {
        // Nested repetitions share their item rule, so they stay linear...
        _ = try CompiledGrammar(regex: "((a{0,4000}){0,4000}){0,4000}")
        // ...but the rule budget still caps what a pattern can ask for.
        #expect(throws: GrammarError.tooLarge(message: "more than 400000 rules")) {
            try CompiledGrammar(regex: String(repeating: "a{0,4000}", count: 101))
        }
    }

    @Test func malformedSchemasAreErrors() {
        for bad in [#"{"type":"object","properties":[]}"#, #"{"enum":{}}"#, #"{"minLength":-1}"#, #"{"type":7}"#, #"{"anyOf":{}}"#, "[1,", #"{"pattern":"(("}"#] {
            #expect(throws: GrammarError.self, "\(bad)") { try CompiledGrammar(jsonSchema: bad) }
        }
    }
}
