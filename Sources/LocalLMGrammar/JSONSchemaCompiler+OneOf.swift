/// `oneOf` as `anyOf` when no instance can satisfy two branches (so "exactly one" is "at least
/// one"), and the few `not` forms that have an exact positive reading.
extension JSONSchemaCompiler {
    /// `oneOf` whose branches are (siblings plus) a bare `required` list: branch i becomes "branch i
    /// and, for every other branch, one of its required members absent" — exact, and disjoint by
    /// construction. Nil when some branch is not of that form.
    mutating func exclusiveRequiredBranches(_ branches: [JSONValue]) throws(GrammarError) -> [JSONValue]? {
        var rest: JSONValue? = nil
        var lists: [[JSONValue]] = []
        for branch in branches {
            // Distributed siblings come as allOf [siblings, branch].
            var own = branch
            if let parts = branch["allOf"]?.arrayValue, parts.count == 2, branch.objectMembers?.count == 1 {
                if let r = rest, r != parts[0] { return nil }
                rest = parts[0]
                own = parts[1]
            } else if rest != nil { return nil }
            let validating = Self.validating(own.objectMembers ?? [])
            guard validating.count == 1, validating[0].0 == "required", let names = validating[0].1.arrayValue, !names.isEmpty else { return nil }
            lists.append(names)
        }
        var out: [JSONValue] = []
        for (i, names) in lists.enumerated() {
            var parts: [JSONValue] = [rest ?? .bool(true), .object([("required", .array(names))])]
            for (j, other) in lists.enumerated() where j != i {
                // Not all of branch j's members: one of them absent.
                parts.append(.object([("anyOf", .array(other.map { .object([("not", .object([("required", .array([$0]))]))]) }))]))
            }
            out.append(.object([("allOf", .array(parts))]))
        }
        return out
    }

    /// Throws unless every pair of branches is provably disjoint.
    mutating func checkDisjoint(_ branches: [JSONValue], _ path: String) throws(GrammarError) {
        guard branches.count > 1 else { return }
        guard branches.count <= Self.maxBranches else { throw .tooLarge(message: "oneOf with more than \(Self.maxBranches) branches at \(path)") }
        var resolved: [JSONValue] = []
        for (i, s) in branches.enumerated() { resolved.append(try resolveForMerge(s, "\(path)[\(i)]", depth: 0)) }
        for i in resolved.indices {
            for j in resolved.indices where j > i {
                if !(try disjoint(resolved[i], resolved[j], depth: 0)) {
                    throw unsupported("oneOf (branches \(i) and \(j) may both match)", path)
                }
            }
        }
    }

    /// The types an instance of `s` can have (nil: any). "number" includes "integer".
    static func possibleTypes(_ s: JSONValue) -> Set<String>? {
        if s == .bool(false) { return [] }
        var types: Set<String>? = nil
        if let t = s["type"] {
            var set = typeSet(t)
            if set.contains("number") { set.insert("integer") }
            types = set
        }
        if let values = s["enum"]?.arrayValue {
            var set = Set<String>()
            for v in values {
                for t in ["null", "boolean", "string", "array", "object", "number", "integer"] where hasType(v, t) { set.insert(t) }
            }
            types = types.map { $0.intersection(set) } ?? set
        }
        return types
    }

    /// True only when no instance the grammar builds for either schema satisfies the other (both
    /// normalized, `$ref`-resolved): then "exactly one branch" is "some branch" on what is generated.
    mutating func disjoint(_ a: JSONValue, _ b: JSONValue, depth: Int) throws(GrammarError) -> Bool {
        guard depth < 8 else { return false }
        if a == .bool(false) || b == .bool(false) { return true }
        if let ea = a["enum"]?.arrayValue, ea.allSatisfy({ admits($0, b, depth: 0) == false }) { return true }
        if let eb = b["enum"]?.arrayValue, eb.allSatisfy({ admits($0, a, depth: 0) == false }) { return true }
        guard try oneWayDisjoint(a, b, depth: depth) else { return false }
        return try oneWayDisjoint(b, a, depth: depth)
    }

    /// Every instance generated for `a` fails `b`, type by type.
    private mutating func oneWayDisjoint(_ a: JSONValue, _ b: JSONValue, depth: Int) throws(GrammarError) -> Bool {
        let all: Set<String> = ["null", "boolean", "string", "array", "object", "number", "integer"]
        let inferred = Self.inferredTypes(a)
        // What the grammar generates for `a`: its declared types, else the inferred ones (or all).
        var generated = Self.possibleTypes(a) ?? (inferred.isEmpty || !infersTypes ? all : Set(inferred))
        if generated.contains("number") { generated.insert("integer") }
        let allowed = Self.possibleTypes(b) ?? all
        for t in generated where allowed.contains(t) || (t == "number" && allowed.contains("integer")) {
            if t == "integer" && !allowed.contains("integer") && !allowed.contains("number") { continue }
            guard t == "object", try objectsDisjoint(a, b, depth: depth) else { return false }
        }
        return true
    }

    /// Some member one side requires has schemas on the two sides that no value satisfies together.
    private mutating func objectsDisjoint(_ a: JSONValue, _ b: JSONValue, depth: Int) throws(GrammarError) -> Bool {
        let ra = Set((a["required"]?.arrayValue ?? []).compactMap(\.stringValue))
        let rb = Set((b["required"]?.arrayValue ?? []).compactMap(\.stringValue))
        for name in ra.union(rb).sorted() {
            guard let sa = memberSchema(a, name), let sb = memberSchema(b, name) else { continue }
            let x = try resolveForMerge(sa, "", depth: 0), y = try resolveForMerge(sb, "", depth: 0)
            if try disjoint(x, y, depth: depth + 1) { return true }
        }
        return false
    }

    /// The schema a member named `name` must satisfy in `s` (nil when patternProperties make it unclear).
    func memberSchema(_ s: JSONValue, _ name: String) -> JSONValue? {
        if s["patternProperties"] != nil { return nil }
        if let p = s["properties"]?[name] { return p }
        return s["additionalProperties"] ?? .bool(true)
    }

    /// `not` beside other keywords, where it has an exact positive reading: `not {type}` removes
    /// types, `not {required: [one]}` forbids a member, `not {enum}` over scalars removes values
    /// from an `enum`/`type: boolean|null`. Anything else is refused.
    mutating func notRule(_ schema: JSONValue, _ path: String) throws(GrammarError) -> [Symbol] {
        guard let members = schema.objectMembers, let n = schema["not"] else { return [] }
        var rest = members.filter { $0.0 != "not" }
        let neg = try resolveForMerge(n, path + ".not", depth: 0)
        if neg == .bool(true) { return [.rule(b.rule("never", []))] }
        if neg == .bool(false) { return try visit(.object(rest), path) }
        let keys = Set(neg.objectMembers?.map(\.0) ?? [])
        if keys == ["type"], let t = neg["type"] {
            var excluded = Self.typeSet(t)
            if excluded.contains("number") { excluded.insert("integer") }
            let current = Self.possibleTypes(.object(rest)) ?? ["null", "boolean", "string", "array", "object", "number", "integer"]
            var kept = current.subtracting(excluded)
            if kept.contains("number") && excluded.contains("integer") {
                throw unsupported("not {type: integer} beside numbers", path + ".not")
            }
            if kept.contains("number") { kept.remove("integer") }
            let order = ["null", "boolean", "object", "array", "string", "number", "integer"]
            rest.removeAll { $0.0 == "type" }
            rest.append(("type", .array(order.filter { kept.contains($0) }.map { .string($0) })))
            if kept.isEmpty { return [.rule(b.rule("never", []))] }
            return try visit(.object(rest), path)
        }
        // not {required: [a]}, or not {anyOf: [{required: [a]}, {required: [b]}, …]}: members that must be absent.
        var absent: [String] = []
        if keys == ["required"], let names = neg["required"]?.arrayValue, names.count == 1, let name = names[0].stringValue {
            absent = [name]
        } else if keys == ["anyOf"], let list = neg["anyOf"]?.arrayValue {
            for item in list {
                let r = try resolveForMerge(item, path + ".not", depth: 0)
                guard Set(r.objectMembers?.map(\.0) ?? []) == ["required"], let names = r["required"]?.arrayValue, names.count == 1,
                      let name = names[0].stringValue else { absent = []; break }
                absent.append(name)
            }
        }
        if !absent.isEmpty {
            // The members must be absent: listed as `false`.
            var props = rest.first { $0.0 == "properties" }?.1.objectMembers ?? []
            for name in absent {
                if let i = props.firstIndex(where: { $0.0 == name }) { props[i].1 = .bool(false) } else { props.append((name, .bool(false))) }
                if (rest.first { $0.0 == "required" }?.1.arrayValue ?? []).contains(.string(name)) { return [.rule(b.rule("never", []))] }
            }
            if rest.contains(where: { $0.0 == "patternProperties" }) { throw unsupported("not {required} beside patternProperties", path + ".not") }
            if !rest.contains(where: { $0.0 == "additionalProperties" }) && !props.contains(where: { !absent.contains($0.0) }) {
                rest.append(("additionalProperties", .bool(true)))
            }
            rest.removeAll { $0.0 == "properties" }
            rest.append(("properties", .object(props)))
            if !rest.contains(where: { $0.0 == "type" }) { rest.append(("type", .string("object"))) }
            return try visit(.object(rest), path)
        }
        if let values = rest.first(where: { $0.0 == "enum" })?.1.arrayValue {
            // Each listed value either satisfies the negated schema or not: decidable per value.
            var kept: [JSONValue] = []
            for v in values {
                guard let r = admits(v, neg, depth: 0) else { throw unsupported("not (undecidable on the enum values)", path + ".not") }
                if !r { kept.append(v) }
            }
            rest.removeAll { $0.0 == "enum" }
            rest.append(("enum", .array(kept)))
            return try visit(.object(rest), path)
        }
        throw unsupported("not", path + ".not")
    }
}
