import Foundation
import LocalLMGrammar

/// A JSON Schema validator (draft 2020-12 keywords, draft-7 tuple `items`), written as the oracle
/// for property tests (grammar and real-model) and cross-checked against Python `jsonschema` by
/// SchemaCaseTests.
/// It validates the spec's language, not the grammar's: properties in any order, unlisted members
/// allowed unless `additionalProperties` forbids them, search semantics for `pattern`.
public struct JSONSchemaValidator: Sendable {
    public let root: JSONValue

    public init(root: JSONValue) { self.root = root }

    public func isValid(_ v: JSONValue) -> Bool { validate(v, root, depth: 0) }

    private func resolve(_ ref: String) -> JSONValue? {
        guard ref.hasPrefix("#") else { return nil }
        var node = root
        for part in ref.dropFirst().split(separator: "/") {
            let key = String(part).replacingOccurrences(of: "~1", with: "/").replacingOccurrences(of: "~0", with: "~")
            if let n = node[key] { node = n } else if let a = node.arrayValue, let i = Int(key), a.indices.contains(i) { node = a[i] } else { return nil }
        }
        return node
    }

    private func isInteger(_ v: JSONValue) -> Bool {
        guard case .number(let t) = v, let d = Double(t) else { return false }
        return d.rounded() == d
    }

    private func hasType(_ v: JSONValue, _ t: String) -> Bool {
        switch (t, v) {
        case ("null", .null), ("boolean", .bool), ("number", .number), ("string", .string), ("array", .array), ("object", .object): return true
        case ("integer", _): return isInteger(v)
        default: return false
        }
    }

    private func compare(_ v: JSONValue, _ bound: JSONValue) -> Int? {
        guard case .number(let a) = v, case .number(let b) = bound else { return nil }
        if let x = Int(a), let y = Int(b) { return x < y ? -1 : x > y ? 1 : 0 }
        guard let x = Double(a), let y = Double(b) else { return nil }
        return x < y ? -1 : x > y ? 1 : 0
    }

    private func validate(_ v: JSONValue, _ s: JSONValue, depth: Int) -> Bool {
        if depth > 64 { return false }
        if case .bool(let b) = s { return b }
        guard s.objectMembers != nil else { return false }
        if let ref = s["$ref"]?.stringValue {
            guard let target = resolve(ref), validate(v, target, depth: depth + 1) else { return false }
        }
        switch s["type"] {
        case .string(let t)?: if !hasType(v, t) { return false }
        case .array(let ts)?: if !ts.contains(where: { hasType(v, $0.stringValue ?? "") }) { return false }
        default: break
        }
        if let c = s["const"], c != v { return false }
        if let e = s["enum"]?.arrayValue, !e.contains(v) { return false }
        if let all = s["allOf"]?.arrayValue, !all.allSatisfy({ validate(v, $0, depth: depth + 1) }) { return false }
        if let any = s["anyOf"]?.arrayValue, !any.contains(where: { validate(v, $0, depth: depth + 1) }) { return false }
        if let one = s["oneOf"]?.arrayValue, one.filter({ validate(v, $0, depth: depth + 1) }).count != 1 { return false }
        if let not = s["not"], validate(v, not, depth: depth + 1) { return false }
        switch v {
        case .number:
            if let b = s["minimum"], let c = compare(v, b), c < 0 { return false }
            if let b = s["maximum"], let c = compare(v, b), c > 0 { return false }
            if let b = s["exclusiveMinimum"], let c = compare(v, b), c <= 0 { return false }
            if let b = s["exclusiveMaximum"], let c = compare(v, b), c >= 0 { return false }
            if let m = s["multipleOf"]?.doubleValue, let x = v.doubleValue, m > 0 {
                let q = x / m
                if q.rounded() != q { return false }
            }
        case .string(let str):
            let n = str.unicodeScalars.count
            if let m = s["minLength"]?.integerValue, n < m { return false }
            if let m = s["maxLength"]?.integerValue, n > m { return false }
            if let p = s["pattern"]?.stringValue {
                guard let re = try? NSRegularExpression(pattern: Self.ecmaClasses(p)) else { return false }
                let ns = str as NSString
                if re.firstMatch(in: str, range: NSRange(location: 0, length: ns.length)) == nil { return false }
            }
            if let f = s["format"]?.stringValue, !Self.checkFormat(f, str) { return false }
        case .array(let items):
            if let m = s["minItems"]?.integerValue, items.count < m { return false }
            if let m = s["maxItems"]?.integerValue, items.count > m { return false }
            if s["uniqueItems"] == .bool(true) {
                for i in items.indices { for j in items.indices where j > i { if items[i] == items[j] { return false } } }
            }
            var prefix: [JSONValue] = s["prefixItems"]?.arrayValue ?? []
            var rest: JSONValue? = s["items"]
            if let tuple = s["items"]?.arrayValue { prefix = tuple; rest = s["additionalItems"] }
            for (i, item) in items.enumerated() {
                if i < prefix.count {
                    if !validate(item, prefix[i], depth: depth + 1) { return false }
                } else if let r = rest, !validate(item, r, depth: depth + 1) {
                    return false
                }
            }
        case .object(let members):
            if let m = s["minProperties"]?.integerValue, members.count < m { return false }
            if let m = s["maxProperties"]?.integerValue, members.count > m { return false }
            for r in s["required"]?.arrayValue ?? [] {
                guard let name = r.stringValue, members.contains(where: { $0.0 == name }) else { return false }
            }
            let props = s["properties"]?.objectMembers ?? []
            for (k, value) in members {
                if let ps = props.first(where: { $0.0 == k })?.1 {
                    if !validate(value, ps, depth: depth + 1) { return false }
                } else if let extra = s["additionalProperties"], !validate(value, extra, depth: depth + 1) {
                    return false
                }
            }
        default: break
        }
        return true
    }

    /// ICU's \\d \\w \\s are Unicode-wide; JSON Schema names ECMA-262, where \\d \\w are ASCII and
    /// \\s is a fixed list. Rewrites them (outside and inside classes) to explicit sets.
    public static func ecmaClasses(_ p: String) -> String {
        let space = #"\t\n\x{0B}\f\r \x{A0}\x{1680}\x{2000}-\x{200A}\x{2028}\x{2029}\x{202F}\x{205F}\x{3000}\x{FEFF}"#
        let sets: [Character: (String, String)] = [
            "d": ("0-9", "[^0-9]"), "w": ("A-Za-z0-9_", "[^A-Za-z0-9_]"), "s": (space, "[^" + space + "]"),
        ]
        var out = "", inClass = false, escaped = false
        for c in p {
            if escaped {
                escaped = false
                if let (inner, _) = sets[c] { out += inClass ? inner : "[" + inner + "]"; continue }
                if c.isUppercase, let (_, negated) = sets[Character(c.lowercased())], !inClass {
                    out += negated; continue
                }
                out += "\\" + String(c); continue
            }
            if c == "\\" { escaped = true; continue }
            if c == "[" { inClass = true } else if c == "]" { inClass = false }
            out.append(c)
        }
        return out
    }

    static func checkFormat(_ f: String, _ s: String) -> Bool {
        func full(_ p: String) -> Bool { s.range(of: "^" + p + "$", options: .regularExpression) != nil }
        let time = #"([01][0-9]|2[0-3]):[0-5][0-9]:([0-5][0-9]|60)(\.[0-9]+)?([Zz]|[+-]([01][0-9]|2[0-3]):[0-5][0-9])"#
        func validDate(_ d: Substring) -> Bool {
            let parts = d.split(separator: "-").compactMap { Int($0) }
            guard parts.count == 3 else { return false }
            let (y, m, day) = (parts[0], parts[1], parts[2])
            let leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0
            let days = [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31]
            return (1...12).contains(m) && day >= 1 && day <= days[m - 1]
        }
        switch f {
        case "date": return full(#"[0-9]{4}-[0-9]{2}-[0-9]{2}"#) && validDate(s[...])
        case "time": return full(time)
        case "date-time":
            guard full(#"[0-9]{4}-[0-9]{2}-[0-9]{2}[Tt]"# + time) else { return false }
            return validDate(s.prefix(10))
        case "uuid": return full(#"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}"#)
        default: return true  // unknown formats are annotations
        }
    }
}
