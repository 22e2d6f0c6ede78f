/// A JSON document, the one JSON value type of every layer (schemas, grammar tests, tool calls),
/// that keeps object member order (schemas need property order) and number text
/// (integer bounds must be exact beyond 2^53).
public indirect enum JSONValue: Equatable, Sendable {
    case null
    case bool(Bool)
    /// The number as written (validated JSON number syntax).
    case number(String)
    case string(String)
    case array([JSONValue])
    /// Members in document order; duplicate keys are kept as written.
    case object([(String, JSONValue)])

    public static func == (a: JSONValue, b: JSONValue) -> Bool {
        switch (a, b) {
        case (.null, .null): return true
        case let (.bool(x), .bool(y)): return x == y
        case let (.number(x), .number(y)): return JSONValue.numbersEqual(x, y)
        case let (.string(x), .string(y)): return x == y
        case let (.array(x), .array(y)): return x == y
        case let (.object(x), .object(y)):
            // Object equality ignores member order (JSON Schema `const`/`enum` semantics).
            guard x.count == y.count else { return false }
            for (k, v) in x { guard let w = y.first(where: { $0.0 == k })?.1, v == w else { return false } }
            return true
        default: return false
        }
    }

    package static func numbersEqual(_ x: String, _ y: String) -> Bool {
        if let a = Int(exactly: x), let b = Int(exactly: y) { return a == b }
        return Double(x) == Double(y)
    }

    public subscript(key: String) -> JSONValue? {
        if case .object(let members) = self { return members.first { $0.0 == key }?.1 }
        return nil
    }

    public var objectMembers: [(String, JSONValue)]? {
        if case .object(let m) = self { return m }
        return nil
    }

    public var arrayValue: [JSONValue]? {
        if case .array(let a) = self { return a }
        return nil
    }

    public var stringValue: String? {
        if case .string(let s) = self { return s }
        return nil
    }

    public var doubleValue: Double? {
        if case .number(let n) = self { return Double(n) }
        return nil
    }

    /// The exact integer value if the number is integral and fits in Int (`1.0` and `1e2` count).
    public var integerValue: Int? {
        guard case .number(let n) = self else { return nil }
        return Int(exactly: n)
    }

    /// Compact serialization (no whitespace), as used for `const`/`enum` literals.
    public var compactText: String {
        switch self {
        case .null: return "null"
        case .bool(let b): return b ? "true" : "false"
        case .number(let n): return n
        case .string(let s): return JSONValue.quote(s)
        case .array(let a): return "[" + a.map(\.compactText).joined(separator: ",") + "]"
        case .object(let m): return "{" + m.map { JSONValue.quote($0.0) + ":" + $0.1.compactText }.joined(separator: ",") + "}"
        }
    }

    /// `s` as a JSON string literal: the one JSON string escaper of every layer (grammar literals,
    /// GeneratedContent, chat templates' `tojson`, GGUF summaries). `ensureASCII` escapes every
    /// non-ASCII scalar as `\uXXXX` (surrogate pairs above the BMP), as Python's `json.dumps` does.
    package static func quote(_ s: String, ensureASCII: Bool = false) -> String {
        var out = ""
        writeQuoted(s, ensureASCII: ensureASCII, into: &out)
        return out
    }

    /// Appends `s` as a JSON string literal to `out` (see ``quote(_:ensureASCII:)``).
    package static func writeQuoted(_ s: String, ensureASCII: Bool = false, into out: inout String) {
        func hex4(_ v: UInt32) {
            let h = String(v, radix: 16)
            out += "\\u" + String(repeating: "0", count: 4 - h.count) + h
        }
        out += "\""
        for u in s.unicodeScalars {
            switch u {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case "\u{08}": out += "\\b"
            case "\u{0C}": out += "\\f"
            default:
                if u.value < 0x20 {
                    hex4(u.value)
                } else if ensureASCII, u.value > 0x7E {
                    if u.value >= 0x10000 {
                        let v = u.value - 0x10000
                        hex4(0xD800 + (v >> 10))
                        hex4(0xDC00 + (v & 0x3FF))
                    } else {
                        hex4(u.value)
                    }
                } else {
                    out.unicodeScalars.append(u)
                }
            }
        }
        out += "\""
    }
}

extension Int {
    /// Exact integer value of JSON number text, if integral and in range.
    package init?(exactly text: String) {
        if let v = Int(text) { self = v; return }
        // 1.0, 1e3, 2.50e1: fall back to Decimal-free parsing through Double only when exact.
        guard let d = Double(text), d.rounded() == d, abs(d) < 9.0e15 else { return nil }
        self = Int(d)
    }
}
