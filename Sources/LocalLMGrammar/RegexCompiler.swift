/// Compiles the regular-expression subset JSON Schema patterns and `@Guide(pattern)` use:
/// literals, `.`, classes `[...]`/`[^...]` with ranges, escapes `\d \w \s \D \W \S \t \n \r \f \v
/// \xHH \uHHHH` and escaped punctuation, groups `( )` `(?: )` `(?<name> )`, alternation, quantifiers
/// `* + ? {m} {m,} {m,n}` (lazy forms behave like greedy ones: a grammar has no match preference),
/// and anchors `^ $` at the ends. The pattern always matches the whole text, anchored or not (as
/// llama.cpp does for schema patterns). Anything else (backreferences, lookaround, `\b`) is an error
/// with the pattern offset. Classes follow ECMA-262, the dialect JSON Schema names.
struct RegexCompiler {
    indirect enum Node {
        case scalars([ClosedRange<UInt32>])
        case sequence([Node])
        case alternation([Node])
        case repeated(Node, min: Int, max: Int?)
    }

    private let pattern: [Unicode.Scalar]
    private var i = 0

    init(_ pattern: String) { self.pattern = Array(pattern.unicodeScalars) }

    static func parse(_ pattern: String) throws(GrammarError) -> Node {
        var c = RegexCompiler(pattern)
        let node = try c.parseAlternation(topLevel: true)
        if c.i < c.pattern.count { throw GrammarError.regex(message: "unmatched ')'", offset: c.i) }
        return node
    }

    private func fail(_ message: String, _ offset: Int? = nil) -> GrammarError {
        .regex(message: message, offset: offset ?? i)
    }

    private var atEnd: Bool { i >= pattern.count }
    private var cur: Unicode.Scalar { pattern[i] }

    private mutating func parseAlternation(topLevel: Bool) throws(GrammarError) -> Node {
        var alts: [Node] = [try parseSequence(topLevel: topLevel)]
        while !atEnd && cur == "|" {
            i += 1
            alts.append(try parseSequence(topLevel: topLevel))
        }
        return alts.count == 1 ? alts[0] : .alternation(alts)
    }

    private mutating func parseSequence(topLevel: Bool) throws(GrammarError) -> Node {
        var items: [Node] = []
        let start = i
        while !atEnd && cur != "|" && cur != ")" {
            let c = cur
            let here = i
            if c == "^" {
                // Only where it cannot mean anything but "start of text".
                guard topLevel && here == start else { throw fail("'^' is only supported at the start of the pattern") }
                i += 1
                continue
            }
            if c == "$" {
                i += 1
                guard topLevel && (atEnd || cur == "|") else { throw fail("'$' is only supported at the end of the pattern", here) }
                continue
            }
            var atom = try parseAtom()
            atom = try parseQuantifiers(atom)
            items.append(atom)
        }
        return items.count == 1 ? items[0] : .sequence(items)
    }

    private mutating func parseQuantifiers(_ atom: Node) throws(GrammarError) -> Node {
        var node = atom
        while !atEnd {
            let here = i
            var lo = 0, hi: Int? = nil
            switch cur {
            case "*": i += 1
            case "+": lo = 1; i += 1
            case "?": hi = 1; i += 1
            case "{":
                guard let (a, b) = try parseBraces() else { return node }  // a literal '{'
                lo = a; hi = b
            default: return node
            }
            if !atEnd && cur == "?" { i += 1 }  // lazy: same language
            if !atEnd && cur == "+" { throw fail("possessive quantifiers are not supported") }
            if let h = hi, h < lo { throw fail("repetition maximum below minimum", here) }
            if max(lo, hi ?? lo) > GrammarBuilder.maxRepetition { throw fail("repetition count above \(GrammarBuilder.maxRepetition)", here) }
            node = .repeated(node, min: lo, max: hi)
        }
        return node
    }

    /// `{m}`, `{m,}`, `{m,n}`; nil (position unchanged) when the brace is not a quantifier.
    private mutating func parseBraces() throws(GrammarError) -> (Int, Int?)? {
        let save = i
        i += 1
        func number(_ c: inout RegexCompiler) -> Int? {
            var v = 0, digits = 0
            while !c.atEnd, let d = c.cur.properties.numericType != nil ? Int(String(c.cur)) : nil, c.cur.isASCII {
                v = min(v * 10 + d, 1_000_000); digits += 1; c.i += 1
            }
            return digits > 0 ? v : nil
        }
        guard let lo = number(&self) else { i = save; return nil }
        var hi: Int? = lo
        if !atEnd && cur == "," {
            i += 1
            hi = number(&self)
        }
        guard !atEnd && cur == "}" else { i = save; return nil }
        i += 1
        return (lo, hi)
    }

    private mutating func parseAtom() throws(GrammarError) -> Node {
        let here = i
        let c = cur
        switch c {
        case "(":
            i += 1
            if !atEnd && cur == "?" {
                i += 1
                guard !atEnd else { throw fail("unfinished group", here) }
                if cur == ":" {
                    i += 1
                } else if cur == "<" || (cur == "P" && i + 1 < pattern.count && pattern[i + 1] == "<") {
                    if cur == "P" { i += 1 }
                    if i + 1 < pattern.count && (pattern[i + 1] == "=" || pattern[i + 1] == "!") {
                        throw fail("lookbehind is not supported", here)
                    }
                    while !atEnd && cur != ">" { i += 1 }
                    guard !atEnd else { throw fail("unfinished group name", here) }
                    i += 1
                } else if cur == "=" || cur == "!" {
                    throw fail("lookahead is not supported", here)
                } else {
                    throw fail("unsupported group syntax", here)
                }
            }
            let inner = try parseAlternation(topLevel: false)
            guard !atEnd && cur == ")" else { throw fail("missing ')'", here) }
            i += 1
            return inner
        case ")": throw fail("unmatched ')'")
        case "[":
            return .scalars(try parseClass())
        case ".":
            i += 1
            return .scalars(UTF8Ranges.complement([0x0A...0x0A, 0x0D...0x0D, 0x2028...0x2029]))
        case "\\":
            return .scalars(try parseEscape(inClass: false))
        case "*", "+", "?":
            throw fail("quantifier without a preceding element")
        default:
            i += 1
            return .scalars([c.value...c.value])
        }
    }

    private static let digit: [ClosedRange<UInt32>] = [0x30...0x39]
    private static let word: [ClosedRange<UInt32>] = [0x30...0x39, 0x41...0x5A, 0x5F...0x5F, 0x61...0x7A]
    /// ECMA-262 WhiteSpace and LineTerminator.
    private static let space: [ClosedRange<UInt32>] = [
        0x09...0x0D, 0x20...0x20, 0xA0...0xA0, 0x1680...0x1680, 0x2000...0x200A,
        0x2028...0x2029, 0x202F...0x202F, 0x205F...0x205F, 0x3000...0x3000, 0xFEFF...0xFEFF,
    ]

    /// After a backslash. Returns the scalars it stands for.
    private mutating func parseEscape(inClass: Bool) throws(GrammarError) -> [ClosedRange<UInt32>] {
        let here = i
        i += 1
        guard !atEnd else { throw fail("unfinished escape", here) }
        let e = cur
        i += 1
        switch e {
        case "d": return Self.digit
        case "D": return UTF8Ranges.complement(Self.digit)
        case "w": return Self.word
        case "W": return UTF8Ranges.complement(Self.word)
        case "s": return Self.space
        case "S": return UTF8Ranges.complement(Self.space)
        case "t": return [0x09...0x09]
        case "n": return [0x0A...0x0A]
        case "r": return [0x0D...0x0D]
        case "f": return [0x0C...0x0C]
        case "v": return [0x0B...0x0B]
        case "0": return [0...0]
        case "x", "u":
            let digits = e == "x" ? 2 : 4
            var v: UInt32 = 0
            for _ in 0..<digits {
                guard !atEnd, cur.isASCII, let d = GBNFParser.hexValue(UInt8(cur.value)) else {
                    throw fail("expected \(digits) hex digits", here)
                }
                v = v << 4 | d
                i += 1
            }
            return [v...v]
        case "b" where inClass: return [0x08...0x08]
        case "b", "B": throw fail("word boundaries are not supported", here)
        default:
            if e.properties.isAlphabetic || e.properties.numericType != nil {
                throw fail("unsupported escape '\\\(e)'", here)
            }
            return [e.value...e.value]  // escaped punctuation stands for itself
        }
    }

    private mutating func parseClass() throws(GrammarError) -> [ClosedRange<UInt32>] {
        let here = i
        i += 1
        var negated = false
        if !atEnd && cur == "^" { negated = true; i += 1 }
        var ranges: [ClosedRange<UInt32>] = []
        while !atEnd && cur != "]" {
            let lo: [ClosedRange<UInt32>]
            if cur == "\\" { lo = try parseEscape(inClass: true) } else { lo = [cur.value...cur.value]; i += 1 }
            // A range needs single scalars on both sides; `-` first or last is literal.
            if lo.count == 1, lo[0].lowerBound == lo[0].upperBound, !atEnd, cur == "-",
               i + 1 < pattern.count, pattern[i + 1] != "]" {
                i += 1
                let hiSet: [ClosedRange<UInt32>]
                if cur == "\\" { hiSet = try parseEscape(inClass: true) } else { hiSet = [cur.value...cur.value]; i += 1 }
                guard hiSet.count == 1, hiSet[0].lowerBound == hiSet[0].upperBound else {
                    throw fail("class range ends in a class escape", here)
                }
                guard lo[0].lowerBound <= hiSet[0].lowerBound else { throw fail("class range is backwards", here) }
                ranges.append(lo[0].lowerBound...hiSet[0].lowerBound)
            } else {
                ranges += lo
            }
        }
        guard !atEnd else { throw fail("missing ']'", here) }
        i += 1
        return negated ? UTF8Ranges.complement(ranges) : ranges
    }
}

extension RegexCompiler.Node {
    /// Lowers to grammar symbols. With `jsonString`, the text is the inside of a JSON string
    /// literal: `"` and `\` appear escaped, control characters as JSON escapes.
    func emit(_ b: inout GrammarBuilder, jsonString: Bool) -> [Grammar.Symbol] {
        switch self {
        case .scalars(let ranges):
            guard jsonString else { return b.scalarClass(ranges) }
            return JSONGrammar.jsonStringClass(ranges, &b)
        case .sequence(let items):
            return items.flatMap { $0.emit(&b, jsonString: jsonString) }
        case .alternation(let alts):
            return b.group(alts.map { $0.emit(&b, jsonString: jsonString) }, name: "alt")
        case .repeated(let node, let lo, let hi):
            return b.repeated(node.emit(&b, jsonString: jsonString), min: lo, max: hi)
        }
    }
}

extension CompiledGrammar {
    /// Compiles a regular expression that must match the whole generated text.
    public convenience init(regex pattern: String) throws(GrammarError) {
        let node = try RegexCompiler.parse(pattern)
        var b = GrammarBuilder()
        let root = b.newRule("root")
        let body = node.emit(&b, jsonString: false)
        b.setAlternatives(root, [body])
        try self.init(b.build(root: root))
    }
}
