/// Arrays: a tuple prefix (`prefixItems`, or draft-7 `items` as a list), then further items
/// (`items`, or `additionalItems` after a draft-7 tuple), within `minItems`/`maxItems`.
extension JSONSchemaCompiler {
    mutating func arrayRule(_ s: JSONValue, _ path: String) throws(GrammarError) -> [Symbol] {
        for k in ["contains", "minContains", "maxContains"] where s[k] != nil {
            throw unsupported(k, path + "." + k)
        }
        var tuple: [JSONValue] = []
        var rest: JSONValue = .bool(true)
        var restPath = path + ".items"
        if let p = s["prefixItems"]?.arrayValue {
            tuple = p
            rest = s["items"] ?? .bool(true)
        } else if let list = s["items"]?.arrayValue {  // draft-7 tuple form
            tuple = list
            rest = s["additionalItems"] ?? .bool(true)
            restPath = path + ".additionalItems"
        } else if let items = s["items"] {
            rest = items
        }
        let minItems = try count(s, "minItems", path) ?? 0
        var maxItems = try count(s, "maxItems", path)
        if let m = maxItems, m < minItems { return [.rule(b.rule("never", []))] }
        if rest == .bool(false) { maxItems = min(maxItems ?? tuple.count, tuple.count) }
        if s["uniqueItems"] == .bool(true), (maxItems ?? 2) > 1 {
            throw unsupported("uniqueItems", path + ".uniqueItems")
        }
        if minItems > (maxItems ?? Int.max) { return [.rule(b.rule("never", []))] }
        let open = json.token("[", &b), close = json.token("]", &b), comma = json.token(",", &b)
        if maxItems == 0 { return open + close }
        var items: [[Symbol]] = []
        for (i, t) in tuple.enumerated() where i < (maxItems ?? Int.max) { items.append(try visit(t, "\(path).prefixItems[\(i)]")) }
        var restItem: [Symbol]? = nil
        if (maxItems ?? Int.max) > tuple.count { restItem = try visit(rest, restPath) }
        // after(i): the elements from index i on (i ≥ 1, so each is preceded by a comma).
        var after: [Symbol] = []
        let k = items.count
        if let restItem {
            after = b.repeated(comma + restItem, min: max(minItems - max(k, 1), 0), max: maxItems.map { $0 - max(k, 1) }, name: "items")
        }
        if k >= 1 {
            for i in stride(from: k - 1, through: 1, by: -1) {
                let withIt = comma + items[i] + after
                after = i >= minItems ? b.group([withIt, []], name: "tuple-rest") : [.rule(b.rule("tuple-rest", [withIt]))]
            }
        }
        guard let first = k > 0 ? items[0] : restItem else { return open + close }
        let list = first + after
        let body = minItems == 0 ? b.repeated(list, min: 0, max: 1, name: "items-opt") : list
        return open + body + close
    }
}
