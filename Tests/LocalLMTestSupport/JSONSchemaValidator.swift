import Foundation
import LocalLMGrammar

/// A JSON Schema validator for drafts 7 and 2020-12, written as the oracle for property tests
/// (grammar and real-model) and cross-checked against Python `jsonschema` by SchemaCaseTests and,
/// on the JSON-Schema-Test-Suite, by JSONSchemaTestSuiteTests.
/// It validates the spec's language, not the grammar's: properties in any order, unlisted members
/// allowed unless `additionalProperties` forbids them, search semantics for `pattern`.
/// `$ref` resolves JSON pointers within the root only (no `$id`, `$anchor` or `$dynamicRef`).
public struct JSONSchemaValidator: Sendable {
    /// The drafts whose keywords differ where this validator reads them.
    public enum Draft: Sendable {
        /// Draft 7: tuple `items` with `additionalItems`, `dependencies`, keywords beside `$ref` ignored.
        case draft7
        /// Draft 2020-12: `prefixItems`, `dependentRequired`/`dependentSchemas`, `minContains`/`maxContains`,
        /// `unevaluatedProperties`/`unevaluatedItems`, keywords beside `$ref` applied.
        case draft2020_12
    }

    public let root: JSONValue
    public let draft: Draft

    /// `draft` defaults to the one `root` is written for (`draft(of:)`).
    public init(root: JSONValue, draft: Draft? = nil) {
        self.root = root
        self.draft = draft ?? Self.draft(of: root)
    }

    public func isValid(_ v: JSONValue) -> Bool { validate(v, root, depth: 0) != nil }

    /// The draft a schema is written for, chosen as the golden scripts choose Python's validator
    /// (`validator_for` with a default): the draft `$schema` names, else draft 7 when some `items` is
    /// an array (a tuple, which 2020-12 spells `prefixItems`), else 2020-12. Drafts 4 and 6 count as
    /// draft 7 (draft 4's boolean exclusive bounds are not modelled).
    public static func draft(of root: JSONValue) -> Draft {
        if let uri = root["$schema"]?.stringValue {
            if uri.contains("draft/2020-12") { return .draft2020_12 }
            if ["draft-04", "draft-06", "draft-07"].contains(where: uri.contains) { return .draft7 }
        }
        func usesTupleItems(_ v: JSONValue) -> Bool {
            switch v {
            case .object(let members): return v["items"]?.arrayValue != nil || members.contains { usesTupleItems($0.1) }
            case .array(let a): return a.contains(where: usesTupleItems)
            default: return false
            }
        }
        return usesTupleItems(root) ? .draft7 : .draft2020_12
    }

    /// What a schema that accepted an instance evaluated (the spec's annotations): the members and
    /// elements that `unevaluatedProperties`/`unevaluatedItems` beside it must leave alone.
    private struct Evaluated {
        var properties: Set<String> = []
        var items: Set<Int> = []

        mutating func formUnion(_ other: Evaluated) {
            properties.formUnion(other.properties)
            items.formUnion(other.items)
        }
    }

    /// The node a `#`-fragment JSON pointer names: percent-decoded as a URI fragment first, then split
    /// on every `/` (an empty token is the key ""), then `~1` and `~0` unescaped (RFC 6901 §3, §6).
    private func resolve(_ ref: String) -> JSONValue? {
        guard ref.hasPrefix("#"), let pointer = String(ref.dropFirst()).removingPercentEncoding else { return nil }
        if pointer.isEmpty { return root }
        guard pointer.hasPrefix("/") else { return nil }
        var node = root
        for part in pointer.dropFirst().split(separator: "/", omittingEmptySubsequences: false) {
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

    /// nil when `v` fails `s`; otherwise what `s` evaluated.
    private func validate(_ v: JSONValue, _ s: JSONValue, depth: Int) -> Evaluated? {
        if depth > 64 { return nil }
        if case .bool(let b) = s { return b ? Evaluated() : nil }
        guard s.objectMembers != nil else { return nil }
        var seen = Evaluated()
        if let ref = s["$ref"]?.stringValue {
            guard let target = resolve(ref), let e = validate(v, target, depth: depth + 1) else { return nil }
            // Draft 7: "All other properties in a "$ref" object MUST be ignored."
            if draft == .draft7 { return e }
            seen.formUnion(e)
        }
        switch s["type"] {
        case .string(let t)?: if !hasType(v, t) { return nil }
        case .array(let ts)?: if !ts.contains(where: { hasType(v, $0.stringValue ?? "") }) { return nil }
        default: break
        }
        if let c = s["const"], c != v { return nil }
        if let e = s["enum"]?.arrayValue, !e.contains(v) { return nil }
        guard applyInPlace(v, s, depth: depth, &seen) else { return nil }
        switch v {
        case .number(let n): if !numberIsValid(n, s) { return nil }
        case .string(let str): if !stringIsValid(str, s) { return nil }
        case .array(let items): if !arrayIsValid(items, s, depth: depth, &seen) { return nil }
        case .object(let members): if !objectIsValid(v, members, s, depth: depth, &seen) { return nil }
        default: break
        }
        return seen
    }

    /// The applicators whose subschemas see the instance itself: `allOf`, `anyOf`, `oneOf`, `not`,
    /// `if`/`then`/`else`. Every passing branch counts towards `seen` (so no short cut in `anyOf`).
    private func applyInPlace(_ v: JSONValue, _ s: JSONValue, depth: Int, _ seen: inout Evaluated) -> Bool {
        for sub in s["allOf"]?.arrayValue ?? [] {
            guard let e = validate(v, sub, depth: depth + 1) else { return false }
            seen.formUnion(e)
        }
        if let any = s["anyOf"]?.arrayValue {
            let passed = any.compactMap { validate(v, $0, depth: depth + 1) }
            if passed.isEmpty { return false }
            for e in passed { seen.formUnion(e) }
        }
        if let one = s["oneOf"]?.arrayValue {
            let passed = one.compactMap { validate(v, $0, depth: depth + 1) }
            guard passed.count == 1 else { return false }
            seen.formUnion(passed[0])
        }
        if let not = s["not"], validate(v, not, depth: depth + 1) != nil { return false }
        if let condition = s["if"] {
            if let e = validate(v, condition, depth: depth + 1) {
                seen.formUnion(e)
                if let then = s["then"] {
                    guard let e = validate(v, then, depth: depth + 1) else { return false }
                    seen.formUnion(e)
                }
            } else if let otherwise = s["else"] {
                guard let e = validate(v, otherwise, depth: depth + 1) else { return false }
                seen.formUnion(e)
            }
        }
        return true
    }

    private func numberIsValid(_ n: String, _ s: JSONValue) -> Bool {
        let v = JSONValue.number(n)
        if let b = s["minimum"], let c = compare(v, b), c < 0 { return false }
        if let b = s["maximum"], let c = compare(v, b), c > 0 { return false }
        if let b = s["exclusiveMinimum"], let c = compare(v, b), c <= 0 { return false }
        if let b = s["exclusiveMaximum"], let c = compare(v, b), c >= 0 { return false }
        if case .number(let m)? = s["multipleOf"], !Self.isMultiple(n, of: m) { return false }
        return true
    }

    private func stringIsValid(_ str: String, _ s: JSONValue) -> Bool {
        let n = str.unicodeScalars.count
        if let m = s["minLength"]?.integerValue, n < m { return false }
        if let m = s["maxLength"]?.integerValue, n > m { return false }
        if let p = s["pattern"]?.stringValue, Self.search(p, in: str) != true { return false }
        if let f = s["format"]?.stringValue, !Self.checkFormat(f, str) { return false }
        return true
    }

    private func arrayIsValid(_ items: [JSONValue], _ s: JSONValue, depth: Int, _ seen: inout Evaluated) -> Bool {
        if let m = s["minItems"]?.integerValue, items.count < m { return false }
        if let m = s["maxItems"]?.integerValue, items.count > m { return false }
        if s["uniqueItems"] == .bool(true) {
            for i in items.indices { for j in items.indices where j > i { if items[i] == items[j] { return false } } }
        }
        // The schema of each position: a tuple prefix, then one schema for the rest.
        let prefix: [JSONValue], rest: JSONValue?
        switch draft {
        case .draft7:
            if let tuple = s["items"]?.arrayValue {
                (prefix, rest) = (tuple, s["additionalItems"])
            } else {
                (prefix, rest) = ([], s["items"])
            }
        case .draft2020_12:
            (prefix, rest) = (s["prefixItems"]?.arrayValue ?? [], s["items"])
        }
        for (i, item) in items.enumerated() {
            guard let sub = i < prefix.count ? prefix[i] : rest else { continue }
            if validate(item, sub, depth: depth + 1) == nil { return false }
            seen.items.insert(i)
        }
        if let contains = s["contains"] {
            let matches = items.indices.filter { validate(items[$0], contains, depth: depth + 1) != nil }
            let least = draft == .draft2020_12 ? s["minContains"]?.integerValue ?? 1 : 1
            if matches.count < least { return false }
            if draft == .draft2020_12, let most = s["maxContains"]?.integerValue, matches.count > most { return false }
            seen.items.formUnion(matches)
        }
        if draft == .draft2020_12, let unevaluated = s["unevaluatedItems"] {
            for i in items.indices where !seen.items.contains(i) {
                if validate(items[i], unevaluated, depth: depth + 1) == nil { return false }
            }
            seen.items.formUnion(items.indices)
        }
        return true
    }

    private func objectIsValid(
        _ v: JSONValue, _ members: [(String, JSONValue)], _ s: JSONValue, depth: Int, _ seen: inout Evaluated
    ) -> Bool {
        if let m = s["minProperties"]?.integerValue, members.count < m { return false }
        if let m = s["maxProperties"]?.integerValue, members.count > m { return false }
        func has(_ name: JSONValue) -> Bool { members.contains { $0.0 == name.stringValue } }
        if !(s["required"]?.arrayValue ?? []).allSatisfy(has) { return false }
        let props = s["properties"]?.objectMembers ?? []
        let patterns = s["patternProperties"]?.objectMembers ?? []
        for (k, value) in members {
            var listed = false
            if let ps = props.first(where: { $0.0 == k })?.1 {
                if validate(value, ps, depth: depth + 1) == nil { return false }
                listed = true
            }
            for (p, ps) in patterns {
                // A pattern that does not compile fails the instance, as `pattern` does.
                guard let found = Self.search(p, in: k) else { return false }
                guard found else { continue }
                if validate(value, ps, depth: depth + 1) == nil { return false }
                listed = true
            }
            if !listed, let extra = s["additionalProperties"] {
                if validate(value, extra, depth: depth + 1) == nil { return false }
                listed = true
            }
            if listed { seen.properties.insert(k) }
            if let names = s["propertyNames"], validate(.string(k), names, depth: depth + 1) == nil { return false }
        }
        // A member's presence requires other members (a list) or the whole object to pass a schema.
        func dependency(_ dep: JSONValue) -> Bool {
            if let names = dep.arrayValue { return names.allSatisfy(has) }
            guard let e = validate(v, dep, depth: depth + 1) else { return false }
            seen.formUnion(e)
            return true
        }
        let dependencies = draft == .draft7 ? ["dependencies"] : ["dependentRequired", "dependentSchemas"]
        for keyword in dependencies {
            for (name, dep) in s[keyword]?.objectMembers ?? [] where members.contains(where: { $0.0 == name }) {
                if !dependency(dep) { return false }
            }
        }
        if draft == .draft2020_12, let unevaluated = s["unevaluatedProperties"] {
            for (k, value) in members where !seen.properties.contains(k) {
                if validate(value, unevaluated, depth: depth + 1) == nil { return false }
            }
            seen.properties.formUnion(members.map(\.0))
        }
        return true
    }

    /// Whether `pattern` (ECMA-262) matches somewhere in `s`; nil when it does not compile.
    private static func search(_ pattern: String, in s: String) -> Bool? {
        guard let re = try? NSRegularExpression(pattern: ecmaClasses(pattern)) else { return nil }
        return re.firstMatch(in: s, range: NSRange(location: 0, length: (s as NSString).length)) != nil
    }

    /// Whether `x / m` is an integer, exactly: JSON numbers are decimals, and a double quotient can
    /// overflow (1e308 / 0.123456789 is infinite, whose `rounded()` is itself). Falls back to doubles
    /// only for a divisor of more than 17 significant digits or an exponent past a million.
    static func isMultiple(_ x: String, of m: String) -> Bool {
        guard let (xd, xe) = decimal(x), let (md, me) = decimal(m), !md.isEmpty, md.count <= 17 else {
            guard let a = Double(x), let b = Double(m), b != 0 else { return false }
            let q = a / b
            return q.isFinite && q.rounded() == q
        }
        if xd.isEmpty { return true }
        // x / m = (X / M) · 10^k with neither X nor M ending in 0. For k < 0 that needs 10 | X.
        let k = xe - me
        if k < 0 { return false }
        let divisor = md.reduce(0) { $0 * 10 + Int($1) }
        var r = 0  // X · 10^k mod M, digit by digit (M < 10^17, so r · 10 + 9 fits)
        for d in xd { r = (r * 10 + Int(d)) % divisor }
        for _ in 0..<k where r != 0 { r = r * 10 % divisor }
        return r == 0
    }

    /// A JSON number's magnitude as digits × 10^exponent, without leading or trailing zero digits
    /// (zero has none); nil for an exponent past a million.
    static func decimal(_ text: String) -> (digits: [UInt8], exponent: Int)? {
        var mantissa = Substring(text)
        if mantissa.hasPrefix("-") { mantissa = mantissa.dropFirst() }
        var exponent = 0
        if let e = mantissa.firstIndex(where: { $0 == "e" || $0 == "E" }) {
            guard let x = Int(mantissa[mantissa.index(after: e)...]), abs(x) <= 1_000_000 else { return nil }
            exponent = x
            mantissa = mantissa[..<e]
        }
        var digits: [UInt8] = []
        var afterPoint = false
        for c in mantissa.utf8 {
            if c == UInt8(ascii: ".") { afterPoint = true; continue }
            guard c >= UInt8(ascii: "0"), c <= UInt8(ascii: "9") else { return nil }
            digits.append(c - UInt8(ascii: "0"))
            if afterPoint { exponent -= 1 }
        }
        digits = Array(digits.drop { $0 == 0 })
        while digits.last == 0 { digits.removeLast(); exponent += 1 }
        return (digits, exponent)
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
