/// `enum`/`const`: the listed values that also satisfy the schema's other keywords, each as literal
/// JSON text (whitespace where the mode allows it; strings in raw or `\u`-escaped spelling).
extension JSONSchemaCompiler {
    mutating func enumRule(_ values: [JSONValue], _ rest: JSONValue, _ path: String) throws(GrammarError) -> [Symbol] {
        var alts: [[Symbol]] = []
        var seen: [JSONValue] = []
        for v in values where !seen.contains(v) {
            seen.append(v)
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
                guard case .string(let s) = v else { ok = true; break }
                guard let p = x.stringValue, let node = try? RegexCompiler.parseSearch(p),
                      let g = try? CompiledGrammar(Self.regexGrammar(node)) else { return nil }
                var m = GrammarMatcher(g)
                let matched = m.accept(bytes: Array(s.utf8)) && m.canTerminate
                // The grammar's classes are narrower than Python's (\d, \w): a miss is not a proof.
                if !matched { return nil }
                ok = true
            case "minItems", "maxItems":
                guard case .array(let a) = v else { ok = true; break }
                guard let n = x.integerValue else { return nil }
                ok = k == "minItems" ? a.count >= n : a.count <= n
            case "items":
                guard case .array(let a) = v else { ok = true; break }
                if x.arrayValue != nil { return nil }
                var all = true
                for e in a { guard let r = admits(e, x, depth: depth + 1) else { return nil }; all = all && r }
                ok = all
            case "required":
                guard case .object(let m) = v else { ok = true; break }
                ok = (x.arrayValue ?? []).allSatisfy { n in m.contains { .string($0.0) == n } }
            case "properties", "additionalProperties":
                guard case .object(let m) = v else { ok = true; break }
                let props = schema["properties"]?.objectMembers ?? []
                if schema["patternProperties"] != nil { return nil }
                var all = true
                for (name, value) in m {
                    let sub: JSONValue?
                    if k == "properties" { sub = props.first { $0.0 == name }?.1 } else { sub = props.contains { $0.0 == name } ? nil : x }
                    guard let sub else { continue }
                    guard let r = admits(value, sub, depth: depth + 1) else { return nil }
                    all = all && r
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
            case "format", "multipleOf", "uniqueItems", "minProperties", "maxProperties":
                // Only the value's own type is constrained; other types pass.
                switch (k, v) {
                case ("format", .string), ("multipleOf", .number), ("uniqueItems", .array), ("minProperties", .object), ("maxProperties", .object): return nil
                default: ok = true
                }
            default:
                return nil
            }
            guard let ok else { return nil }
            if !ok { return false }
        }
        return true
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
