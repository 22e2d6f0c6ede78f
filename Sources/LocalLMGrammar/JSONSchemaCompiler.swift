/// Compiles a JSON Schema to a grammar of the JSON documents it allows: at least everything
/// FoundationModels' `GenerationSchema` produces. Properties come in schema order (`x-order` if
/// given), objects are closed unless `additionalProperties` opens them, integers and numbers honour
/// bounds exactly. Any keyword that would constrain values and is not implemented is an error naming it
/// and its JSON path; annotations (title, description, …) are ignored.
struct JSONSchemaCompiler {
    typealias Symbol = Grammar.Symbol
    var b = GrammarBuilder()
    var json: JSONGrammar
    let root: JSONValue
    private var refRules: [String: Int] = [:]

    static let annotations: Set<String> = [
        "$schema", "$id", "$comment", "title", "description", "default", "examples", "deprecated",
        "readOnly", "writeOnly", "$defs", "definitions", "x-order", "$anchor",
    ]
    static let handled: Set<String> = [
        "type", "properties", "required", "additionalProperties", "items", "prefixItems", "minItems", "maxItems",
        "enum", "const", "anyOf", "oneOf", "allOf", "$ref", "minimum", "maximum", "exclusiveMinimum",
        "exclusiveMaximum", "pattern", "minLength", "maxLength", "format",
    ]
    static let formats: Set<String> = ["date", "time", "date-time", "uuid"]

    init(root: JSONValue, whitespace: JSONWhitespace) {
        self.root = root
        self.json = JSONGrammar(whitespace: whitespace)
    }

    static func compile(_ schema: JSONValue, whitespace: JSONWhitespace) throws(GrammarError) -> Grammar {
        var c = JSONSchemaCompiler(root: schema, whitespace: whitespace)
        let r = c.b.newRule("root")
        let body = try c.visit(schema, "$")
        c.b.setAlternatives(r, [body])
        return try c.b.checkedBuild(root: r)
    }

    private func unsupported(_ feature: String, _ path: String) -> GrammarError {
        .unsupportedSchemaFeature(feature: feature, path: path)
    }

    mutating func visit(_ schema: JSONValue, _ path: String) throws(GrammarError) -> [Symbol] {
        if case .bool(let v) = schema {
            if v { return json.value(&b) }
            return [.rule(b.rule("never", []))]
        }
        guard let members = schema.objectMembers else { throw .schema(message: "a schema must be an object or boolean", path: path) }
        for (k, _) in members where !Self.annotations.contains(k) && !Self.handled.contains(k) && !k.hasPrefix("x-") {
            throw unsupported(k, path + "." + k)
        }
        if let ref = schema["$ref"] {
            guard members.allSatisfy({ Self.annotations.contains($0.0) || $0.0 == "$ref" || $0.0.hasPrefix("x-") }) else {
                throw unsupported("keywords beside $ref", path)
            }
            guard let s = ref.stringValue else { throw .schema(message: "$ref must be a string", path: path + ".$ref") }
            return [.rule(try refRule(s, path + ".$ref"))]
        }
        if let c = schema["const"] { return literal(c) }
        if let e = schema["enum"] {
            guard let values = e.arrayValue, !values.isEmpty else { throw .schema(message: "enum must be a non-empty array", path: path + ".enum") }
            return b.group(values.map { literal($0) }, name: "enum")
        }
        for key in ["anyOf", "oneOf"] {
            if let alts = schema[key] {
                guard let list = alts.arrayValue, !list.isEmpty else { throw .schema(message: "\(key) must be a non-empty array", path: path + "." + key) }
                let validating = members.filter { !Self.annotations.contains($0.0) && $0.0 != key && !$0.0.hasPrefix("x-") }
                if !validating.isEmpty { throw unsupported("\(validating[0].0) beside \(key)", path) }
                var out: [[Symbol]] = []
                for (i, s) in list.enumerated() { out.append(try visit(s, "\(path).\(key)[\(i)]")) }
                return b.group(out, name: key)
            }
        }
        if let all = schema["allOf"] {
            let validating = members.filter { !Self.annotations.contains($0.0) && !$0.0.hasPrefix("x-") }
            guard let list = all.arrayValue, list.count == 1, validating.count == 1 else { throw unsupported("allOf (more than one schema)", path + ".allOf") }
            return try visit(list[0], path + ".allOf[0]")
        }
        var types: [String]
        switch schema["type"] {
        case .string(let t)?: types = [t]
        case .array(let ts)?:
            types = []
            for t in ts { guard let s = t.stringValue else { throw .schema(message: "type must be strings", path: path + ".type") }; types.append(s) }
        case nil:
            types = Self.inferredTypes(schema)
        default: throw .schema(message: "type must be a string or array", path: path + ".type")
        }
        if types.isEmpty { return json.value(&b) }
        var out: [[Symbol]] = []
        for t in types { out.append(try visitType(t, schema, path)) }
        return b.group(out, name: "types")
    }

    private static func inferredTypes(_ s: JSONValue) -> [String] {
        if s["properties"] != nil || s["additionalProperties"] != nil || s["required"] != nil { return ["object"] }
        if s["items"] != nil || s["prefixItems"] != nil || s["minItems"] != nil || s["maxItems"] != nil { return ["array"] }
        if s["pattern"] != nil || s["minLength"] != nil || s["maxLength"] != nil || s["format"] != nil { return ["string"] }
        if s["minimum"] != nil || s["maximum"] != nil || s["exclusiveMinimum"] != nil || s["exclusiveMaximum"] != nil { return ["number"] }
        return []
    }

    private mutating func literal(_ v: JSONValue) -> [Symbol] {
        // Compact text is the one accepted spelling (flexible mode allows trailing space only).
        GrammarBuilder.literal(v.compactText) + json.space(&b)
    }

    private mutating func refRule(_ ref: String, _ path: String) throws(GrammarError) -> Int {
        if let r = refRules[ref] { return r }
        guard ref.hasPrefix("#") else { throw unsupported("$ref to another document (\(ref))", path) }
        var target = root
        for part in ref.dropFirst().split(separator: "/", omittingEmptySubsequences: true) {
            let key = String(part).split(separator: "~1", omittingEmptySubsequences: false).joined(separator: "/")
                .split(separator: "~0", omittingEmptySubsequences: false).joined(separator: "~")
            if let next = target[key] { target = next; continue }
            if let list = target.arrayValue, let i = Int(key), list.indices.contains(i) { target = list[i]; continue }
            throw .schema(message: "$ref target \(ref) not found", path: path)
        }
        let r = b.newRule("ref")
        refRules[ref] = r  // before visiting: recursion refers back to this rule
        let body = try visit(target, ref)
        b.setAlternatives(r, [body])
        return r
    }

    private mutating func visitType(_ type: String, _ s: JSONValue, _ path: String) throws(GrammarError) -> [Symbol] {
        switch type {
        case "null": return json.token("null", &b)
        case "boolean": return b.group([json.token("true", &b), json.token("false", &b)], name: "boolean")
        case "string": return try stringRule(s, path)
        case "integer": return try integerRule(s, path)
        case "number": return try numberRule(s, path)
        case "array": return try arrayRule(s, path)
        case "object": return try objectRule(s, path)
        default: throw .schema(message: "unknown type '\(type)'", path: path + ".type")
        }
    }

    private func count(_ s: JSONValue, _ key: String, _ path: String) throws(GrammarError) -> Int? {
        guard let v = s[key] else { return nil }
        guard let n = v.integerValue, n >= 0, n <= GrammarBuilder.maxRepetition else {
            throw .schema(message: "\(key) must be an integer in 0...\(GrammarBuilder.maxRepetition)", path: path + "." + key)
        }
        return n
    }

    private mutating func stringRule(_ s: JSONValue, _ path: String) throws(GrammarError) -> [Symbol] {
        let minLength = try count(s, "minLength", path) ?? 0
        let maxLength = try count(s, "maxLength", path)
        if let p = s["pattern"] {
            guard let pattern = p.stringValue else { throw .schema(message: "pattern must be a string", path: path + ".pattern") }
            if s["minLength"] != nil || s["maxLength"] != nil || s["format"] != nil { throw unsupported("pattern with minLength/maxLength/format", path) }
            let node: RegexCompiler.Node
            do { node = try RegexCompiler.parse(pattern) } catch {
                throw .schema(message: error.description, path: path + ".pattern")
            }
            return json.quoted(node.emit(&b, jsonString: true), &b)
        }
        if let f = s["format"] {
            guard let name = f.stringValue else { throw .schema(message: "format must be a string", path: path + ".format") }
            guard Self.formats.contains(name) else { throw unsupported("format \(name)", path + ".format") }
            if s["minLength"] != nil || s["maxLength"] != nil { throw unsupported("format with minLength/maxLength", path) }
            return json.quoted(try formatBody(name), &b)
        }
        if let m = maxLength, m < minLength { return [.rule(b.rule("never", []))] }
        return json.string(minLength: minLength, maxLength: maxLength, &b)
    }

    private mutating func formatBody(_ name: String) throws(GrammarError) -> [Symbol] {
        // Exact calendar dates: day counts per month, and February 29 only in leap years.
        let leapYear = #"([0-9]{2}(0[48]|[2468][048]|[13579][26])|(0[48]|[2468][048]|[13579][26])00)"#
        let monthDay = #"((0[13578]|1[02])-(0[1-9]|[12][0-9]|3[01])|(0[469]|11)-(0[1-9]|[12][0-9]|30)|02-(0[1-9]|1[0-9]|2[0-8]))"#
        let date = #"([0-9]{4}-"# + monthDay + "|" + leapYear + #"-02-29)"#
        let time = #"([01][0-9]|2[0-3]):[0-5][0-9]:[0-5][0-9](\.[0-9]+)?(Z|[+-]([01][0-9]|2[0-3]):[0-5][0-9])"#
        let uuid = #"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}"#
        let pattern: String
        switch name {
        case "date": pattern = date
        case "time": pattern = time
        case "date-time": pattern = date + "T" + time
        default: pattern = uuid
        }
        return try RegexCompiler.parse(pattern).emit(&b, jsonString: true)
    }

    /// Reads `key` as an exact decimal bound, if present.
    private func decimalBound(_ s: JSONValue, _ key: String, _ path: String) throws(GrammarError) -> DecimalBound? {
        guard let v = s[key] else { return nil }
        guard case .number(let text) = v else { throw .schema(message: "\(key) must be a number", path: path + "." + key) }
        do {
            return try DecimalBound(jsonNumber: text)
        } catch .tooLarge {
            throw unsupported("\(key) beyond ±2^62", path + "." + key)
        } catch .tooPrecise {
            throw unsupported("\(key) with more than \(DecimalBound.maxFractionDigits) decimal places", path + "." + key)
        } catch {
            throw .schema(message: "\(key) must be a number", path: path + "." + key)
        }
    }

    /// Reads an integer bound; non-integral bounds round inward (exactly, on the decimal text).
    private func bound(_ s: JSONValue, _ key: String, _ path: String, lower: Bool) throws(GrammarError) -> Int? {
        guard let d = try decimalBound(s, key, path) else { return nil }
        let exclusive = key.hasPrefix("exclusive")
        if !d.isIntegral { return lower ? d.ceiling : d.floor }  // a fractional exclusive bound is the same as the inclusive one
        return d.ceiling + (exclusive ? (lower ? 1 : -1) : 0)
    }

    private mutating func integerRule(_ s: JSONValue, _ path: String) throws(GrammarError) -> [Symbol] {
        let lows = [try bound(s, "minimum", path, lower: true), try bound(s, "exclusiveMinimum", path, lower: true)].compactMap { $0 }
        let highs = [try bound(s, "maximum", path, lower: false), try bound(s, "exclusiveMaximum", path, lower: false)].compactMap { $0 }
        let lo = lows.max(), hi = highs.min()
        if lo == nil && hi == nil { return json.integer(&b) }
        let space = json.space(&b)
        let alts = IntegerRange.alternatives(lo: lo, hi: hi, &b)
        return [.rule(b.rule("integer-range", alts.map { $0 + space }))]
    }

    /// Numbers between decimal bounds, exactly; bounded numbers are written without exponent.
    private mutating func numberRule(_ s: JSONValue, _ path: String) throws(GrammarError) -> [Symbol] {
        var lower: NumberRange.Bound? = nil, upper: NumberRange.Bound? = nil
        for key in ["minimum", "exclusiveMinimum", "maximum", "exclusiveMaximum"] {
            guard let value = try decimalBound(s, key, path) else { continue }
            let bound = NumberRange.Bound(value: value, inclusive: !key.hasPrefix("exclusive"))
            // The tighter bound wins; at equal values the exclusive one.
            if key.hasSuffix("inimum") {
                if let l = lower {
                    let c = l.value.compare(value)
                    if c > 0 || (c == 0 && !l.inclusive) { continue }
                }
                lower = bound
            } else {
                if let u = upper {
                    let c = u.value.compare(value)
                    if c < 0 || (c == 0 && !u.inclusive) { continue }
                }
                upper = bound
            }
        }
        if lower == nil && upper == nil { return json.number(&b) }
        let space = json.space(&b)
        let alts = NumberRange.alternatives(lower: lower, upper: upper, &b)
        return [.rule(b.rule("number-range", alts.map { $0 + space }))]
    }

    private mutating func arrayRule(_ s: JSONValue, _ path: String) throws(GrammarError) -> [Symbol] {
        for k in ["contains", "uniqueItems", "minContains", "maxContains", "unevaluatedItems"] where s[k] != nil {
            throw unsupported(k, path + "." + k)
        }
        var tuple: [JSONValue]? = s["prefixItems"]?.arrayValue
        var itemSchema: JSONValue? = s["items"]
        if let list = s["items"]?.arrayValue { tuple = list; itemSchema = nil }  // draft-7 tuple form
        let open = json.token("[", &b), close = json.token("]", &b), comma = json.token(",", &b)
        if let tuple {
            var seq: [Symbol] = open
            for (i, t) in tuple.enumerated() {
                if i > 0 { seq += comma }
                seq += try visit(t, "\(path).prefixItems[\(i)]")
            }
            return seq + close
        }
        let item = try itemSchema.map { (x: JSONValue) throws(GrammarError) -> [Symbol] in try visit(x, path + ".items") } ?? json.value(&b)
        let minItems = try count(s, "minItems", path) ?? 0
        let maxItems = try count(s, "maxItems", path)
        if let m = maxItems, m < minItems { return [.rule(b.rule("never", []))] }
        if maxItems == 0 { return open + close }
        // item ("," item){min-1, max-1}, optional as a whole when minItems is 0.
        let rest = b.repeated(comma + item, min: max(minItems - 1, 0), max: maxItems.map { $0 - 1 }, name: "items")
        let list = item + rest
        let body = minItems == 0 ? b.repeated(list, min: 0, max: 1, name: "items-opt") : list
        return open + body + close
    }

    private mutating func objectRule(_ s: JSONValue, _ path: String) throws(GrammarError) -> [Symbol] {
        for k in ["patternProperties", "propertyNames", "minProperties", "maxProperties", "dependentRequired",
                  "dependentSchemas", "unevaluatedProperties", "dependencies"] where s[k] != nil {
            throw unsupported(k, path + "." + k)
        }
        var props: [(String, JSONValue)] = []
        if let p = s["properties"] {
            guard let m = p.objectMembers else { throw .schema(message: "properties must be an object", path: path + ".properties") }
            props = m
        }
        if let order = s["x-order"]?.arrayValue?.compactMap(\.stringValue) {
            props.sort { (order.firstIndex(of: $0.0) ?? Int.max) < (order.firstIndex(of: $1.0) ?? Int.max) }
        }
        var required = Set<String>()
        if let r = s["required"] {
            guard let list = r.arrayValue else { throw .schema(message: "required must be an array", path: path + ".required") }
            for x in list { guard let n = x.stringValue else { throw .schema(message: "required must list strings", path: path + ".required") }; required.insert(n) }
        }
        for name in required.sorted() where !props.contains(where: { $0.0 == name }) { props.append((name, .object([]))) }
        // Extra members: none unless additionalProperties allows (or the object lists nothing at all).
        var extra: JSONValue? = nil
        switch s["additionalProperties"] {
        case nil: if props.isEmpty { extra = .bool(true) }
        case .bool(false)?: extra = nil
        case let v?: extra = v
        }
        let open = json.token("{", &b), close = json.token("}", &b), comma = json.token(",", &b), colon = json.token(":", &b)
        // tail(i, first): the members from i on; `first` means no comma is owed before the next one.
        var extraMember: [Symbol]? = nil
        if let extra {
            let key = excludedKey(props.map(\.0))
            extraMember = key + colon + (try visit(extra, path + ".additionalProperties"))
        }
        var next: [Bool: [Symbol]] = [:]
        for first in [true, false] {
            if let e = extraMember {
                let more = b.repeated(comma + e, min: 0, max: nil, name: "extra")
                let alts: [[Symbol]] = [[], (first ? [] : comma) + e + more]
                next[first] = b.group(alts, name: "extras")
            } else {
                next[first] = []
            }
        }
        for (i, (name, schema)) in props.enumerated().reversed() {
            let member = GrammarBuilder.literal(JSONValue.quote(name)) + json.space(&b) + colon + (try visit(schema, "\(path).properties.\(name)"))
            var built: [Bool: [Symbol]] = [:]
            for first in [true, false] {
                let withIt = (first ? [] : comma) + member + next[false]!
                if required.contains(name) {
                    built[first] = [.rule(b.rule("members-\(i)", [withIt]))]
                } else {
                    built[first] = [.rule(b.rule("members-\(i)", [withIt, next[first]!]))]
                }
            }
            next = built
        }
        return open + next[true]! + close
    }

    /// A quoted key that is none of `names` (for additional properties beside listed ones).
    private mutating func excludedKey(_ names: [String]) -> [Symbol] {
        if names.isEmpty { return json.string(&b) }
        // A trie over the names' bytes; at each node the key may end (if no name ends here),
        // continue along a name, or leave the trie and continue freely.
        let free = b.repeated(json.char(&b), min: 0, max: nil, name: "key-rest")
        let quote = GrammarBuilder.literal("\"")
        func build(_ prefix: [UInt8], _ names: [[UInt8]], _ b: inout GrammarBuilder) -> [Symbol] {
            var alts: [[Symbol]] = []
            if !names.contains(where: { $0 == prefix }) { alts.append(quote) }
            let nextBytes = Set(names.filter { $0.count > prefix.count && $0.starts(with: prefix) }.map { $0[prefix.count] })
            for c in nextBytes.sorted() {
                alts.append([.bytes(ByteSet(c))] + build(prefix + [c], names, &b))
            }
            // Any other first character of a string char leaves the trie (ASCII only is checked
            // byte-wise; multi-byte characters always leave it since names are matched as bytes).
            var other = ByteSet()
            for c in UInt8(0x20)...0x7E where c != 0x22 && c != 0x5C && !nextBytes.contains(c) { other.insert(c) }
            alts.append([.bytes(other)] + free + quote)
            return b.group(alts, name: "key")
        }
        let namesBytes = names.map { Array($0.utf8) }
        return quote + build([], namesBytes, &b) + json.space(&b)
    }
}

extension CompiledGrammar {
    /// Compiles a JSON Schema (JSON text) to the grammar of the documents it allows.
    public convenience init(jsonSchema text: String, whitespace: JSONWhitespace = .compact) throws(GrammarError) {
        let schema = try JSONValue(parsing: text)
        try self.init(JSONSchemaCompiler.compile(schema, whitespace: whitespace))
    }

    /// Compiles a parsed JSON Schema.
    public convenience init(jsonSchema schema: JSONValue, whitespace: JSONWhitespace = .compact) throws(GrammarError) {
        try self.init(JSONSchemaCompiler.compile(schema, whitespace: whitespace))
    }
}
