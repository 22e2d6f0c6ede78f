import Foundation

/// JSON in (keeping object key order, `1` as int and `1.0` as float, as Python's `json.loads`)
/// and out (as Python's `json.dumps`, which Hugging Face's `tojson` calls).
extension JinjaValue {
    /// A JSON document that is not valid, with the byte offset where parsing stopped.
    public struct JSONError: Error, Sendable, CustomStringConvertible {
        public let message: String
        public let offset: Int
        public var description: String { "invalid JSON at byte \(offset): \(message)" }
    }

    /// Decodes JSON keeping object key order.
    public init(jsonData data: Data) throws(JSONError) {
        var parser = JSONParser(bytes: [UInt8](data))
        self = try parser.document()
    }

    public init(jsonString: String) throws(JSONError) {
        try self.init(jsonData: Data(jsonString.utf8))
    }

    /// `json.dumps(value, ensure_ascii=…, indent=…, separators=…, sort_keys=…)`.
    /// `indent` is the per-level indent string (nil: one line); separators default as in Python.
    func json(ensureASCII: Bool = false, indent: String? = nil, separators: (item: String, key: String)? = nil,
              sortKeys: Bool = false) throws(JinjaError) -> String {
        let seps = separators ?? (indent == nil ? (", ", ": ") : (",", ": "))
        var out = ""
        try writeJSON(into: &out, level: 0, ensureASCII: ensureASCII, indent: indent, separators: seps, sortKeys: sortKeys)
        return out
    }

    private func writeJSON(into out: inout String, level: Int, ensureASCII: Bool, indent: String?,
                           separators: (item: String, key: String), sortKeys: Bool) throws(JinjaError) {
        guard level < 512 else { throw JinjaError(.limit, "value nested too deeply for tojson", line: 0) }
        func newline(_ level: Int) {
            guard let indent else { return }
            out += "\n"
            for _ in 0..<level { out += indent }
        }
        switch self {
        case .none: out += "null"
        case .bool(let b): out += b ? "true" : "false"
        case .int(let i): out += String(i)
        case .double(let d):
            if d.isNaN { out += "NaN" } else if d.isInfinite { out += d < 0 ? "-Infinity" : "Infinity" } else { out += d.description }
        case .string(let s), .markup(let s):
            Self.writeJSONString(s, into: &out, ensureASCII: ensureASCII)
        case .array(let a), .tuple(let a):
            if a.isEmpty { out += "[]"; return }
            out += "["
            for (i, v) in a.enumerated() {
                if i > 0 { out += separators.item }
                newline(level + 1)
                try v.writeJSON(into: &out, level: level + 1, ensureASCII: ensureASCII, indent: indent, separators: separators, sortKeys: sortKeys)
            }
            newline(level)
            out += "]"
        case .object(let o):
            if o.isEmpty { out += "{}"; return }
            out += "{"
            // json.dumps turns non-string keys into strings: 1 → "1", True → "true", None → "null".
            var pairs: [(key: String, value: JinjaValue)] = []
            for (k, v) in o.entries {
                switch k {
                case .string(let s), .markup(let s): pairs.append((s, v))
                case .bool(let b): pairs.append((b ? "true" : "false", v))
                case .none: pairs.append(("null", v))
                case .int, .double:
                    var text = ""
                    try k.writeJSON(into: &text, level: level + 1, ensureASCII: false, indent: nil, separators: separators, sortKeys: false)
                    pairs.append((text, v))
                default: throw JinjaError(.type, "keys must be str, int, float, bool or None, not \(k.typeName)", line: 0)
                }
            }
            if sortKeys { pairs.sort { $0.key.unicodeScalars.lexicographicallyPrecedes($1.key.unicodeScalars) } }
            for (i, (k, v)) in pairs.enumerated() {
                if i > 0 { out += separators.item }
                newline(level + 1)
                Self.writeJSONString(k, into: &out, ensureASCII: ensureASCII)
                out += separators.key
                try v.writeJSON(into: &out, level: level + 1, ensureASCII: ensureASCII, indent: indent, separators: separators, sortKeys: sortKeys)
            }
            newline(level)
            out += "}"
        default:
            throw JinjaError(.type, "Object of type \(typeName) is not JSON serializable", line: 0)
        }
    }

    static func writeJSONString(_ s: String, into out: inout String, ensureASCII: Bool) {
        out += "\""
        func hex4(_ v: UInt32) {
            let h = String(v, radix: 16)
            out += "\\u" + String(repeating: "0", count: 4 - h.count) + h
        }
        for c in s.unicodeScalars {
            switch c {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case "\u{08}": out += "\\b"
            case "\u{0C}": out += "\\f"
            default:
                if c.value < 0x20 {
                    hex4(c.value)
                } else if ensureASCII, c.value > 0x7E {
                    if c.value >= 0x10000 {
                        let v = c.value - 0x10000
                        hex4(0xD800 + (v >> 10))
                        hex4(0xDC00 + (v & 0x3FF))
                    } else {
                        hex4(c.value)
                    }
                } else {
                    out.unicodeScalars.append(c)
                }
            }
        }
        out += "\""
    }
}

/// A small strict JSON parser over UTF-8 bytes.
private struct JSONParser {
    let bytes: [UInt8]
    var i = 0
    var depth = 0

    init(bytes: [UInt8]) { self.bytes = bytes }

    func error(_ message: String) -> JinjaValue.JSONError { .init(message: message, offset: i) }

    mutating func skipSpace() {
        while i < bytes.count, bytes[i] == 0x20 || bytes[i] == 0x0A || bytes[i] == 0x0D || bytes[i] == 0x09 { i += 1 }
    }

    mutating func document() throws(JinjaValue.JSONError) -> JinjaValue {
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { i = 3 }
        let v = try value()
        skipSpace()
        guard i == bytes.count else { throw error("trailing characters") }
        return v
    }

    mutating func literal(_ word: String, _ v: JinjaValue) throws(JinjaValue.JSONError) -> JinjaValue {
        let w = Array(word.utf8)
        guard i + w.count <= bytes.count, Array(bytes[i..<i + w.count]) == w else { throw error("unexpected character") }
        i += w.count
        return v
    }

    mutating func value() throws(JinjaValue.JSONError) -> JinjaValue {
        skipSpace()
        guard i < bytes.count else { throw error("unexpected end of input") }
        switch bytes[i] {
        case UInt8(ascii: "{"):
            depth += 1
            defer { depth -= 1 }
            guard depth <= 512 else { throw error("nested too deeply") }
            i += 1
            var o = JinjaObject()
            skipSpace()
            if i < bytes.count, bytes[i] == UInt8(ascii: "}") { i += 1; return .object(o) }
            while true {
                skipSpace()
                guard i < bytes.count, bytes[i] == UInt8(ascii: "\"") else { throw error("expected a string key") }
                let k = try string()
                skipSpace()
                guard i < bytes.count, bytes[i] == UInt8(ascii: ":") else { throw error("expected ':'") }
                i += 1
                o[k] = try value()
                skipSpace()
                guard i < bytes.count else { throw error("unexpected end of input") }
                if bytes[i] == UInt8(ascii: ",") { i += 1; continue }
                if bytes[i] == UInt8(ascii: "}") { i += 1; return .object(o) }
                throw error("expected ',' or '}'")
            }
        case UInt8(ascii: "["):
            depth += 1
            defer { depth -= 1 }
            guard depth <= 512 else { throw error("nested too deeply") }
            i += 1
            var a: [JinjaValue] = []
            skipSpace()
            if i < bytes.count, bytes[i] == UInt8(ascii: "]") { i += 1; return .array(a) }
            while true {
                a.append(try value())
                skipSpace()
                guard i < bytes.count else { throw error("unexpected end of input") }
                if bytes[i] == UInt8(ascii: ",") { i += 1; continue }
                if bytes[i] == UInt8(ascii: "]") { i += 1; return .array(a) }
                throw error("expected ',' or ']'")
            }
        case UInt8(ascii: "\""):
            return .string(try string())
        case UInt8(ascii: "t"): return try literal("true", .bool(true))
        case UInt8(ascii: "f"): return try literal("false", .bool(false))
        case UInt8(ascii: "n"): return try literal("null", .none)
        default:
            return try number()
        }
    }

    mutating func number() throws(JinjaValue.JSONError) -> JinjaValue {
        let start = i
        var isFloat = false
        if i < bytes.count, bytes[i] == UInt8(ascii: "-") { i += 1 }
        let digitsStart = i
        while i < bytes.count, bytes[i] >= 0x30, bytes[i] <= 0x39 { i += 1 }
        guard i > digitsStart else { throw error("unexpected character") }
        if i < bytes.count, bytes[i] == UInt8(ascii: ".") {
            isFloat = true
            i += 1
            let f = i
            while i < bytes.count, bytes[i] >= 0x30, bytes[i] <= 0x39 { i += 1 }
            guard i > f else { throw error("bad number") }
        }
        if i < bytes.count, bytes[i] == UInt8(ascii: "e") || bytes[i] == UInt8(ascii: "E") {
            isFloat = true
            i += 1
            if i < bytes.count, bytes[i] == UInt8(ascii: "+") || bytes[i] == UInt8(ascii: "-") { i += 1 }
            let e = i
            while i < bytes.count, bytes[i] >= 0x30, bytes[i] <= 0x39 { i += 1 }
            guard i > e else { throw error("bad number") }
        }
        let text = String(decoding: bytes[start..<i], as: UTF8.self)
        if !isFloat, let n = Int(text) { return .int(n) }
        guard let d = Double(text) else { throw error("bad number") }
        return .double(d)
    }

    mutating func hex4() throws(JinjaValue.JSONError) -> UInt32 {
        guard i + 4 <= bytes.count, let v = UInt32(String(decoding: bytes[i..<i + 4], as: UTF8.self), radix: 16) else {
            throw error("bad \\u escape")
        }
        i += 4
        return v
    }

    mutating func string() throws(JinjaValue.JSONError) -> String {
        i += 1  // opening quote
        var out = [UInt8]()
        while true {
            guard i < bytes.count else { throw error("unterminated string") }
            let b = bytes[i]
            if b == UInt8(ascii: "\"") { i += 1; break }
            if b < 0x20 { throw error("control character in string") }
            if b != UInt8(ascii: "\\") { out.append(b); i += 1; continue }
            i += 1
            guard i < bytes.count else { throw error("unterminated escape") }
            let e = bytes[i]
            i += 1
            switch e {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): out.append(e)
            case UInt8(ascii: "n"): out.append(0x0A)
            case UInt8(ascii: "r"): out.append(0x0D)
            case UInt8(ascii: "t"): out.append(0x09)
            case UInt8(ascii: "b"): out.append(0x08)
            case UInt8(ascii: "f"): out.append(0x0C)
            case UInt8(ascii: "u"):
                var v = try hex4()
                if v >= 0xD800, v < 0xDC00, i + 6 <= bytes.count, bytes[i] == UInt8(ascii: "\\"), bytes[i + 1] == UInt8(ascii: "u") {
                    let save = i
                    i += 2
                    let lo = try hex4()
                    if lo >= 0xDC00, lo < 0xE000 { v = 0x10000 + ((v - 0xD800) << 10) + (lo - 0xDC00) } else { i = save }
                }
                // A lone surrogate cannot be a Swift String; it becomes U+FFFD.
                out.append(contentsOf: Array(String(Unicode.Scalar(v).map(Character.init) ?? "\u{FFFD}").utf8))
            default:
                throw error("bad escape")
            }
        }
        return String(decoding: out, as: UTF8.self)
    }
}
