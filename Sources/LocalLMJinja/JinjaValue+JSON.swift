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

    /// `json.dumps(value, ensure_ascii=…, indent=…, separators=…, sort_keys=…)`, written by the one JSON
    /// writer (`JSONValue.text`). `indent` is the per-level indent string (nil: one line); separators
    /// default as in Python.
    package func json(ensureASCII: Bool = false, indent: String? = nil, separators: (item: String, key: String)? = nil,
              sortKeys: Bool = false) throws(JinjaError) -> String {
        let seps = separators ?? (indent == nil ? (", ", ": ") : (",", ": "))
        let style = JSONStyle(
            itemSeparator: seps.item, keySeparator: seps.key, indent: indent, ensureASCII: ensureASCII, sortKeys: sortKeys)
        return try jsonValue(level: 0).text(style)
    }

    /// The value as `json.dumps` sees it: numbers as Python prints them (`NaN` and `Infinity`
    /// included, as Python writes them), tuples as arrays, markup as its text, and object keys turned
    /// into strings as Python does (1 → "1", True → "true", None → "null").
    private func jsonValue(level: Int) throws(JinjaError) -> JSONValue {
        guard level < 512 else { throw JinjaError(.limit, "value nested too deeply for tojson", line: 0) }
        switch self {
        case .none: return .null
        case .bool(let b): return .bool(b)
        case .int(let i): return .number(String(i))
        case .double(let d):
            return .number(d.isNaN ? "NaN" : d.isInfinite ? (d < 0 ? "-Infinity" : "Infinity") : d.description)
        case .string(let s), .markup(let s): return .string(s)
        case .array(let a), .tuple(let a):
            var items: [JSONValue] = []
            for v in a { items.append(try v.jsonValue(level: level + 1)) }
            return .array(items)
        case .object(let o):
            var members: [(String, JSONValue)] = []
            for (k, v) in o.entries {
                let key: String
                switch k {
                case .string(let s), .markup(let s): key = s
                case .bool(let b): key = b ? "true" : "false"
                case .none: key = "null"
                case .int, .double:
                    guard case .number(let text) = try k.jsonValue(level: level + 1) else { continue }
                    key = text
                default: throw JinjaError(.type, "keys must be str, int, float, bool or None, not \(k.typeName)", line: 0)
                }
                members.append((key, try v.jsonValue(level: level + 1)))
            }
            return .object(members)
        default:
            throw JinjaError(.type, "Object of type \(typeName) is not JSON serializable", line: 0)
        }
    }
}
