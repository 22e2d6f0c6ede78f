/// Objects: listed properties in schema order, then extra members through `patternProperties`
/// and `additionalProperties`; `dependencies` split into exact alternatives; counts where exact.
extension JSONSchemaCompiler {
    static let dependencyKeywords = ["dependencies", "dependentRequired", "dependentSchemas"]
    /// Dependencies split into 2^n alternatives; more than this many are refused.
    static let maxDependencies = 5
    /// In any order, objects with more listed properties than this count their required members
    /// instead of tracking each member.
    static let maxUnorderedProperties = 10
    /// Pattern properties split exactly by the set of patterns a key matches (2^n key languages) up to this many.
    static let maxExactPatternRoutes = 4

    mutating func objectRule(_ s: JSONValue, _ path: String) throws(GrammarError) -> [Symbol] {
        if let variants = try dependencyVariants(s, path) {
            return try visit(.object([("anyOf", .array(variants))]), path)
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
        var patterns: [(String, JSONValue)] = []
        if let p = s["patternProperties"] {
            guard let m = p.objectMembers else { throw .schema(message: "patternProperties must be an object", path: path + ".patternProperties") }
            patterns = m
        }
        // Extra members: none unless additionalProperties allows (or the object lists nothing at all).
        var extra: JSONValue? = nil
        switch s["additionalProperties"] {
        case nil: if (props.isEmpty && patterns.isEmpty) || !closesUnlistedObjects { extra = .bool(true) }
        case .bool(false)?: extra = nil
        case let v?: extra = v
        }
        // A required name that is not listed comes through the listed route, with the schema extras would have.
        for name in required.sorted() where !props.contains(where: { $0.0 == name }) {
            var matching: [JSONValue] = []
            for (p, v) in patterns where try searchMatches(p, name, path) { matching.append(v) }
            if !matching.isEmpty {
                props.append((name, .object([("allOf", .array(matching))])))
            } else {
                props.append((name, s["additionalProperties"] ?? .bool(true)))
            }
        }
        // Listed names must also satisfy the patterns they match, and propertyNames.
        for i in props.indices {
            let name = props[i].0
            var matching: [JSONValue] = []
            for (p, v) in patterns where try searchMatches(p, name, path) { matching.append(v) }
            if !matching.isEmpty { props[i].1 = .object([("allOf", .array([props[i].1] + matching))]) }
            if let names = s["propertyNames"] {
                guard let ok = admits(.string(name), names, depth: 0) else { throw unsupported("propertyNames (undecidable on listed names)", path + ".propertyNames") }
                if !ok { props[i].1 = .bool(false) }
            }
        }
        // Extra member routes: split exactly by the patterns a key matches where the automata allow,
        // else the narrowed routes (see exactExtraRoutes and approximateExtraRoutes).
        var routes: [(key: [Symbol], value: JSONValue, path: String)] = []
        let overlapping = patterns.count >= 2 && patterns.indices.contains { i in
            patterns.indices.contains { j in j > i && !Self.patternsDisjoint(patterns[i].0, patterns[j].0) }
        }
        if overlapping || (!patterns.isEmpty && extra != nil), patterns.count <= Self.maxExactPatternRoutes,
           let exact = try exactExtraRoutes(patterns: patterns, listed: props.map(\.0), extra: extra, path) {
            routes = exact
        } else {
            routes = try approximateExtraRoutes(patterns: patterns, listed: props.map(\.0), extra: extra, path)
        }
        if !routes.isEmpty, let names = s["propertyNames"], names != .bool(true) {
            throw unsupported("propertyNames beside additional or pattern properties", path + ".propertyNames")
        }
        // Member counts: only where the structure already decides them.
        var nonEmpty = false
        if let m = try count(s, "minProperties", path), m > required.count {
            guard m == 1 else { throw unsupported("minProperties above the required count", path + ".minProperties") }
            nonEmpty = true
        }
        if let m = try count(s, "maxProperties", path) {
            if m < required.count { return [.rule(b.rule("never", []))] }
            guard routes.isEmpty, m >= props.count else { throw unsupported("maxProperties below the possible member count", path + ".maxProperties") }
        }

        let open = json.token("{", &b), close = json.token("}", &b), comma = json.token(",", &b), colon = json.token(":", &b)
        var extraMember: [Symbol]? = nil
        if !routes.isEmpty {
            var alts: [[Symbol]] = []
            for r in routes {
                let v: [Symbol]
                do { v = try visit(r.value, r.path) } catch {
                    // Refused, unless asked to leave the route out (fewer documents, never more).
                    if narrowsRefusedMembers {
                        switch error {
                        case .unsupportedSchemaFeature, .tooLarge: continue
                        default: break
                        }
                    }
                    throw error
                }
                alts.append(r.key + colon + v)
            }
            if !alts.isEmpty { extraMember = b.group(alts, name: "extra-member") }
        }
        if anyPropertyOrder && props.count >= 2 {
            return try unorderedMembers(props, required: required, extra: extraMember, nonEmpty: nonEmpty, path)
        }
        // tail(i, first): the members from i on; `first` means no comma is owed before the next one.
        var next: [Bool: [Symbol]] = [:]
        for first in [true, false] {
            var alts: [[Symbol]] = []
            if !(first && nonEmpty) { alts.append([]) }
            if let e = extraMember {
                let more = b.repeated(comma + e, min: 0, max: nil, name: "extra")
                alts.append((first ? [] : comma) + e + more)
            }
            next[first] = alts.isEmpty ? [.rule(b.rule("never", []))] : b.group(alts, name: "extras")
        }
        for (i, (name, schema)) in props.enumerated().reversed() {
            let value = try visit(schema, "\(path).properties.\(name)")
            let member = stringLiteral(name) + json.space(&b) + colon + value
            var built: [Bool: [Symbol]] = [:]
            for first in [true, false] {
                let withIt = (first ? [] : comma) + member + (next[false] ?? [])
                if required.contains(name) {
                    built[first] = [.rule(b.rule("members-\(i)", [withIt]))]
                } else {
                    built[first] = [.rule(b.rule("members-\(i)", [withIt, next[first] ?? []]))]
                }
            }
            next = built
        }
        return open + (next[true] ?? []) + close
    }

    /// Listed members in any order, extra members anywhere. Up to `maxUnorderedProperties` listed
    /// members: one rule per set of members written so far, each member at most once (exact).
    /// Larger objects: one rule per count of required members written; a required member moves to
    /// the next count and the object may end only at the last, an optional member may come anywhere.
    /// The one over-approximation there is a repeated key (each of its values satisfies its schema;
    /// a required member repeated in place of another one: counted, so a document missing a
    /// required member without repeating another is still refused). Docs/grammar.md.
    private mutating func unorderedMembers(_ props: [(String, JSONValue)], required: Set<String>, extra: [Symbol]?,
                                           nonEmpty: Bool, _ path: String) throws(GrammarError) -> [Symbol] {
        let open = json.token("{", &b), close = json.token("}", &b), comma = json.token(",", &b), colon = json.token(":", &b)
        var members: [[Symbol]] = []
        for (name, schema) in props {
            let value = try visit(schema, "\(path).properties.\(name)")
            members.append([.rule(b.rule("member", [stringLiteral(name) + json.space(&b) + colon + value]))])
        }
        let n = props.count
        let isRequired = props.map { required.contains($0.0) }
        // State s; next(s, i): the state after member i, nil when member i cannot come in state s.
        let states: Int, done: (Int) -> Bool, next: (Int, Int) -> Int?
        if n <= Self.maxUnorderedProperties {
            var requiredMask = 0
            for i in 0..<n where isRequired[i] { requiredMask |= 1 << i }
            states = 1 << n
            done = { $0 & requiredMask == requiredMask }
            next = { s, i in s & (1 << i) == 0 ? s | (1 << i) : nil }
        } else {
            let count = isRequired.filter { $0 }.count
            states = count + 1
            done = { $0 == count }
            next = { s, i in isRequired[i] ? (s < count ? s + 1 : nil) : s }
        }
        // after[s]: the rest of the object in state s, once at least one member is written.
        let after = (0..<states).map { _ in b.newRule("members-after") }
        for s in 0..<states {
            var alts: [[Symbol]] = done(s) ? [[]] : []
            for i in 0..<n { if let t = next(s, i) { alts.append(comma + members[i] + [.rule(after[t])]) } }
            if let extra { alts.append(comma + extra + [.rule(after[s])]) }
            b.setAlternatives(after[s], alts)
        }
        var first: [[Symbol]] = done(0) && !nonEmpty ? [[]] : []
        for i in 0..<n { if let t = next(0, i) { first.append(members[i] + [.rule(after[t])]) } }
        if let extra { first.append(extra + [.rule(after[0])]) }
        return open + b.group(first, name: "members") + close
    }

    typealias MemberRoute = (key: [Symbol], value: JSONValue, path: String)

    /// Extra-member routes split by which patterns a key matches: for each set S of patterns, the
    /// keys that match (as a search, as the specification reads `patternProperties`) exactly the
    /// patterns of S and no listed name, whose value satisfies every schema of S; and the keys that
    /// match no pattern and no listed name, whose value satisfies `additionalProperties`. Exact. Nil
    /// when an automaton grows past its bounds (the caller then takes the approximate routes).
    private mutating func exactExtraRoutes(patterns: [(String, JSONValue)], listed: [String], extra: JSONValue?,
                                           _ path: String) throws(GrammarError) -> [MemberRoute]? {
        do throws(GrammarError) {
            var matching: [ScalarAutomaton] = [], notMatching: [ScalarAutomaton] = []
            for (pattern, _) in patterns {
                let generated: RegexCompiler.Node, searched: RegexCompiler.Node
                do throws(GrammarError) {
                    generated = try patternNode(pattern)
                    searched = try RegexCompiler.parseSearch(pattern)
                } catch { throw GrammarError.schema(message: error.description, path: path + ".patternProperties") }
                // Keys generated for a pattern: its matches as `patternNode` reads them (a whole
                // match by default, a subset of the searches); keys kept away from it: every search hit.
                matching.append(try ScalarAutomaton(generated).determinized())
                notMatching.append(try ScalarAutomaton(searched).determinized().complement())
            }
            let unlisted = listed.isEmpty ? nil : try ScalarAutomaton.literals(listed).complement()
            var routes: [MemberRoute] = []
            for subset in 1..<(1 << patterns.count) {
                let parts = patterns.indices.map { subset & (1 << $0) != 0 ? matching[$0] : notMatching[$0] }
                guard let keys = try Self.intersection(of: (unlisted.map { [$0] } ?? []) + parts) else { continue }
                let values = patterns.indices.filter { subset & (1 << $0) != 0 }.map { patterns[$0].1 }
                routes.append((json.quoted(keys.emit(&b, jsonString: true), &b),
                               values.count == 1 ? values[0] : .object([("allOf", .array(values))]), path + ".patternProperties"))
            }
            if let extra {
                if let keys = try Self.intersection(of: (unlisted.map { [$0] } ?? []) + notMatching) {
                    routes.append((json.quoted(keys.emit(&b, jsonString: true), &b), extra, path + ".additionalProperties"))
                }
            }
            return routes
        } catch {
            guard case .tooLarge = error else { throw error }
            return nil
        }
    }

    /// The strings every automaton accepts; nil when there are none.
    private static func intersection(of automata: [ScalarAutomaton]) throws(GrammarError) -> ScalarAutomaton? {
        guard var result = automata.first else { return nil }
        for a in automata.dropFirst() {
            result = try result.intersection(a)
            if !result.accepting.contains(true) { return nil }
        }
        return result.accepting.contains(true) ? result : nil
    }

    /// The routes when the exact split is too large: a key matching pattern i takes the schemas of
    /// every pattern that may also match it, and any unlisted key takes `additionalProperties` and
    /// every pattern's schema. Fewer documents than the schema admits, never more.
    private mutating func approximateExtraRoutes(patterns: [(String, JSONValue)], listed: [String], extra: JSONValue?,
                                                 _ path: String) throws(GrammarError) -> [MemberRoute] {
        var routes: [MemberRoute] = []
        for (i, (pattern, schema)) in patterns.enumerated() {
            var shadowed: [String] = []
            for name in listed where try searchMatches(pattern, name, path) { shadowed.append(name) }
            var values = [schema]
            for (j, other) in patterns.enumerated() where j != i && !Self.patternsDisjoint(pattern, other.0) { values.append(other.1) }
            let node: RegexCompiler.Node
            do { node = try patternNode(pattern) } catch { throw .schema(message: error.description, path: path + ".patternProperties") }
            let key: [Symbol]
            if shadowed.isEmpty {
                key = json.quoted(try regularContent(node), &b)
            } else {
                // Listed names the pattern matches come through their listed route (with this
                // pattern's schema too): the extra-key route takes the pattern minus those names.
                let keys = try ScalarAutomaton(node).determinized().intersection(try ScalarAutomaton.literals(shadowed).complement())
                key = json.quoted(keys.emit(&b, jsonString: true), &b)
            }
            routes.append((key, values.count == 1 ? schema : .object([("allOf", .array(values))]), path + ".patternProperties"))
        }
        if let extra {
            let values = [extra] + patterns.map(\.1)
            routes.append((excludedKey(listed), values.count == 1 ? extra : .object([("allOf", .array(values))]), path + ".additionalProperties"))
        }
        return routes
    }

    /// `dependencies`/`dependentRequired`/`dependentSchemas` as alternatives: for each trigger name,
    /// either it is absent, or it is present with what it requires. Nil when there are none.
    mutating func dependencyVariants(_ s: JSONValue, _ path: String) throws(GrammarError) -> [JSONValue]? {
        var deps: [(String, JSONValue)] = []
        for k in Self.dependencyKeywords { deps += s[k]?.objectMembers ?? [] }
        guard let members = s.objectMembers, !deps.isEmpty || Self.dependencyKeywords.contains(where: { s[$0] != nil }) else { return nil }
        guard deps.count <= Self.maxDependencies else {
            throw unsupported("more than \(Self.maxDependencies) dependencies", path + ".dependencies")
        }
        let base = members.filter { !Self.dependencyKeywords.contains($0.0) && $0.0 != "type" } + [("type", .string("object"))]
        let required = (s["required"]?.arrayValue ?? []).compactMap(\.stringValue)
        var variants: [JSONValue] = [.object(base)]
        for (name, dep) in deps {
            var next: [JSONValue] = []
            for v in variants {
                guard var m = v.objectMembers else { continue }
                // Present: the name and what it needs.
                var present = m
                var extraSchema: JSONValue? = nil
                var needs = [name]
                if let list = dep.arrayValue {
                    needs += list.compactMap(\.stringValue)
                } else if dep.objectMembers != nil || dep.isBool {
                    extraSchema = dep
                } else {
                    throw .schema(message: "a dependency must be an array or a schema", path: path + ".dependencies." + name)
                }
                var req = (present.first { $0.0 == "required" }?.1.arrayValue ?? [])
                for n in needs where !req.contains(.string(n)) { req.append(.string(n)) }
                present.removeAll { $0.0 == "required" }
                present.append(("required", .array(req)))
                if let extraSchema {
                    next.append(.object([("allOf", .array([.object(present), extraSchema]))]))
                } else {
                    next.append(.object(present))
                }
                // Absent: listed as `false`.
                if !required.contains(name) && !(m.first { $0.0 == "required" }?.1.arrayValue ?? []).contains(.string(name)) {
                    var props = m.first { $0.0 == "properties" }?.1.objectMembers ?? []
                    if let i = props.firstIndex(where: { $0.0 == name }) { props[i].1 = .bool(false) } else { props.append((name, .bool(false))) }
                    if m.first(where: { $0.0 == "properties" }) == nil && m.first(where: { $0.0 == "additionalProperties" }) == nil {
                        m.append(("additionalProperties", .bool(true)))
                    }
                    m.removeAll { $0.0 == "properties" }
                    m.append(("properties", .object(props)))
                    next.append(.object(m))
                }
            }
            variants = next
        }
        return variants
    }

    /// Whether `pattern` (JSON Schema search semantics) matches `text`.
    func searchMatches(_ pattern: String, _ text: String, _ path: String) throws(GrammarError) -> Bool {
        // Python's classes (\w, \d, \s) also take non-ASCII characters; the grammar's do not.
        guard text.utf8.allSatisfy({ $0 < 0x80 }) else { throw .unsupportedSchemaFeature(feature: "patternProperties beside a non-ASCII property name", path: path + ".patternProperties") }
        do {
            return try patternCache.matches(pattern, text)
        } catch {
            // A pattern that does not parse is an error in the schema.
            if case .regex = error { throw .schema(message: error.description, path: path + ".patternProperties") }
            throw error
        }
    }

    /// Two patterns that both start with `^` and a literal, where neither literal begins the other.
    static func patternsDisjoint(_ p: String, _ q: String) -> Bool {
        func prefix(_ s: String) -> String? {
            guard s.hasPrefix("^") else { return nil }
            var out = ""
            for c in s.dropFirst() {
                if c.isLetter || c.isNumber || c == "_" || c == "-" || c == ":" || c == "@" || c == "/" { out.append(c) } else { break }
            }
            // A quantifier after the literal would make its last character optional.
            if let next = s.dropFirst(1 + out.count).first, "*?{".contains(next) { out = String(out.dropLast()) }
            return out.isEmpty ? nil : out
        }
        guard let a = prefix(p), let b = prefix(q) else { return false }
        return !a.hasPrefix(b) && !b.hasPrefix(a)
    }
}
