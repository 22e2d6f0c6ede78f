import LocalLMJSON
/// Parses llama.cpp's GBNF: `name ::= alternatives` rules, `|`, `( )`, `* + ? {m} {m,} {m,n}`,
/// string literals, `[...]`/`[^...]` classes with `\x \u \U \t \r \n` escapes, `.` and `#` comments.
/// A newline ends a rule except inside parentheses or right after `::=` / `|`.
/// Token references (`<[id]>`, `<name>`) are refused: grammars here are over text, not token ids.
struct GBNFParser {
    typealias Symbol = Grammar.Symbol
    private let src: [UInt8]
    private var i = 0
    private var builder = GrammarBuilder()
    private var ruleIDs: [String: Int] = [:]
    private var defined: Set<String> = []
    /// First reference of each name, to report undefined rules where they are used.
    private var firstUse: [String: Int] = [:]
    private var depth = 0
    /// Parentheses nested deeper than this are refused (the parser recurses on them).
    static let maxNesting = 256

    init(_ source: String) { src = Array(source.utf8) }

    static func parse(_ source: String, root: String = "root") throws(GrammarError) -> Grammar {
        var p = GBNFParser(source)
        return try p.parseGrammar(root: root)
    }

    private func error(_ message: String, at offset: Int? = nil) -> GrammarError {
        let o = min(offset ?? i, src.count)
        var line = 1, lineStart = 0
        for k in 0..<o where src[k] == UInt8(ascii: "\n") { line += 1; lineStart = k + 1 }
        let column = String(decoding: src[lineStart..<o], as: UTF8.self).unicodeScalars.count + 1
        return .gbnf(message: message, line: line, column: column)
    }

    private var atEnd: Bool { i >= src.count }
    private var cur: UInt8 { i < src.count ? src[i] : 0 }

    private static func isWordChar(_ c: UInt8) -> Bool {
        (c >= 0x61 && c <= 0x7A) || (c >= 0x41 && c <= 0x5A) || (c >= 0x30 && c <= 0x39) || c == 0x2D || c == 0x5F
    }

    private mutating func skipSpace(newlines: Bool) {
        while !atEnd {
            let c = cur
            if c == 0x20 || c == 0x09 { i += 1 }
            else if c == UInt8(ascii: "#") { while !atEnd && cur != 0x0A && cur != 0x0D { i += 1 } }
            else if newlines && (c == 0x0A || c == 0x0D) { i += 1 }
            else { break }
        }
    }

    private mutating func ruleID(_ name: String, usedAt offset: Int) -> Int {
        if firstUse[name] == nil && !defined.contains(name) { firstUse[name] = offset }
        if let id = ruleIDs[name] { return id }
        let id = builder.newRule(name)
        ruleIDs[name] = id
        return id
    }

    private mutating func parseName() throws(GrammarError) -> String {
        let start = i
        while !atEnd && Self.isWordChar(cur) { i += 1 }
        guard i > start else { throw error("expected a rule name") }
        return String(decoding: src[start..<i], as: UTF8.self)
    }

    mutating func parseGrammar(root: String) throws(GrammarError) -> Grammar {
        skipSpace(newlines: true)
        while !atEnd {
            let nameStart = i
            let name = try parseName()
            guard !defined.contains(name) else { throw error("rule '\(name)' is defined twice", at: nameStart) }
            skipSpace(newlines: false)
            guard src[i...].starts(with: Array("::=".utf8)) else { throw error("expected ::=") }
            i += 3
            skipSpace(newlines: true)
            let id = ruleID(name, usedAt: nameStart)
            defined.insert(name)
            firstUse[name] = nil
            let alts = try parseAlternatives(nested: false)
            builder.setAlternatives(id, alts)
            if cur == 0x0D { i += 1 }
            if cur == 0x0A { i += 1 } else if !atEnd { throw error("expected end of line") }
            skipSpace(newlines: true)
        }
        for (name, offset) in firstUse.sorted(by: { $0.value < $1.value }) where !defined.contains(name) {
            throw error("undefined rule '\(name)'", at: offset)
        }
        guard let rootID = ruleIDs[root], defined.contains(root) else { throw GrammarError.missingRoot(name: root) }
        return try builder.checkedBuild(root: rootID)
    }

    private mutating func parseAlternatives(nested: Bool) throws(GrammarError) -> [[Symbol]] {
        var alts: [[Symbol]] = [try parseSequence(nested: nested)]
        while cur == UInt8(ascii: "|") {
            i += 1
            skipSpace(newlines: true)
            alts.append(try parseSequence(nested: nested))
        }
        return alts
    }

    private mutating func parseSequence(nested: Bool) throws(GrammarError) -> [Symbol] {
        var seq: [Symbol] = []
        var last: [Symbol]? = nil  // the element a quantifier applies to
        while !atEnd {
            let c = cur
            let elementStart = i
            var element: [Symbol]
            if c == UInt8(ascii: "\"") {
                i += 1
                var bytes: [UInt8] = []
                while !atEnd && cur != UInt8(ascii: "\"") {
                    bytes += Self.utf8(try parseChar())
                }
                guard cur == UInt8(ascii: "\"") else { throw error("unterminated string literal", at: elementStart) }
                i += 1
                element = GrammarBuilder.literal(bytes)
            } else if c == UInt8(ascii: "[") {
                i += 1
                var negated = false
                if cur == UInt8(ascii: "^") { negated = true; i += 1 }
                var ranges: [ClosedRange<UInt32>] = []
                while !atEnd && cur != UInt8(ascii: "]") {
                    let lo = try parseChar()
                    if cur == UInt8(ascii: "-") && i + 1 < src.count && src[i + 1] != UInt8(ascii: "]") {
                        i += 1
                        let hi = try parseChar()
                        guard lo <= hi else { throw error("character range is backwards", at: elementStart) }
                        ranges.append(lo...hi)
                    } else {
                        ranges.append(lo...lo)
                    }
                }
                guard cur == UInt8(ascii: "]") else { throw error("unterminated character class", at: elementStart) }
                i += 1
                element = builder.scalarClass(negated ? UTF8Ranges.complement(ranges) : ranges)
            } else if Self.isWordChar(c) {
                let name = try parseName()
                // A name followed by ::= starts the next rule: this sequence ended at a newline we allowed.
                element = [.rule(ruleID(name, usedAt: elementStart))]
            } else if c == UInt8(ascii: "(") {
                guard depth < Self.maxNesting else { throw error("groups nested deeper than \(Self.maxNesting)") }
                depth += 1
                defer { depth -= 1 }
                i += 1
                skipSpace(newlines: true)
                let alts = try parseAlternatives(nested: true)
                guard cur == UInt8(ascii: ")") else { throw error("expected ')'") }
                i += 1
                element = builder.group(alts)
            } else if c == UInt8(ascii: ".") {
                i += 1
                element = builder.anyScalar()
            } else if c == UInt8(ascii: "<") {
                throw error("token references are not supported")
            } else if c == UInt8(ascii: "*") || c == UInt8(ascii: "+") || c == UInt8(ascii: "?") || c == UInt8(ascii: "{") {
                guard let item = last else { throw error("quantifier without a preceding element") }
                seq.removeLast(item.count)
                let (lo, hi) = try parseQuantifier()
                element = builder.repeated(item, min: lo, max: hi)
                seq += element
                last = nil
                skipSpace(newlines: nested)
                continue
            } else {
                break
            }
            seq += element
            last = element
            skipSpace(newlines: nested)
        }
        return seq
    }

    private mutating func parseQuantifier() throws(GrammarError) -> (Int, Int?) {
        let start = i
        let c = cur
        i += 1
        switch c {
        case UInt8(ascii: "*"): return (0, nil)
        case UInt8(ascii: "+"): return (1, nil)
        case UInt8(ascii: "?"): return (0, 1)
        default: break
        }
        skipSpace(newlines: false)
        let lo = try parseInt()
        skipSpace(newlines: false)
        var hi: Int? = lo
        if cur == UInt8(ascii: ",") {
            i += 1
            skipSpace(newlines: false)
            hi = cur >= 0x30 && cur <= 0x39 ? try parseInt() : nil
            skipSpace(newlines: false)
        }
        guard cur == UInt8(ascii: "}") else { throw error("expected '}'") }
        i += 1
        if let h = hi, h < lo { throw error("repetition maximum below minimum", at: start) }
        if max(lo, hi ?? lo) > GrammarBuilder.maxRepetition {
            throw error("repetition count above \(GrammarBuilder.maxRepetition)", at: start)
        }
        return (lo, hi)
    }

    private mutating func parseInt() throws(GrammarError) -> Int {
        let start = i
        var v = 0
        while !atEnd && cur >= 0x30 && cur <= 0x39 {
            v = v * 10 + Int(cur - 0x30)
            if v > 1_000_000 { throw error("number too large", at: start) }
            i += 1
        }
        guard i > start else { throw error("expected a number") }
        return v
    }

    /// One (possibly escaped) character of a literal or class, as a Unicode scalar value.
    private mutating func parseChar() throws(GrammarError) -> UInt32 {
        let start = i
        if cur == UInt8(ascii: "\\") {
            i += 1
            guard !atEnd else { throw error("unfinished escape", at: start) }
            let e = cur
            i += 1
            switch e {
            case UInt8(ascii: "x"): return try parseHex(2, start)
            case UInt8(ascii: "u"): return try parseHex(4, start)
            case UInt8(ascii: "U"): return try parseHex(8, start)
            case UInt8(ascii: "t"): return 9
            case UInt8(ascii: "r"): return 13
            case UInt8(ascii: "n"): return 10
            case UInt8(ascii: "\\"), UInt8(ascii: "\""), UInt8(ascii: "["), UInt8(ascii: "]"), UInt8(ascii: "-"), UInt8(ascii: "^"):
                return UInt32(e)
            default: throw error("unknown escape '\\\(Character(Unicode.Scalar(e)))'", at: start)
            }
        }
        // Decode one UTF-8 scalar.
        let b0 = cur
        let n = b0 < 0x80 ? 1 : b0 >> 5 == 0b110 ? 2 : b0 >> 4 == 0b1110 ? 3 : b0 >> 3 == 0b11110 ? 4 : 0
        guard n > 0, i + n <= src.count else { throw error("invalid UTF-8", at: start) }
        var v = n == 1 ? UInt32(b0) : UInt32(b0) & (0xFF >> UInt32(n + 1))
        for k in 1..<max(n, 1) where n > 1 {
            let b = src[i + k]
            guard b & 0xC0 == 0x80 else { throw error("invalid UTF-8", at: start) }
            v = v << 6 | UInt32(b & 0x3F)
        }
        i += n
        return v
    }

    private mutating func parseHex(_ digits: Int, _ start: Int) throws(GrammarError) -> UInt32 {
        var v: UInt32 = 0
        for _ in 0..<digits {
            guard !atEnd, let d = Self.hexValue(cur) else { throw error("expected \(digits) hex digits", at: start) }
            v = v << 4 | d
            i += 1
        }
        guard v <= UTF8Ranges.maxScalar else { throw error("escape beyond U+10FFFF", at: start) }
        return v
    }

    static func hexValue(_ c: UInt8) -> UInt32? { JSONParser.hexValue(c) }

    /// UTF-8 bytes of a scalar value (surrogate values, reachable only via escapes, become U+FFFD).
    static func utf8(_ v: UInt32) -> [UInt8] {
        guard let s = Unicode.Scalar(v) else { return [0xEF, 0xBF, 0xBD] }
        return Array(String(Character(s)).utf8)
    }
}

extension CompiledGrammar {
    /// Compiles GBNF text (llama.cpp's grammar format), starting from rule `root`.
    public convenience init(gbnf source: String, root: String = "root") throws(GrammarError) {
        try self.init(GBNFParser.parse(source, root: root))
    }
}
