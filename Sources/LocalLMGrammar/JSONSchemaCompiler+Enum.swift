/// `enum`/`const`: the listed values that also satisfy the schema's other keywords, each as literal
/// JSON text (whitespace where the mode allows it; strings in raw or `\u`-escaped spelling).
extension JSONSchemaCompiler {
    mutating func enumRule(_ values: [JSONValue], _ rest: JSONValue, _ path: String) throws(GrammarError) -> [Symbol] {
        var alts: [[Symbol]] = []
        // Duplicates are left out (first occurrence kept). Strings, most of any large enum, by a
        // set (String's == and hash agree, as JSONValue's == uses String's); other values by ==.
        var seenStrings = Set<String>(), seen: [JSONValue] = []
        for v in values {
            if case .string(let s) = v {
                guard seenStrings.insert(s).inserted else { continue }
            } else {
                guard !seen.contains(v) else { continue }
                seen.append(v)
            }
            guard let ok = admits(v, rest, depth: 0) else {
                throw unsupported("enum beside keywords that cannot be checked on its values", path + ".enum")
            }
            if ok { alts.append(literalValue(v)) }
        }
        if alts.isEmpty { return [.rule(b.rule("never", []))] }
        return b.group(alts, name: "enum")
    }

    /// A JSON value as text: the members in the order given, whitespace after punctuation as the mode allows.
    mutating func literalValue(_ v: JSONValue) -> [Symbol] {
        switch v {
        case .string(let s): return stringLiteral(s) + json.space(&b)
        case .array(let a):
            var out = json.token("[", &b)
            for (i, x) in a.enumerated() {
                if i > 0 { out += json.token(",", &b) }
                out += literalValue(x)
            }
            return out + json.token("]", &b)
        case .object(let m):
            var out = json.token("{", &b)
            for (i, (k, x)) in m.enumerated() {
                if i > 0 { out += json.token(",", &b) }
                out += stringLiteral(k) + json.space(&b) + json.token(":", &b) + literalValue(x)
            }
            return out + json.token("}", &b)
        default: return GrammarBuilder.literal(v.compactText) + json.space(&b)
        }
    }

    /// A quoted string: printable ASCII as itself, other characters raw or as a `\u` escape
    /// (lowercase or uppercase hex, surrogate pairs above the BMP), the short escapes as JSON writes them.
    mutating func stringLiteral(_ s: String) -> [Symbol] {
        var out = GrammarBuilder.literal("\"")
        for u in s.unicodeScalars {
            let v = u.value
            if v >= 0x20 && v < 0x7F && v != 0x22 && v != 0x5C {
                out.append(.bytes(ByteSet(UInt8(v))))
                continue
            }
            var spellings: [[UInt8]] = []
            let short: [UInt32: String] = [0x22: "\\\"", 0x5C: "\\\\", 0x0A: "\\n", 0x0D: "\\r", 0x09: "\\t", 0x08: "\\b", 0x0C: "\\f"]
            if let e = short[v] { spellings.append(Array(e.utf8)) } else if v >= 0x20 { spellings.append(Array(String(u).utf8)) }
            if v == 0x2F { spellings.append(Array("\\/".utf8)) }
            let units = Array(String(u).utf16)
            for upper in [false, true] {
                var e = ""
                for unit in units {
                    let hex = String(unit, radix: 16, uppercase: upper)
                    e += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
                }
                if !spellings.contains(Array(e.utf8)) { spellings.append(Array(e.utf8)) }
            }
            out += b.group(spellings.map { GrammarBuilder.literal($0) }, name: "char-spelling")
        }
        return out + GrammarBuilder.literal("\"")
    }

    /// Whether `v` satisfies `schema`; nil when some keyword is beyond this check (the caller refuses).
    func admits(_ v: JSONValue, _ schema: JSONValue, depth: Int) -> Bool? {
        guard depth < Self.maxMergeDepth else { return nil }
        if case .bool(let x) = schema { return x }
        guard let raw = schema.objectMembers else { return nil }
        for (k, x) in Self.validating(raw) {
            let ok: Bool?
            switch k {
            case "type":
                ok = Self.typeSet(x).contains { Self.hasType(v, $0) }
            case "enum":
                ok = x.arrayValue?.contains(v) ?? false
            case "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum":
                guard case .number(let n) = v else { ok = true; break }
                guard case .number(let bound) = x, let p = try? DecimalBound(jsonNumber: n), let q = try? DecimalBound(jsonNumber: bound) else { return nil }
                let c = p.compare(q)
                switch k {
                case "minimum": ok = c >= 0
                case "maximum": ok = c <= 0
                case "exclusiveMinimum": ok = c > 0
                default: ok = c < 0
                }
            case "minLength", "maxLength":
                guard case .string(let s) = v else { ok = true; break }
                guard let n = x.integerValue else { return nil }
                let count = s.unicodeScalars.count
                ok = k == "minLength" ? count >= n : count <= n
            case "pattern":
                guard case .string(let text) = v else { ok = true; break }
                guard let p = x.stringValue, let r = searchDecides(p, text) else { return nil }
                ok = r
            case "minItems", "maxItems", "minProperties", "maxProperties":
                // Counts of elements or members; other types pass.
                let size: Int
                switch v {
                case .array(let a) where k.hasSuffix("Items"): size = a.count
                case .object(let m) where k.hasSuffix("Properties"): size = m.count
                default: continue
                }
                guard let n = x.integerValue else { return nil }
                ok = k.hasPrefix("min") ? size >= n : size <= n
            case "items":
                guard case .array(let a) = v else { ok = true; break }
                if schema["prefixItems"] != nil { return nil }  // draft 2020-12 tuples: not read here
                var all = true
                if let tuple = x.arrayValue {
                    // Draft 4–7 tuple: element i against items[i], the rest against additionalItems.
                    let extra = schema["additionalItems"] ?? .bool(true)
                    for (i, e) in a.enumerated() {
                        guard let r = admits(e, i < tuple.count ? tuple[i] : extra, depth: depth + 1) else { return nil }
                        all = all && r
                    }
                } else {
                    for e in a { guard let r = admits(e, x, depth: depth + 1) else { return nil }; all = all && r }
                }
                ok = all
            case "additionalItems":
                // Read with a tuple `items`; without one it constrains nothing.
                ok = true
            case "const":
                guard let same = Self.jsonEqual(v, x) else { return nil }
                ok = same
            case "contains", "minContains", "maxContains":
                guard case .array(let a) = v else { ok = true; break }
                guard let c = schema["contains"] else { ok = true; break }
                var n = 0
                for e in a { guard let r = admits(e, c, depth: depth + 1) else { return nil }; if r { n += 1 } }
                let lo = schema["minContains"]?.integerValue ?? 1
                let hi = schema["maxContains"]?.integerValue
                ok = n >= lo && (hi.map { n <= $0 } ?? true)
            case "uniqueItems":
                guard case .array(let a) = v, x == .bool(true) else { ok = true; break }
                var unique = true
                for i in a.indices { for j in a.indices where j > i {
                    guard let same = Self.jsonEqual(a[i], a[j]) else { return nil }
                    if same { unique = false }
                } }
                ok = unique
            case "propertyNames":
                guard case .object(let m) = v else { ok = true; break }
                var all = true
                for (name, _) in m { guard let r = admits(.string(name), x, depth: depth + 1) else { return nil }; all = all && r }
                ok = all
            case "dependencies", "dependentRequired", "dependentSchemas":
                guard case .object(let m) = v, let deps = x.objectMembers else { ok = true; break }
                var all = true
                for (trigger, need) in deps where m.contains(where: { $0.0 == trigger }) {
                    if let names = need.arrayValue {
                        all = all && names.allSatisfy { n in m.contains { .string($0.0) == n } }
                    } else {
                        guard let r = admits(v, need, depth: depth + 1) else { return nil }
                        all = all && r
                    }
                }
                ok = all
            case "if":
                guard let condition = admits(v, x, depth: depth + 1) else { return nil }
                let branch = condition ? schema["then"] : schema["else"]
                guard let branch else { ok = true; break }
                ok = admits(v, branch, depth: depth + 1)
            case "then", "else":
                ok = true  // read with `if`
            case "multipleOf":
                guard case .number(let n) = v else { ok = true; break }
                // Exact on integers; a fractional side is left undecided (binary floats decide it in validators).
                guard case .number(let d) = x, let a = Int(n), let b = Int(d), b > 0 else { return nil }
                ok = a % b == 0
            case "required":
                guard case .object(let m) = v else { ok = true; break }
                ok = (x.arrayValue ?? []).allSatisfy { n in m.contains { .string($0.0) == n } }
            case "properties", "additionalProperties", "patternProperties":
                guard case .object(let m) = v else { ok = true; break }
                let props = schema["properties"]?.objectMembers ?? []
                let patterns = schema["patternProperties"]?.objectMembers ?? []
                var all = true
                for (name, value) in m {
                    let listed = props.first { $0.0 == name }?.1
                    var subs: [JSONValue] = []
                    var matched = false
                    for (p, ps) in patterns {
                        guard let r = searchDecides(p, name) else { return nil }
                        if r { matched = true; if k == "patternProperties" { subs.append(ps) } }
                    }
                    if k == "properties", let listed { subs = [listed] }
                    if k == "additionalProperties" && listed == nil && !matched { subs = [x] }
                    for sub in subs {
                        guard let r = admits(value, sub, depth: depth + 1) else { return nil }
                        all = all && r
                    }
                }
                ok = all
            case "anyOf", "oneOf", "allOf":
                var results: [Bool] = []
                for s in x.arrayValue ?? [] { guard let r = admits(v, s, depth: depth + 1) else { return nil }; results.append(r) }
                let n = results.filter { $0 }.count
                ok = k == "anyOf" ? n > 0 : k == "oneOf" ? n == 1 : n == results.count
            case "not":
                guard let r = admits(v, x, depth: depth + 1) else { return nil }
                ok = !r
            case "$ref":
                guard let ref = x.stringValue, let target = try? refTarget(ref, "") else { return nil }
                ok = admits(v, target, depth: depth + 1)
            case "format":
                // Only strings are constrained; whether one is in the format is left undecided.
                if case .string = v { return nil }
                ok = true
            default:
                return nil
            }
            guard let ok else { return nil }
            if !ok { return false }
        }
        return true
    }

    /// Whether a pattern (a search) matches `text`, where that is certain: a match of the grammar's
    /// reading is one for Python's `re` too (the grammar's classes are the narrower), and a miss is
    /// one only on printable ASCII text (where `\d \w \s .` and `$` mean the same to both).
    func searchDecides(_ pattern: String, _ text: String) -> Bool? {
        guard let matched = try? patternCache.matches(pattern, text) else { return nil }
        if matched { return true }
        return text.utf8.allSatisfy { $0 >= 0x20 && $0 < 0x7F } ? false : nil
    }

    /// Search grammars by pattern (`regexGrammar` of the search reading), compiled once per schema:
    /// listed names and enum values ask about the same patterns again and again. Local to one
    /// compilation.
    final class PatternCache {
        private var grammars: [String: Result<CompiledGrammar, GrammarError>] = [:]

        func grammar(_ pattern: String) throws(GrammarError) -> CompiledGrammar {
            if let known = grammars[pattern] { return try known.get() }
            let result: Result<CompiledGrammar, GrammarError>
            do throws(GrammarError) {
                result = .success(try CompiledGrammar(JSONSchemaCompiler.regexGrammar(try RegexCompiler.parseSearch(pattern))))
            } catch {
                result = .failure(error)
            }
            grammars[pattern] = result
            return try result.get()
        }

        /// Whether the pattern (a search) matches `text` in the grammar's reading.
        func matches(_ pattern: String, _ text: String) throws(GrammarError) -> Bool {
            var m = GrammarMatcher(try grammar(pattern))
            return m.accept(bytes: Array(text.utf8)) && m.canTerminate
        }
    }

    /// JSON equality as JSON Schema defines it (numbers by value, objects ignoring member order);
    /// nil when two numbers cannot be compared exactly.
    static func jsonEqual(_ a: JSONValue, _ b: JSONValue) -> Bool? {
        switch (a, b) {
        case (.number(let x), .number(let y)):
            if x == y { return true }
            guard let p = try? DecimalBound(jsonNumber: x), let q = try? DecimalBound(jsonNumber: y) else { return nil }
            return p.compare(q) == 0
        case (.array(let x), .array(let y)):
            guard x.count == y.count else { return false }
            for (u, w) in zip(x, y) { guard let r = jsonEqual(u, w) else { return nil }; if !r { return false } }
            return true
        case (.object(let x), .object(let y)):
            guard x.count == y.count else { return false }
            for (key, u) in x {
                guard let w = y.first(where: { $0.0 == key })?.1 else { return false }
                guard let r = jsonEqual(u, w) else { return nil }
                if !r { return false }
            }
            return true
        default:
            return a == b
        }
    }

    /// JSON Schema's types (Python jsonschema's reading: an integral float is an integer).
    static func hasType(_ v: JSONValue, _ t: String) -> Bool {
        switch (t, v) {
        case ("null", .null), ("boolean", .bool), ("string", .string), ("array", .array), ("object", .object), ("number", .number): return true
        case ("integer", .number(let n)): return Int(exactly: n) != nil || (Double(n).map { $0.rounded() == $0 && $0.isFinite } ?? false)
        default: return false
        }
    }

    static func regexGrammar(_ node: RegexCompiler.Node) -> Grammar {
        var b = GrammarBuilder()
        let root = b.newRule("root")
        b.setAlternatives(root, [node.emit(&b, jsonString: false)])
        return b.build(root: root)
    }
}

extension JSONValue {
    var isBool: Bool {
        if case .bool = self { return true }
        return false
    }
}
