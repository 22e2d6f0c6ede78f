/// Where optional whitespace may appear in generated JSON.
public enum JSONWhitespace: Sendable {
    /// None at all: a small model cannot wander into endless spaces or newlines. The default.
    case compact
    /// llama.cpp's convention: after every value and punctuation, `"" | " " | "\n"{1,2} [ \t]{0,20}`.
    case flexible
}

/// The JSON building blocks shared by schema rules: strings, numbers, any value, whitespace.
/// Rules are made once per builder and reused, which keeps grammars (and mask caches) small.
struct JSONGrammar {
    typealias Symbol = Grammar.Symbol
    let whitespace: JSONWhitespace
    private var spaceRule: Int?
    private var charRule: Int?
    private var valueRule: Int?
    private var numberRule: Int?
    private var integerRule: Int?
    private var stringRule: Int?
    private var stringTailRule: Int?
    private var nonASCIITailRule: Int?
    private var contentStarRule: Int?
    /// Per scalar class: its JSON-escaped character rule and `class-star` (`countedClassContent`).
    private var classStars: [[ClosedRange<UInt32>]: (Int, Int)] = [:]

    init(whitespace: JSONWhitespace) { self.whitespace = whitespace }

    /// Optional whitespace (nothing when compact).
    mutating func space(_ b: inout GrammarBuilder) -> [Symbol] {
        guard whitespace == .flexible else { return [] }
        if let r = spaceRule { return [.rule(r)] }
        let nl = GrammarBuilder.literal("\n")
        let indent = b.repeated([.bytes(ByteSet(UInt8(ascii: " ")).union(ByteSet(UInt8(ascii: "\t"))))], min: 0, max: 20, name: "indent")
        let r = b.rule("space", [[], GrammarBuilder.literal(" "), b.repeated(nl, min: 1, max: 2, name: "newlines") + indent])
        spaceRule = r
        return [.rule(r)]
    }

    /// A literal followed by optional whitespace.
    mutating func token(_ text: String, _ b: inout GrammarBuilder) -> [Symbol] {
        GrammarBuilder.literal(text) + space(&b)
    }

    /// One character of string content: any scalar but `"`, `\` and controls, or an escape.
    mutating func char(_ b: inout GrammarBuilder) -> [Symbol] {
        if let r = charRule { return [.rule(r)] }
        let id = b.newRule("char")
        // The class alternatives are inlined so a string character is one rule deep (cheaper masks).
        var alts = GrammarBuilder.classAlternatives(UTF8Ranges.complement([0...0x1F, 0x22...0x22, 0x5C...0x5C, 0x7F...0x7F]))
        let hex = b.scalarClass([0x30...0x39, 0x41...0x46, 0x61...0x66])
        let simple = b.scalarClass([0x22...0x22, 0x2F...0x2F, 0x5C...0x5C, 0x62...0x62, 0x66...0x66, 0x6E...0x6E, 0x72...0x72, 0x74...0x74])
        alts.append(GrammarBuilder.literal("\\") + simple)
        // `\u` escapes: one character each, a surrogate pair together (lengths count code points,
        // as JSON Schema does); lone surrogates are not generated.
        let d = b.scalarClass([0x44...0x44, 0x64...0x64])
        let notD = b.scalarClass([0x30...0x39, 0x41...0x43, 0x45...0x46, 0x61...0x63, 0x65...0x66])
        let low8 = b.scalarClass([0x30...0x37])
        let high = b.scalarClass([0x38...0x39, 0x41...0x42, 0x61...0x62])
        let trail = b.scalarClass([0x43...0x46, 0x63...0x66])
        alts.append(GrammarBuilder.literal("\\u") + notD + hex + hex + hex)
        alts.append(GrammarBuilder.literal("\\u") + d + low8 + hex + hex)
        alts.append(GrammarBuilder.literal("\\u") + d + high + hex + hex + GrammarBuilder.literal("\\u") + d + trail + hex + hex)
        b.setAlternatives(id, alts)
        charRule = id
        return [.rule(id)]
    }

    /// A string with a length range in characters (escapes count as one).
    mutating func string(minLength: Int = 0, maxLength: Int? = nil, _ b: inout GrammarBuilder) -> [Symbol] {
        if minLength == 0 && maxLength == nil {
            if let r = stringRule { return [.rule(r)] }
            let r = b.rule("string", [GrammarBuilder.literal("\"") + [.rule(contentStar(&b))] + GrammarBuilder.literal("\"") + space(&b)])
            stringRule = r
            return [.rule(r)]
        }
        let r = b.rule("string", [GrammarBuilder.literal("\"") + countedContent(min: minLength, max: maxLength, &b) + GrammarBuilder.literal("\"") + space(&b)])
        return [.rule(r)]
    }

    /// `chars-star ::= char chars-star | ε`: string content without a bound, one shared rule.
    mutating func contentStar(_ b: inout GrammarBuilder) -> Int {
        if let r = contentStarRule { return r }
        let c = char(&b)
        let r = b.newRule("chars-star")
        b.setAlternatives(r, [c + [.rule(r)], []])
        contentStarRule = r
        return r
    }

    /// Content of `min...max` characters as a chain of rules, one per position:
    /// `chars_i ::= char chars_(i+1)`, with an empty alternative once `min` is reached; the chain
    /// ends after `max` characters or, without a bound, continues as `chars-star`. Each position is
    /// recorded (`Grammar.CountedChain`) so token masks derive it from the unbounded content.
    mutating func countedContent(min: Int, max: Int?, _ b: inout GrammarBuilder) -> [Symbol] {
        let c = char(&b)
        guard case .rule(let charID) = c.first else { return [] }
        return countedContent(min: min, max: max, char: charID, star: contentStar(&b), &b)
    }

    /// Content of `min...max` characters of one scalar class (JSON-escaped where JSON requires),
    /// as `countedContent`, with `class-star ::= class class-star | ε` as the unbounded twin.
    mutating func countedClassContent(_ ranges: [ClosedRange<UInt32>], min: Int, max: Int?, _ b: inout GrammarBuilder) -> [Symbol] {
        let normalized = UTF8Ranges.normalize(ranges)
        if let (charID, star) = classStars[normalized] {
            return countedContent(min: min, max: max, char: charID, star: star, &b)
        }
        let cls = Self.jsonStringClass(normalized, &b)
        let charID: Int
        if cls.count == 1, case .rule(let r) = cls[0] { charID = r } else { charID = b.rule("jchar", [cls]) }
        let star = b.newRule("class-star")
        b.setAlternatives(star, [[.rule(charID), .rule(star)], []])
        classStars[normalized] = (charID, star)
        return countedContent(min: min, max: max, char: charID, star: star, &b)
    }

    private mutating func countedContent(min: Int, max: Int?, char charID: Int, star: Int, _ b: inout GrammarBuilder) -> [Symbol] {
        let c: [Symbol] = [.rule(charID)]
        if max == 0 { return [] }
        if min == 0 && max == nil { return [.rule(star)] }
        let positions = max ?? min
        var next: Int? = max == nil ? star : nil
        for i in stride(from: positions - 1, through: 0, by: -1) {
            let id = b.newRule("chars")
            var alternatives = [c + (next.map { [Symbol.rule($0)] } ?? [])]
            if i >= min { alternatives.append([]) }
            b.setAlternatives(id, alternatives)
            b.countedChains.append(.init(rule: id, consumed: i, min: min, max: max, char: charID, twin: star))
            next = id
        }
        return next.map { [.rule($0)] } ?? []
    }

    /// The rest of a string after some content: any characters, then the closing quote. One shared
    /// rule, so every route that continues freely (a key that left the listed names) reaches the
    /// same states, whose token masks are cached once for all schemas over a vocabulary.
    mutating func stringTail(_ b: inout GrammarBuilder) -> [Symbol] {
        if let r = stringTailRule { return [.rule(r)] }
        let free = b.repeated(char(&b), min: 0, max: nil, name: "string-rest")
        let r = b.rule("string-tail", [free + GrammarBuilder.literal("\"")])
        stringTailRule = r
        return [.rule(r)]
    }

    /// A non-ASCII character (raw or `\u`-escaped), then the string's tail (shared, as `stringTail`).
    mutating func nonASCIITail(_ b: inout GrammarBuilder) -> [Symbol] {
        if let r = nonASCIITailRule { return [.rule(r)] }
        let r = b.rule("non-ascii-tail", [Self.jsonStringClass([0x80...0xD7FF, 0xE000...0x10FFFF], &b) + stringTail(&b)])
        nonASCIITailRule = r
        return [.rule(r)]
    }

    /// A JSON string whose content (decoded) matches `content`: quotes around, whitespace after.
    mutating func quoted(_ content: [Symbol], _ b: inout GrammarBuilder) -> [Symbol] {
        GrammarBuilder.literal("\"") + content + GrammarBuilder.literal("\"") + space(&b)
    }

    /// `-?(0|[1-9][0-9]*)`
    mutating func integer(_ b: inout GrammarBuilder) -> [Symbol] {
        if let r = integerRule { return [.rule(r)] }
        let r = b.rule("integer", IntegerRange.alternatives(lo: nil, hi: nil, &b).map { $0 + space(&b) })
        integerRule = r
        return [.rule(r)]
    }

    /// `-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][-+]?[0-9]+)?`
    mutating func number(_ b: inout GrammarBuilder) -> [Symbol] {
        if let r = numberRule { return [.rule(r)] }
        let digit = Symbol.bytes(ByteSet(range: 0x30...0x39))
        // Unlike integers, a number's integral part may be "-0" ("-0.5").
        let minus = b.repeated(GrammarBuilder.literal("-"), min: 0, max: 1)
        let intPart = minus + b.group(IntegerRange.nonNegative(lo: 0, hi: nil, &b), name: "integral")
        let frac = b.repeated(GrammarBuilder.literal(".") + b.repeated([digit], min: 1, max: nil), min: 0, max: 1, name: "fraction")
        let sign = b.repeated([.bytes(ByteSet(UInt8(ascii: "-")).union(ByteSet(UInt8(ascii: "+"))))], min: 0, max: 1)
        let exp = b.repeated([.bytes(ByteSet(UInt8(ascii: "e")).union(ByteSet(UInt8(ascii: "E"))))] + sign + b.repeated([digit], min: 1, max: nil), min: 0, max: 1, name: "exponent")
        let r = b.rule("number", [intPart + frac + exp + space(&b)])
        numberRule = r
        return [.rule(r)]
    }

    /// Any JSON value.
    mutating func value(_ b: inout GrammarBuilder) -> [Symbol] {
        if let r = valueRule { return [.rule(r)] }
        let id = b.newRule("value")
        valueRule = id
        let v: [Symbol] = [.rule(id)]
        let s = string(&b)
        let member = s + token(":", &b) + v
        let members = member + b.repeated(token(",", &b) + member, min: 0, max: nil, name: "members")
        let object = token("{", &b) + b.repeated(members, min: 0, max: 1) + token("}", &b)
        let elements = v + b.repeated(token(",", &b) + v, min: 0, max: nil, name: "elements")
        let array = token("[", &b) + b.repeated(elements, min: 0, max: 1) + token("]", &b)
        b.setAlternatives(id, [object, array, s, number(&b), token("true", &b), token("false", &b), token("null", &b)])
        return v
    }

    /// Scalars of a regex class inside a JSON string: plain where JSON allows them raw, as escapes
    /// where it does not (`"` `\` and control characters).
    static func jsonStringClass(_ ranges: [ClosedRange<UInt32>], _ b: inout GrammarBuilder) -> [Symbol] {
        let normalized = UTF8Ranges.normalize(ranges)
        let forbidden: [ClosedRange<UInt32>] = [0...0x1F, 0x22...0x22, 0x5C...0x5C]
        let plain = intersect(normalized, UTF8Ranges.complement(forbidden))
        var alts: [[Symbol]] = []
        if !plain.isEmpty {
            alts += GrammarBuilder.classAlternatives(plain)
        }
        func contains(_ v: UInt32) -> Bool { normalized.contains { $0.contains(v) } }
        let short: [UInt32: String] = [0x22: "\\\"", 0x5C: "\\\\", 0x0A: "\\n", 0x0D: "\\r", 0x09: "\\t", 0x08: "\\b", 0x0C: "\\f"]
        for v in UInt32(0)...0x5C where (v < 0x20 || v == 0x22 || v == 0x5C) && contains(v) {
            if let s = short[v] {
                alts.append(GrammarBuilder.literal(s))
            } else {
                let hex = String(v, radix: 16)
                alts.append(GrammarBuilder.literal("\\u" + String(repeating: "0", count: 4 - hex.count) + hex))
            }
        }
        // Non-ASCII characters may also come `\u`-escaped (Python's json.dumps writes them so), when
        // the class takes every one of them: the escape's value is then never outside the class.
        func covers(_ r: ClosedRange<UInt32>) -> Bool { normalized.contains { $0.lowerBound <= r.lowerBound && $0.upperBound >= r.upperBound } }
        if covers(0x80...0xD7FF) && covers(0xE000...0xFFFF) {
            let hex = b.scalarClass([0x30...0x39, 0x61...0x66])
            let u = GrammarBuilder.literal("\\u")
            alts.append(u + GrammarBuilder.literal("00") + b.scalarClass([0x38...0x39, 0x61...0x66]) + hex)
            alts.append(u + GrammarBuilder.literal("0") + b.scalarClass([0x31...0x39, 0x61...0x66]) + hex + hex)
            alts.append(u + b.scalarClass([0x31...0x39, 0x61...0x63]) + hex + hex + hex)
            alts.append(u + GrammarBuilder.literal("d") + b.scalarClass([0x30...0x37]) + hex + hex)
            alts.append(u + b.scalarClass([0x65...0x66]) + hex + hex + hex)
            if covers(0x10000...0x10FFFF) {
                alts.append(u + GrammarBuilder.literal("d") + b.scalarClass([0x38...0x39, 0x61...0x62]) + hex + hex
                            + u + GrammarBuilder.literal("d") + b.scalarClass([0x63...0x66]) + hex + hex)
            }
        }
        if alts.isEmpty { return [.rule(b.rule("empty-class", []))] }
        return b.group(alts, name: "jchar")
    }

    static func intersect(_ a: [ClosedRange<UInt32>], _ c: [ClosedRange<UInt32>]) -> [ClosedRange<UInt32>] {
        var out: [ClosedRange<UInt32>] = []
        for x in a {
            for y in c {
                let lo = max(x.lowerBound, y.lowerBound), hi = min(x.upperBound, y.upperBound)
                if lo <= hi { out.append(lo...hi) }
            }
        }
        return UTF8Ranges.normalize(out)
    }
}

extension ByteSet {
    func union(_ other: ByteSet) -> ByteSet {
        var s = self
        s.formUnion(other)
        return s
    }
}
