/// Compiles a JSON Schema to a grammar of JSON documents it allows: at least everything
/// FoundationModels' `GenerationSchema` produces, and never a document it forbids. Properties come
/// in schema order (`x-order` if given), objects are closed unless `additionalProperties` or
/// `patternProperties` open them, integers and numbers honour bounds exactly. A keyword that would
/// constrain values and cannot be enforced (exactly, or by allowing fewer documents) is an error
/// naming it and its JSON path; annotations and unknown keywords are ignored, as validators do.
/// Docs/grammar.md lists every keyword.
struct JSONSchemaCompiler {
    typealias Symbol = Grammar.Symbol
    var b = GrammarBuilder()
    var json: JSONGrammar
    let root: JSONValue
    private var refRules: [String: Int] = [:]
    /// Rules of schemas that merge a `$ref`, by their text (see `visit`).
    private var mergedRules: [String: Int] = [:]
    /// Schema nesting being visited; deeper schemas are refused before the stack runs out.
    private var visitDepth = 0
    static let maxVisitDepth = 256

    /// Schema nodes normalized so far; a schema needing more is refused (distribution can multiply).
    var normalizeBudget = 100_000
    /// See `JSONSchemaOptions.closesUnlistedObjects`.
    let closesUnlistedObjects: Bool
    /// See `JSONSchemaOptions.anyPropertyOrder`.
    let anyPropertyOrder: Bool
    /// See `JSONSchemaOptions.infersTypes`.
    let infersTypes: Bool
    /// See `JSONSchemaOptions.patternsSearch`.
    let patternsSearch: Bool
    /// See `JSONSchemaOptions.approximatesOneOf`.
    let approximatesOneOf: Bool
    /// See `JSONSchemaOptions.narrowsRefusedMembers`.
    let narrowsRefusedMembers: Bool
    /// Search patterns compiled for decisions at compile time (listed names, enum values).
    let patternCache = PatternCache()
    /// String content with a `pattern` or `format`, by its constraints: large schemas repeat them
    /// (a date-time, an identifier pattern), and their rules can be referenced from every place.
    private var constrainedStrings: [StringConstraints: [Symbol]] = [:]
    /// Keys that are none of a listed set of names, by the names (`excludedKey`).
    private var excludedKeys: [[String]: [Symbol]] = [:]

    struct StringConstraints: Hashable {
        var pattern: String?
        var format: String?
        var minLength: Int
        var maxLength: Int?
    }

    init(root: JSONValue, options: JSONSchemaOptions) {
        self.root = root
        self.json = JSONGrammar(whitespace: options.whitespace)
        self.closesUnlistedObjects = options.closesUnlistedObjects
        self.anyPropertyOrder = options.anyPropertyOrder
        self.infersTypes = options.infersTypes
        self.patternsSearch = options.patternsSearch
        self.approximatesOneOf = options.approximatesOneOf
        self.narrowsRefusedMembers = options.narrowsRefusedMembers
    }

    static func compile(_ schema: JSONValue, whitespace: JSONWhitespace) throws(GrammarError) -> Grammar {
        try compile(schema, options: JSONSchemaOptions(whitespace: whitespace))
    }

    static func compile(_ schema: JSONValue, options: JSONSchemaOptions) throws(GrammarError) -> Grammar {
        var c = JSONSchemaCompiler(root: schema, options: options)
        let r = c.b.newRule("root")
        let body = try c.visit(schema, "$")
        c.b.setAlternatives(r, [body])
        return try c.b.checkedBuild(root: r)
    }

    func unsupported(_ feature: String, _ path: String) -> GrammarError {
        .unsupportedSchemaFeature(feature: feature, path: path)
    }

    mutating func visit(_ schema: JSONValue, _ path: String) throws(GrammarError) -> [Symbol] {
        // A schema that merges a $ref (allOf, or $ref beside keywords) gets a rule of its own, made
        // before its body: a recursive definition reached that way meets the rule again, not itself.
        guard visitDepth < Self.maxVisitDepth else { throw .tooLarge(message: "schema nested deeper than \(Self.maxVisitDepth) at \(path)") }
        visitDepth += 1
        defer { visitDepth -= 1 }
        guard let members = schema.objectMembers,
              members.contains(where: { $0.0 == "allOf" }) || (members.contains(where: { $0.0 == "$ref" }) && members.count > 1) else {
            return try visitUncached(schema, path)
        }
        let key = schema.compactText
        if let r = mergedRules[key] { return [.rule(r)] }
        let r = b.newRule("merged")
        mergedRules[key] = r
        let body = try visitUncached(schema, path)
        b.setAlternatives(r, [body])
        return [.rule(r)]
    }

    private mutating func visitUncached(_ schema: JSONValue, _ path: String) throws(GrammarError) -> [Symbol] {
        guard schema.objectMembers != nil || schema.isBool else { throw .schema(message: "a schema must be an object or boolean", path: path) }
        let schema = try normalize(schema, path)
        if case .bool(let v) = schema {
            if v { return json.value(&b) }
            return [.rule(b.rule("never", []))]
        }
        guard let members = schema.objectMembers else { throw .schema(message: "a schema must be an object or boolean", path: path) }
        if let ref = schema["$ref"] {
            guard let s = ref.stringValue else { throw .schema(message: "$ref must be a string", path: path + ".$ref") }
            return [.rule(try refRule(s, path + ".$ref"))]
        }
        // Listed values are checked against every keyword beside them (if/then/else included).
        if let e = schema["enum"] {
            guard let values = e.arrayValue else { throw .schema(message: "enum must be an array", path: path + ".enum") }
            return try enumRule(values, JSONValue.object(members.filter { $0.0 != "enum" }), path)
        }
        for k in ["if", "then", "else", "$dynamicRef", "$recursiveRef", "unevaluatedProperties", "unevaluatedItems"] where schema[k] != nil {
            throw unsupported(k, path + "." + k)
        }
        for key in ["anyOf", "oneOf"] {
            if let alts = schema[key] {
                guard let list = alts.arrayValue, !list.isEmpty else { throw .schema(message: "\(key) must be a non-empty array", path: path + "." + key) }
                var branches = list
                if key == "oneOf" {
                    do throws(GrammarError) {
                        try checkDisjoint(list, path + ".oneOf")
                    } catch {
                        guard case .unsupportedSchemaFeature = error else { throw error }
                        if let exclusive = try exclusiveRequiredBranches(list) {
                            branches = exclusive
                        } else if !approximatesOneOf {
                            throw error
                        }
                        // Otherwise read as anyOf: an instance matching two branches is not refused.
                    }
                }
                var out: [[Symbol]] = []
                for (i, s) in branches.enumerated() { out.append(try visit(s, "\(path).\(key)[\(i)]")) }
                return b.group(out, name: key)
            }
        }
        if schema["not"] != nil {
            return try notRule(schema, path)
        }
        var types: [String]
        switch schema["type"] {
        case .string(let t)?: types = [t]
        case .array(let ts)?:
            types = []
            if ts.isEmpty { return [.rule(b.rule("never", []))] }
            for t in ts { guard let s = t.stringValue else { throw .schema(message: "type must be strings", path: path + ".type") }; types.append(s) }
        case nil:
            types = Self.inferredTypes(schema)
            // Read as the specification does, keywords of one type leave the other types free.
            if !infersTypes && !types.isEmpty { types = ["null", "boolean", "object", "array", "string", "number"] }
        default: throw .schema(message: "type must be a string or array", path: path + ".type")
        }
        if types.isEmpty { return json.value(&b) }
        var out: [[Symbol]] = []
        for t in types { out.append(try visitType(t, schema, path)) }
        return b.group(out, name: "types")
    }

    static func inferredTypes(_ s: JSONValue) -> [String] {
        // Keywords of one type only constrain that type; generating only it is a subset of the schema.
        func has(_ keys: [String]) -> Bool { keys.contains { s[$0] != nil } }
        if has(["properties", "additionalProperties", "required", "patternProperties", "propertyNames", "minProperties",
                "maxProperties", "dependencies", "dependentRequired", "dependentSchemas"]) { return ["object"] }
        if has(["items", "prefixItems", "additionalItems", "minItems", "maxItems", "uniqueItems", "contains"]) { return ["array"] }
        if has(["pattern", "minLength", "maxLength", "format"]) { return ["string"] }
        if has(["minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf"]) { return ["number"] }
        return []
    }

    private mutating func literal(_ v: JSONValue) -> [Symbol] {
        // Compact text is the one accepted spelling (flexible mode allows trailing space only).
        GrammarBuilder.literal(v.compactText) + json.space(&b)
    }

    private mutating func refRule(_ ref: String, _ path: String) throws(GrammarError) -> Int {
        if let r = refRules[ref] { return r }
        let target = try refTarget(ref, path)
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

    func count(_ s: JSONValue, _ key: String, _ path: String) throws(GrammarError) -> Int? {
        guard let v = s[key] else { return nil }
        // A maximum past the repetition limit is lowered to it: fewer documents, never more.
        if key.hasPrefix("max"), let d = v.doubleValue, d.rounded() == d, d > Double(GrammarBuilder.maxRepetition) {
            return GrammarBuilder.maxRepetition
        }
        guard let n = v.integerValue, n >= 0, n <= GrammarBuilder.maxRepetition else {
            throw .schema(message: "\(key) must be an integer in 0...\(GrammarBuilder.maxRepetition)", path: path + "." + key)
        }
        return n
    }

    private mutating func stringRule(_ s: JSONValue, _ path: String) throws(GrammarError) -> [Symbol] {
        let minLength = try count(s, "minLength", path) ?? 0
        let maxLength = try count(s, "maxLength", path)
        if let m = maxLength, m < minLength { return [.rule(b.rule("never", []))] }
        let constraints = StringConstraints(pattern: s["pattern"]?.stringValue, format: s["format"]?.stringValue,
                                            minLength: minLength, maxLength: maxLength)
        // Kept only when each of the two keywords is absent or a string (others are errors).
        let cacheable = (constraints.pattern != nil || constraints.format != nil)
            && (s["pattern"] == nil || constraints.pattern != nil) && (s["format"] == nil || constraints.format != nil)
        if cacheable, let known = constrainedStrings[constraints] { return known }
        let symbols = try constrainedString(s, minLength: minLength, maxLength: maxLength, path)
        if cacheable { constrainedStrings[constraints] = symbols }
        return symbols
    }

    private mutating func constrainedString(_ s: JSONValue, minLength: Int, maxLength: Int?,
                                            _ path: String) throws(GrammarError) -> [Symbol] {
        // The regular constraints on the content: a pattern, a format, or both.
        var languages: [RegexCompiler.Node] = []
        if let p = s["pattern"] {
            guard let pattern = p.stringValue else { throw .schema(message: "pattern must be a string", path: path + ".pattern") }
            do { languages.append(try patternNode(pattern)) } catch {
                throw .schema(message: error.description, path: path + ".pattern")
            }
        }
        if let f = s["format"] {
            guard let name = f.stringValue else { throw .schema(message: "format must be a string", path: path + ".format") }
            // Unknown formats annotate only (JSON Schema's format-annotation vocabulary, Python jsonschema's default).
            if let node = try formatNode(name, path + ".format") { languages.append(node) }
        }
        guard let first = languages.first else { return json.string(minLength: minLength, maxLength: maxLength, &b) }
        // A length the pattern already implies needs no automaton.
        let implied = ScalarAutomaton.lengthBounds(first)
        let lengthIsFree: Bool
        if let m = maxLength {
            lengthIsFree = implied.min >= minLength && (implied.max.map { $0 <= m } ?? false)
        } else {
            lengthIsFree = implied.min >= minLength
        }
        if languages.count == 1, let run = try? ScalarAutomaton(first).determinized().trimmed().singleClassRun() {
            // A run of one class (`^[a-z0-9_]{3,30}$`): a counted chain over the class, whose
            // token masks come from the unbounded run's (see `JSONGrammar.countedContent`).
            let lo = max(run.min, minLength)
            let hi: Int? = switch (run.max, maxLength) {
            case let (a?, b?): min(a, b)
            case let (a?, nil): a
            case let (nil, b?): b
            case (nil, nil): nil
            }
            if let hi, hi < lo { return [.rule(b.rule("never", []))] }
            if hi.map({ $0 <= GrammarBuilder.maxRepetition }) ?? (lo <= GrammarBuilder.maxRepetition) {
                return json.quoted(json.countedClassContent(run.0, min: lo, max: hi, &b), &b)
            }
        }
        if languages.count == 1 && lengthIsFree { return json.quoted(try regularContent(first), &b) }
        // Otherwise intersect pattern ∩ format ∩ length as deterministic automata over code points.
        var automaton = try ScalarAutomaton(first).determinized()
        for other in languages.dropFirst() { automaton = try automaton.intersection(try ScalarAutomaton(other).determinized()) }
        if !lengthIsFree { automaton = try automaton.intersection(.length(min: minLength, max: maxLength)) }
        return json.quoted(automaton.emit(&b, jsonString: true), &b)
    }

    /// A pattern's strings inside a JSON string, from its deterministic automaton (one matcher
    /// stack: a search such as `.*A.*|.*B.*` written as rules directly keeps many stacks alive), or
    /// written as rules directly when the automaton would be too large.
    mutating func regularContent(_ node: RegexCompiler.Node) throws(GrammarError) -> [Symbol] {
        do {
            return try ScalarAutomaton(node).determinized().emit(&b, jsonString: true)
        } catch {
            guard case .tooLarge = error else { throw error }
            return node.emit(&b, jsonString: true)
        }
    }

    /// The content a `format` allows, as a regex tree; nil for a name that only annotates.
    private mutating func formatNode(_ name: String, _ path: String) throws(GrammarError) -> RegexCompiler.Node? {
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
        case "uuid": pattern = uuid
        default:
            guard let p = Self.formatPatterns[name] else {
                // Validators check the specification's formats (Rust jsonschema by default on older
                // drafts), so one not implemented here is refused; any other name only annotates.
                if Self.specifiedFormats.contains(name) { throw unsupported("format \(name)", path) }
                return nil
            }
            pattern = p
        }
        return try RegexCompiler.parse(pattern)
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
        if s["multipleOf"] != nil {
            let r = try multipleRule(s, path)
            if !r.isEmpty { return r }
        }
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
        if s["multipleOf"] != nil { return try integerRule(s, path) }
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

    /// A quoted key that is none of `names` (for additional properties beside listed ones).
    mutating func excludedKey(_ names: [String]) -> [Symbol] {
        if names.isEmpty { return json.string(&b) }
        if let known = excludedKeys[names] { return known }
        let key = excludedKeyRules(names)
        excludedKeys[names] = key
        return key
    }

    private mutating func excludedKeyRules(_ names: [String]) -> [Symbol] {
        // A trie over the names' bytes; at each node the key may end (if no name ends here),
        // continue along a name, or leave the trie and continue freely.
        let tail = json.stringTail(&b)
        let quote = GrammarBuilder.literal("\"")
        // Trie nodes in breadth-first order (so children come after parents); built without
        // recursion, since names may be long.
        var children: [[(UInt8, Int)]] = [[]]
        var ends: [Bool] = [false]
        for name in names {
            var n = 0
            for c in name.utf8 {
                if let next = children[n].first(where: { $0.0 == c })?.1 { n = next; continue }
                children.append([]); ends.append(false)
                children[n].append((c, children.count - 1))
                n = children.count - 1
            }
            ends[n] = true
        }
        var order: [Int] = [0], head = 0
        while head < order.count { order += children[order[head]].map(\.1); head += 1 }
        var symbols = [[Symbol]](repeating: [], count: children.count)
        for n in order.reversed() {
            var alts: [[Symbol]] = []
            if !ends[n] { alts.append(quote) }
            var nextBytes = ByteSet(), continuesNonASCII = false
            for (c, _) in children[n] { nextBytes.insert(c); continuesNonASCII = continuesNonASCII || c >= 0x80 }
            for (c, child) in children[n].sorted(by: { $0.0 < $1.0 }) { alts.append([.bytes(ByteSet(c))] + symbols[child]) }
            // Any other first character of a string char leaves the trie (ASCII only is checked
            // byte-wise; multi-byte characters always leave it since names are matched as bytes).
            var other = ByteSet()
            for c in UInt8(0x20)...0x7E where c != 0x22 && c != 0x5C && !nextBytes.contains(c) { other.insert(c) }
            alts.append([.bytes(other)] + tail)
            // An escape leaves the trie too, when the character it stands for continues no name here.
            var shortEscapes = ByteSet()
            let escapes: [(UInt8, UInt8)] = [(0x22, 0x22), (0x5C, 0x5C), (0x2F, 0x2F), (0x62, 0x08), (0x66, 0x0C), (0x6E, 0x0A), (0x72, 0x0D), (0x74, 0x09)]
            for (letter, raw) in escapes where !nextBytes.contains(raw) { shortEscapes.insert(letter) }
            if !shortEscapes.isEmpty { alts.append(GrammarBuilder.literal("\\") + [.bytes(shortEscapes)] + tail) }
            // So does a non-ASCII character (raw or `\u`-escaped) where no name continues with one.
            if !continuesNonASCII {
                alts.append(json.nonASCIITail(&b))
            }
            symbols[n] = b.group(alts, name: "key")
        }
        return quote + symbols[0] + json.space(&b)
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

    /// Compiles a parsed JSON Schema with every compiler option.
    public convenience init(jsonSchema schema: JSONValue, options: JSONSchemaOptions) throws(GrammarError) {
        try self.init(JSONSchemaCompiler.compile(schema, options: options))
    }
}

/// How a JSON Schema becomes a grammar, where the schema leaves a choice to the generator.
public struct JSONSchemaOptions: Sendable {
    /// Where whitespace may go.
    public var whitespace: JSONWhitespace
    /// An object schema that lists properties and says nothing of `additionalProperties` admits
    /// only the listed members (the default: a model then writes what the schema describes). False
    /// reads the absence as the specification does: any further members, after the listed ones.
    public var closesUnlistedObjects: Bool
    /// Members may come in any order. Exact up to 10 listed properties; larger objects count their
    /// required members, so a key may repeat (a duplicate key, each value valid; see Docs/grammar.md).
    /// Off by default: schema order is what a model should write, and keeps masks cheap.
    public var anyPropertyOrder: Bool
    /// A schema without `type` whose keywords all concern one type (say `properties`) admits only
    /// that type (the default: what the schema's author means). False reads it as the
    /// specification does: the other types are unconstrained.
    public var infersTypes: Bool
    /// `pattern` and `patternProperties` as searches, as the specification reads them (an
    /// unanchored pattern may have text around its match). Off by default: the generated string is
    /// a whole match (as llama.cpp does), which is also valid and what `@Guide(pattern)` means.
    public var patternsSearch: Bool
    /// Read a `oneOf` whose branches cannot be proven disjoint as `anyOf` instead of refusing it.
    /// Off by default: it over-approximates ("exactly one branch" is not a context-free constraint
    /// in general), so an instance matching two branches could be generated; on MaskBench's
    /// development set it lets invalid instances through (see Docs/grammar.md). When off, such a
    /// schema is refused with `unsupportedSchemaFeature("oneOf …")`.
    public var approximatesOneOf: Bool
    /// Leave out a route for further members (`patternProperties`, `additionalProperties`) whose
    /// value schema is refused, instead of refusing the whole schema. Off by default: the grammar
    /// would then refuse valid documents that use that route (it *under*-approximates; everything it
    /// admits is still valid). On, a schema with one unsupported corner still gives a usable grammar
    /// for generation: the model just never writes such a member.
    public var narrowsRefusedMembers: Bool

    public init(whitespace: JSONWhitespace = .compact, closesUnlistedObjects: Bool = true, anyPropertyOrder: Bool = false,
                infersTypes: Bool = true, patternsSearch: Bool = false, approximatesOneOf: Bool = false,
                narrowsRefusedMembers: Bool = false) {
        self.whitespace = whitespace
        self.closesUnlistedObjects = closesUnlistedObjects
        self.anyPropertyOrder = anyPropertyOrder
        self.infersTypes = infersTypes
        self.patternsSearch = patternsSearch
        self.approximatesOneOf = approximatesOneOf
        self.narrowsRefusedMembers = narrowsRefusedMembers
    }
}

extension JSONSchemaCompiler {
    /// A pattern to generate from: a search or a whole match (see `JSONSchemaOptions.patternsSearch`).
    func patternNode(_ pattern: String) throws(GrammarError) -> RegexCompiler.Node {
        patternsSearch ? try RegexCompiler.parseSearch(pattern) : try RegexCompiler.parse(pattern)
    }
}
