import Foundation
import LocalLMJSON

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
        var bytes = [UInt8](data)
        // Python's json.loads (through Hugging Face's loaders) tolerates a byte order mark.
        let bom = bytes.starts(with: [0xEF, 0xBB, 0xBF]) ? 3 : 0
        bytes.removeFirst(bom)
        do {
            self = JinjaValue(json: try JSONParser.parse(bytes))
        } catch {
            throw JSONError(message: error.message, offset: error.offset + bom)
        }
    }

    /// The JSON value as Python's `json.loads` gives it: `1` an int, `1.0` or `1e2` a float, and a
    /// repeated key keeps its first place with its last value.
    package init(json: JSONValue) {
        switch json {
        case .null: self = .none
        case .bool(let b): self = .bool(b)
        case .number(let text):
            if !text.contains(where: { $0 == "." || $0 == "e" || $0 == "E" }), let n = Int(text) {
                self = .int(n)
            } else {
                self = .double(Double(text) ?? .nan)
            }
        case .string(let s): self = .string(s)
        case .array(let a): self = .array(a.map(JinjaValue.init(json:)))
        case .object(let members):
            var o = JinjaObject()
            for (k, v) in members { o[k] = JinjaValue(json: v) }
            self = .object(o)
        }
    }

    public init(jsonString: String) throws(JSONError) {
        try self.init(jsonData: Data(jsonString.utf8))
    }

    /// `json.dumps(value, ensure_ascii=…, indent=…, separators=…, sort_keys=…)`.
    /// `indent` is the per-level indent string (nil: one line); separators default as in Python.
    package func json(ensureASCII: Bool = false, indent: String? = nil, separators: (item: String, key: String)? = nil,
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
        JSONValue.writeQuoted(s, ensureASCII: ensureASCII, into: &out)
    }
}
