/// Schema normalization before grammar building: annotations and unknown keywords dropped (a
/// validator ignores them too), `allOf` merged into one schema, keywords beside `anyOf`/`oneOf`
/// distributed into each branch, `$ref` beside other keywords resolved. Every step is exact (the
/// normalized schema accepts the same instances); where it cannot be, a typed error names the
/// keyword and path.
extension JSONSchemaCompiler {
    /// Keywords that constrain instances (drafts 4 to 2020-12). Anything else annotates and is ignored.
    static let validationKeywords: Set<String> = [
        "type", "properties", "required", "additionalProperties", "patternProperties", "propertyNames",
        "minProperties", "maxProperties", "dependencies", "dependentRequired", "dependentSchemas",
        "unevaluatedProperties", "items", "prefixItems", "additionalItems", "unevaluatedItems", "contains",
        "minContains", "maxContains", "minItems", "maxItems", "uniqueItems", "enum", "const", "anyOf", "oneOf",
        "allOf", "not", "if", "then", "else", "$ref", "$dynamicRef", "$recursiveRef", "minimum", "maximum",
        "exclusiveMinimum", "exclusiveMaximum", "multipleOf", "pattern", "minLength", "maxLength", "format",
    ]
    /// Alternatives a distribution may create before the schema is refused as too large.
    static let maxBranches = 128
    /// `allOf`/`$ref` resolution depth before a schema is refused as too deep or recursive.
    static let maxMergeDepth = 24

    /// Draft 4 to 7 ignore the keywords beside `$ref` (Python jsonschema's `ignore_ref_siblings`).
    static func ignoresRefSiblings(_ root: JSONValue) -> Bool {
        guard let s = root["$schema"]?.stringValue else { return false }
        return ["draft-03", "draft-04", "draft-06", "draft-07"].contains { s.contains($0) }
    }

    /// The validating members of `schema`, with `const` as a one-value `enum`.
    static func validating(_ members: [(String, JSONValue)]) -> [(String, JSONValue)] {
        var out: [(String, JSONValue)] = []
        for (k, v) in members where validationKeywords.contains(k) || k == "x-order" {
            if k == "const" {
                if let i = out.firstIndex(where: { $0.0 == "enum" }), let list = out[i].1.arrayValue {
                    out[i].1 = .array(list.filter { $0 == v })
                } else {
                    out.append(("enum", .array([v])))
                }
            } else if k == "enum", let i = out.firstIndex(where: { $0.0 == "enum" }), let list = out[i].1.arrayValue {
                out[i].1 = .array(list.filter { x in v.arrayValue?.contains(x) ?? true })
            } else {
                out.append((k, v))
            }
        }
        return out
    }

    /// A schema in which `allOf` is gone, `$ref` stands alone, and `anyOf`/`oneOf` stand alone.
    mutating func normalize(_ schema: JSONValue, _ path: String, depth: Int = 0) throws(GrammarError) -> JSONValue {
        normalizeBudget -= 1
        guard normalizeBudget > 0 else { throw .tooLarge(message: "schema needs more than 100000 normalization steps (at \(path))") }
        guard depth <= Self.maxMergeDepth else { throw .tooLarge(message: "allOf/$ref nested deeper than \(Self.maxMergeDepth) at \(path)") }
        guard let raw = schema.objectMembers else { return schema }
        if let e = schema["enum"] {
            guard let values = e.arrayValue else { throw .schema(message: "enum must be an array", path: path + ".enum") }
            // An empty enum (allowed since draft 6: "SHOULD have at least one element") admits nothing.
            if values.isEmpty { return .bool(false) }
        }
        var members = Self.validating(raw)
        if let ref = members.first(where: { $0.0 == "$ref" }), members.count > 1 {
            if Self.ignoresRefSiblings(root) {
                members = [ref]
            } else {
                let rest = members.filter { $0.0 != "$ref" }
                members = [("allOf", .array([.object([ref]), .object(rest)]))]
            }
        }
        if let i = members.firstIndex(where: { $0.0 == "allOf" }) {
            guard let list = members[i].1.arrayValue, !list.isEmpty else { throw .schema(message: "allOf must be a non-empty array", path: path + ".allOf") }
            members.remove(at: i)
            var merged = JSONValue.object(members)
            for (n, item) in list.enumerated() {
                let resolved = try resolveForMerge(item, "\(path).allOf[\(n)]", depth: depth + 1)
                merged = try merge(merged, resolved, path)
            }
            return try normalize(merged, path, depth: depth + 1)
        }
        for key in ["anyOf", "oneOf"] {
            guard let i = members.firstIndex(where: { $0.0 == key }), members.count > 1 else { continue }
            guard let list = members[i].1.arrayValue, !list.isEmpty else { throw .schema(message: "\(key) must be a non-empty array", path: path + "." + key) }
            let rest = members.enumerated().filter { $0.offset != i }.map(\.element)
            // rest ∧ (b1 ∨ b2 …) = (rest ∧ b1) ∨ (rest ∧ b2) …; "exactly one" is kept the same way.
            let branches = list.map { JSONValue.object([("allOf", .array([.object(rest), $0]))]) }
            return .object([(key, .array(branches))])
        }
        return .object(members)
    }

    /// `schema` normalized, with a lone `$ref` replaced by its target (for merging).
    mutating func resolveForMerge(_ schema: JSONValue, _ path: String, depth: Int) throws(GrammarError) -> JSONValue {
        var s = try normalize(schema, path, depth: depth)
        var d = depth
        while let ref = s["$ref"]?.stringValue {
            d += 1
            guard d <= Self.maxMergeDepth else { throw .tooLarge(message: "$ref chain deeper than \(Self.maxMergeDepth) at \(path) (recursive allOf?)") }
            s = try normalize(try refTarget(ref, path + ".$ref"), ref, depth: d)
        }
        return s
    }

    /// The schema `ref` points to in the root document.
    func refTarget(_ ref: String, _ path: String) throws(GrammarError) -> JSONValue {
        guard ref.hasPrefix("#") else { throw unsupported("$ref to another document (\(ref))", path) }
        // A JSON Pointer (RFC 6901) after "#": every segment counts, the empty one too ("#/" is the member
        // named ""). Where that finds nothing, the fragment is read leniently as slash-separated keys with
        // empty segments skipped, as real-world schemas sometimes write ("#definitions/a", "#/a//b").
        let fragment = ref.dropFirst()
        if fragment.hasPrefix("/"),
           let target = pointee(fragment.dropFirst().split(separator: "/", omittingEmptySubsequences: false)) {
            return target
        }
        if let target = pointee(fragment.split(separator: "/", omittingEmptySubsequences: true)) { return target }
        throw .schema(message: "$ref target \(ref) not found", path: path)
    }

    /// The value at the unescaped pointer segments `parts`, or nil.
    private func pointee(_ parts: [Substring]) -> JSONValue? {
        var target = root
        for part in parts {
            let key = String(part).split(separator: "~1", omittingEmptySubsequences: false).joined(separator: "/")
                .split(separator: "~0", omittingEmptySubsequences: false).joined(separator: "~")
                .removingPercentEncodingOfJSONPointer
            if let next = target[key] { target = next; continue }
            if let list = target.arrayValue, let i = Int(key), list.indices.contains(i) { target = list[i]; continue }
            return nil
        }
        return target
    }

    /// The schema both `a` and `b` describe (both normalized; `b` is not a lone `$ref`).
    mutating func merge(_ a: JSONValue, _ b: JSONValue, _ path: String) throws(GrammarError) -> JSONValue {
        if case .bool(let x) = a { return x ? b : a }
        if case .bool(let y) = b { return y ? a : b }
        guard var out = a.objectMembers, let bm = b.objectMembers else { return a }
        if let ref = out.first(where: { $0.0 == "$ref" }) {
            // A lone $ref on the left (the first allOf item): merge into a separate allOf level.
            return .object([("allOf", .array([.object([ref]), .object(out.filter { $0.0 != "$ref" }), b]))])
        }
        func get(_ k: String) -> JSONValue? { out.first { $0.0 == k }?.1 }
        func set(_ k: String, _ v: JSONValue) {
            if let i = out.firstIndex(where: { $0.0 == k }) { out[i].1 = v } else { out.append((k, v)) }
        }
        func both(_ x: JSONValue, _ y: JSONValue) -> JSONValue { .object([("allOf", .array([x, y]))]) }
        let objectKeys: Set<String> = ["properties", "additionalProperties", "patternProperties"]
        // Object members: a key listed on one side only must also satisfy the other side's additionalProperties.
        if bm.contains(where: { objectKeys.contains($0.0) }) && out.contains(where: { objectKeys.contains($0.0) }) {
            if get("patternProperties") != nil || bm.contains(where: { $0.0 == "patternProperties" }) {
                throw unsupported("allOf merging patternProperties with other object keywords", path + ".allOf")
            }
            let pa = get("properties")?.objectMembers ?? [], pb = b["properties"]?.objectMembers ?? []
            let apa = get("additionalProperties") ?? .bool(true), apb = b["additionalProperties"] ?? .bool(true)
            var props: [(String, JSONValue)] = []
            for (k, v) in pa {
                let other = pb.first { $0.0 == k }?.1 ?? apb
                props.append((k, other == .bool(true) ? v : both(v, other)))
            }
            for (k, v) in pb where !pa.contains(where: { $0.0 == k }) {
                props.append((k, apa == .bool(true) ? v : both(apa, v)))
            }
            set("properties", .object(props))
            let ap: JSONValue = apa == .bool(true) ? apb : (apb == .bool(true) ? apa : both(apa, apb))
            if ap != .bool(true) { set("additionalProperties", ap) }
        } else {
            for (k, v) in bm where objectKeys.contains(k) { set(k, v) }
        }
        // Arrays: the other side's items apply to every element, the tuple prefix included.
        let arrayKeys: Set<String> = ["items", "prefixItems", "additionalItems"]
        if bm.contains(where: { arrayKeys.contains($0.0) }) && out.contains(where: { arrayKeys.contains($0.0) }) {
            func split(_ s: JSONValue) -> (tuple: [JSONValue], rest: JSONValue) {
                if let p = s["prefixItems"]?.arrayValue { return (p, s["items"] ?? .bool(true)) }
                if let t = s["items"]?.arrayValue { return (t, s["additionalItems"] ?? .bool(true)) }
                return ([], s["items"] ?? .bool(true))
            }
            let (ta, ra) = split(.object(out)), (tb, rb) = split(b)
            if !ta.isEmpty && !tb.isEmpty { throw unsupported("allOf merging two tuples", path + ".allOf") }
            let tuple = ta.isEmpty ? tb.map { both($0, ra) } : ta.map { both($0, rb) }
            out.removeAll { arrayKeys.contains($0.0) }
            if !tuple.isEmpty { out.append(("prefixItems", .array(tuple))) }
            out.append(("items", ra == .bool(true) ? rb : (rb == .bool(true) ? ra : both(ra, rb))))
        } else {
            for (k, v) in bm where arrayKeys.contains(k) { set(k, v) }
        }
        for (k, v) in bm where !objectKeys.contains(k) && !arrayKeys.contains(k) {
            guard let x = get(k) else { set(k, v); continue }
            switch k {
            case "type":
                let ta = Self.typeSet(x), tb = Self.typeSet(v)
                var t: [String] = []
                for n in ["null", "boolean", "object", "array", "string", "number", "integer"] {
                    if n == "integer" {
                        if (ta.contains("integer") || ta.contains("number")) && (tb.contains("integer") || tb.contains("number")) && !(ta.contains("number") && tb.contains("number")) { t.append(n) }
                    } else if ta.contains(n) && tb.contains(n) { t.append(n) }
                }
                if t.isEmpty { return .bool(false) }
                set("type", .array(t.map { .string($0) }))
            case "required":
                var names = x.arrayValue ?? []
                for n in v.arrayValue ?? [] where !names.contains(n) { names.append(n) }
                set("required", .array(names))
            case "enum":
                let other = v.arrayValue ?? []
                set("enum", .array((x.arrayValue ?? []).filter { other.contains($0) }))
            case "minimum", "exclusiveMinimum", "minLength", "minItems", "minProperties", "minContains":
                if Self.numericLess(x, v) { set(k, v) }
            case "maximum", "exclusiveMaximum", "maxLength", "maxItems", "maxProperties", "maxContains":
                if Self.numericLess(v, x) { set(k, v) }
            case "propertyNames", "unevaluatedItems", "unevaluatedProperties", "contains":
                if x != v { set(k, both(x, v)) }
            case "x-order":
                continue
            case "uniqueItems":
                if v == .bool(true) { set(k, v) }
            case "anyOf":
                let la = x.arrayValue ?? [], lb = v.arrayValue ?? []
                guard la.count * lb.count <= Self.maxBranches else { throw .tooLarge(message: "allOf of anyOf with more than \(Self.maxBranches) combinations at \(path)") }
                set(k, .array(la.flatMap { p in lb.map { q in both(p, q) } }))
            case "not":
                // not x ∧ not v = not (x ∨ v), with nested anyOf lists flattened.
                func alternatives(_ n: JSONValue) -> [JSONValue] {
                    if n.objectMembers?.count == 1, let list = n["anyOf"]?.arrayValue { return list }
                    return [n]
                }
                set(k, .object([("anyOf", .array(alternatives(x) + alternatives(v)))]))
            case "dependentRequired", "dependentSchemas", "dependencies":
                guard let ma = x.objectMembers, let mb = v.objectMembers, !ma.contains(where: { p in mb.contains { $0.0 == p.0 } }) else {
                    if x == v { continue }
                    throw unsupported("allOf merging two `\(k)` on the same property", path + ".allOf")
                }
                set(k, .object(ma + mb))
            default:
                if x != v { throw unsupported("allOf with two different `\(k)`", path + ".allOf") }
            }
        }
        return .object(out)
    }

    /// The JSON types a `type` value names.
    static func typeSet(_ t: JSONValue) -> Set<String> {
        if let s = t.stringValue { return [s] }
        return Set((t.arrayValue ?? []).compactMap(\.stringValue))
    }

    /// `x < y` for two JSON numbers (exactly when both fit a decimal bound).
    static func numericLess(_ x: JSONValue, _ y: JSONValue) -> Bool {
        guard case .number(let a) = x, case .number(let b) = y else { return false }
        if let p = try? DecimalBound(jsonNumber: a), let q = try? DecimalBound(jsonNumber: b) { return p.compare(q) < 0 }
        return (Double(a) ?? 0) < (Double(b) ?? 0)
    }
}

extension String {
    /// JSON Pointer fragments in URIs may percent-encode characters (`%25` for `%`).
    var removingPercentEncodingOfJSONPointer: String {
        guard contains("%") else { return self }
        var bytes: [UInt8] = []
        var it = Array(utf8)[...]
        while let c = it.popFirst() {
            if c == UInt8(ascii: "%"), it.count >= 2, let v = UInt8(String(decoding: it.prefix(2), as: UTF8.self), radix: 16) {
                bytes.append(v)
                it = it.dropFirst(2)
            } else {
                bytes.append(c)
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
