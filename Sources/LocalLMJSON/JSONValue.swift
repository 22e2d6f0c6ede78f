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
            // Object equality ignores member order (JSON Schema `const`/`enum` semantics). Members are
            // matched as a multiset, each of `y`'s at most once, so that an object with a duplicate key
            // (kept by the parser as written) still equals itself.
            guard x.count == y.count else { return false }
            var used = [Bool](repeating: false, count: y.count)
            for (k, v) in x {
                guard let i = y.indices.first(where: { !used[$0] && y[$0].0 == k && y[$0].1 == v }) else { return false }
                used[i] = true
            }
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
    public var compactText: String { text(.compact) }

    /// The value as JSON text in `style`: the one JSON writer of every layer (grammar literals,
    /// `GeneratedContent.jsonString`, chat templates' `tojson`).
    package func text(_ style: JSONStyle) -> String {
        var out = ""
        write(into: &out, style: style, level: 0)
        return out
    }

    private func write(into out: inout String, style: JSONStyle, level: Int) {
        func newline(_ level: Int) {
            guard let indent = style.indent else { return }
            out += "\n"
            for _ in 0..<level { out += indent }
        }
        switch self {
        case .null: out += "null"
        case .bool(let b): out += b ? "true" : "false"
        case .number(let n): out += n
        case .string(let s): JSONValue.writeQuoted(s, ensureASCII: style.ensureASCII, into: &out)
        case .array(let items):
            guard !items.isEmpty else { out += "[]"; return }
            out += "["
            for (index, item) in items.enumerated() {
                if index > 0 { out += style.itemSeparator }
                newline(level + 1)
                item.write(into: &out, style: style, level: level + 1)
            }
            newline(level)
            out += "]"
        case .object(var members):
            guard !members.isEmpty else { out += "{}"; return }
            if style.sortKeys { members.sort { $0.0.unicodeScalars.lexicographicallyPrecedes($1.0.unicodeScalars) } }
            out += "{"
            for (index, (key, value)) in members.enumerated() {
                if index > 0 { out += style.itemSeparator }
                newline(level + 1)
                JSONValue.writeQuoted(key, ensureASCII: style.ensureASCII, into: &out)
                out += style.keySeparator
                value.write(into: &out, style: style, level: level + 1)
            }
            newline(level)
            out += "}"
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

/// How ``JSONValue/text(_:)`` lays out JSON: Python's `json.dumps` options.
package struct JSONStyle: Sendable {
    package var itemSeparator: String
    package var keySeparator: String
    /// Per-level indent (nil: one line).
    package var indent: String?
    /// Every non-ASCII scalar as `\uXXXX`.
    package var ensureASCII: Bool
    /// Object members sorted by key (by Unicode scalars, as Python sorts str).
    package var sortKeys: Bool

    package init(itemSeparator: String, keySeparator: String, indent: String? = nil, ensureASCII: Bool = false, sortKeys: Bool = false) {
        self.itemSeparator = itemSeparator
        self.keySeparator = keySeparator
        self.indent = indent
        self.ensureASCII = ensureASCII
        self.sortKeys = sortKeys
    }

    /// No whitespace: `{"a":1,"b":[2,3]}`.
    package static let compact = JSONStyle(itemSeparator: ",", keySeparator: ":")
    /// One line with Python's default separators: `{"a": 1, "b": [2, 3]}`.
    package static let spaced = JSONStyle(itemSeparator: ", ", keySeparator: ": ")
}
