/// A strict RFC 8259 JSON parser for schemas and generated documents. Errors carry the byte offset.
package struct JSONParser {
    private let s: [UInt8]
    private var i = 0
    private var depth = 0
    package static let maxDepth = 512

    package struct Failure: Error, Equatable, Sendable, CustomStringConvertible {
        package let message: String
        package let offset: Int
        package var description: String { "JSON error at byte \(offset): \(message)" }
    }

    package init(_ bytes: [UInt8]) { s = bytes }

    package static func parse(_ text: String) throws(Failure) -> JSONValue {
        try parse(Array(text.utf8))
    }

    package static func parse(_ bytes: [UInt8]) throws(Failure) -> JSONValue {
        var p = JSONParser(bytes)
        p.skipSpace()
        let v = try p.value()
        p.skipSpace()
        guard p.i == p.s.count else { throw Failure(message: "trailing characters", offset: p.i) }
        return v
    }

    private func fail(_ m: String) -> Failure { Failure(message: m, offset: i) }

    private mutating func skipSpace() {
        while i < s.count, s[i] == 0x20 || s[i] == 0x09 || s[i] == 0x0A || s[i] == 0x0D { i += 1 }
    }

    private mutating func literal(_ word: String, _ v: JSONValue) throws(Failure) -> JSONValue {
        let w = Array(word.utf8)
        guard s[i...].starts(with: w) else { throw fail("invalid literal") }
        i += w.count
        return v
    }

    private mutating func value() throws(Failure) -> JSONValue {
        guard i < s.count else { throw fail("unexpected end") }
        switch s[i] {
        case UInt8(ascii: "{"):
            depth += 1
            defer { depth -= 1 }
            guard depth <= Self.maxDepth else { throw fail("nesting too deep") }
            i += 1
            skipSpace()
            var members: [(String, JSONValue)] = []
            if i < s.count && s[i] == UInt8(ascii: "}") { i += 1; return .object(members) }
            while true {
                skipSpace()
                guard i < s.count && s[i] == UInt8(ascii: "\"") else { throw fail("expected a key") }
                let k = try string()
                skipSpace()
                guard i < s.count && s[i] == UInt8(ascii: ":") else { throw fail("expected ':'") }
                i += 1
                skipSpace()
                members.append((k, try value()))
                skipSpace()
                guard i < s.count else { throw fail("unexpected end") }
                if s[i] == UInt8(ascii: ",") { i += 1; continue }
                if s[i] == UInt8(ascii: "}") { i += 1; return .object(members) }
                throw fail("expected ',' or '}'")
            }
        case UInt8(ascii: "["):
            depth += 1
            defer { depth -= 1 }
            guard depth <= Self.maxDepth else { throw fail("nesting too deep") }
            i += 1
            skipSpace()
            var items: [JSONValue] = []
            if i < s.count && s[i] == UInt8(ascii: "]") { i += 1; return .array(items) }
            while true {
                skipSpace()
                items.append(try value())
                skipSpace()
                guard i < s.count else { throw fail("unexpected end") }
                if s[i] == UInt8(ascii: ",") { i += 1; continue }
                if s[i] == UInt8(ascii: "]") { i += 1; return .array(items) }
                throw fail("expected ',' or ']'")
            }
        case UInt8(ascii: "\""): return .string(try string())
        case UInt8(ascii: "t"): return try literal("true", .bool(true))
        case UInt8(ascii: "f"): return try literal("false", .bool(false))
        case UInt8(ascii: "n"): return try literal("null", .null)
        default: return try number()
        }
    }

    private mutating func number() throws(Failure) -> JSONValue {
        let start = i
        func digits(_ p: inout JSONParser) -> Int {
            let a = p.i
            while p.i < p.s.count, p.s[p.i] >= 0x30, p.s[p.i] <= 0x39 { p.i += 1 }
            return p.i - a
        }
        if i < s.count && s[i] == UInt8(ascii: "-") { i += 1 }
        guard i < s.count else { throw fail("expected a value") }
        if s[i] == UInt8(ascii: "0") { i += 1 } else if digits(&self) == 0 { throw fail("expected a value") }
        if i < s.count && s[i] == UInt8(ascii: ".") {
            i += 1
            guard digits(&self) > 0 else { throw fail("expected digits after '.'") }
        }
        if i < s.count && (s[i] == UInt8(ascii: "e") || s[i] == UInt8(ascii: "E")) {
            i += 1
            if i < s.count && (s[i] == UInt8(ascii: "+") || s[i] == UInt8(ascii: "-")) { i += 1 }
            guard digits(&self) > 0 else { throw fail("expected exponent digits") }
        }
        return .number(String(decoding: s[start..<i], as: UTF8.self))
    }

    private mutating func string() throws(Failure) -> String {
        i += 1
        var out: [UInt8] = []
        while true {
            guard i < s.count else { throw fail("unterminated string") }
            let c = s[i]
            if c == UInt8(ascii: "\"") { i += 1; break }
            if c < 0x20 { throw fail("control character in string") }
            if c != UInt8(ascii: "\\") { out.append(c); i += 1; continue }
            i += 1
            guard i < s.count else { throw fail("unterminated escape") }
            let e = s[i]
            i += 1
            switch e {
            case UInt8(ascii: "\""): out.append(0x22)
            case UInt8(ascii: "\\"): out.append(0x5C)
            case UInt8(ascii: "/"): out.append(0x2F)
            case UInt8(ascii: "b"): out.append(0x08)
            case UInt8(ascii: "f"): out.append(0x0C)
            case UInt8(ascii: "n"): out.append(0x0A)
            case UInt8(ascii: "r"): out.append(0x0D)
            case UInt8(ascii: "t"): out.append(0x09)
            case UInt8(ascii: "u"):
                var v = try hex4()
                if v >= 0xD800 && v < 0xDC00, s[i...].starts(with: [0x5C, UInt8(ascii: "u")]) {
                    i += 2
                    let lo = try hex4()
                    if lo >= 0xDC00 && lo < 0xE000 { v = 0x10000 + ((v - 0xD800) << 10) + (lo - 0xDC00) } else { v = 0xFFFD }
                }
                let scalar = Unicode.Scalar(v) ?? "\u{FFFD}"
                out += Array(String(Character(scalar)).utf8)
            default: throw fail("invalid escape")
            }
        }
        guard let text = String(validating: out, as: UTF8.self) else { throw fail("invalid UTF-8 in string") }
        return text
    }

    private mutating func hex4() throws(Failure) -> UInt32 {
        var v: UInt32 = 0
        for _ in 0..<4 {
            guard i < s.count, let d = Self.hexValue(s[i]) else { throw fail("expected 4 hex digits") }
            v = v << 4 | d
            i += 1
        }
        return v
    }

    /// The value of one hex digit (JSON's `\u` escapes, GBNF's `\x`/`\u`), or nil.
    package static func hexValue(_ c: UInt8) -> UInt32? {
        switch c {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): UInt32(c - UInt8(ascii: "0"))
        case UInt8(ascii: "a")...UInt8(ascii: "f"): UInt32(c - UInt8(ascii: "a") + 10)
        case UInt8(ascii: "A")...UInt8(ascii: "F"): UInt32(c - UInt8(ascii: "A") + 10)
        default: nil
        }
    }
}
