import LocalLMJSON

/// Carries `GeneratedContent` through `Encoder`/`Decoder` as a plain JSON value.
///
/// Decoders do not keep object key order, and order is part of a structure's value, so decoding
/// can take a JSON Schema (`x-order`, `properties`, `items`, `$defs`) to put keys back in order;
/// keys the schema does not order come after, sorted, so decoding is deterministic.
struct JSONContent: Codable {
    let content: GeneratedContent

    init(_ content: GeneratedContent) {
        self.content = content
    }

    func encode(to encoder: any Encoder) throws {
        try CodableJSON(content.jsonValue).encode(to: encoder)
    }

    /// Keys come back sorted (decoders keep no order), so decoding is deterministic.
    init(from decoder: any Decoder) throws {
        content = Self.sortingKeys(GeneratedContent(jsonValue: try CodableJSON(from: decoder).value))
    }

    private static func sortingKeys(_ content: GeneratedContent) -> GeneratedContent {
        switch content.kind {
        case .array(let elements):
            return GeneratedContent(kind: .array(elements.map(sortingKeys)))
        case .structure(let properties, _):
            return GeneratedContent(kind: .structure(properties: properties.mapValues(sortingKeys), orderedKeys: properties.keys.sorted()))
        default:
            return content
        }
    }

    /// `content` with every structure's keys in the order `schema` (a JSON Schema tree) gives.
    static func ordered(_ content: GeneratedContent, by schema: GeneratedContent) -> GeneratedContent {
        SchemaOrder(root: schema).apply(content, schema)
    }
}

/// Walks content and its JSON Schema together, reordering structure keys.
private struct SchemaOrder {
    let root: GeneratedContent

    private func object(_ value: GeneratedContent?) -> [String: GeneratedContent]? {
        guard case .structure(let properties, _)? = value?.kind else { return nil }
        return properties
    }

    /// The schema node a `$ref` points to, or the node itself.
    private func resolve(_ node: GeneratedContent) -> GeneratedContent {
        guard let fields = object(node), case .string(let ref)? = fields["$ref"]?.kind else { return node }
        if ref == "#" { return root }
        let prefix = "#/$defs/"
        guard ref.hasPrefix(prefix), let defs = object(object(root)?["$defs"]),
            let target = defs[String(ref.dropFirst(prefix.count))]
        else { return node }
        return target
    }

    func apply(_ content: GeneratedContent, _ schemaNode: GeneratedContent) -> GeneratedContent {
        let node = resolve(schemaNode)
        let fields = object(node) ?? [:]
        switch content.kind {
        case .array(let elements):
            let items = fields["items"] ?? GeneratedContent(kind: .null)
            return GeneratedContent(kind: .array(elements.map { apply($0, items) }), id: content.id)
        case .structure(let properties, _):
            if case .array(let choices)? = fields["anyOf"]?.kind {
                // The choice whose properties cover the content's keys describes it.
                let keys = Set(properties.keys)
                if let choice = choices.first(where: { choice in
                    let names = object(object(resolve(choice))?["properties"]).map { Set($0.keys) } ?? []
                    return !names.isEmpty && keys.isSubset(of: names)
                }) {
                    return apply(content, choice)
                }
            }
            let schemaProperties = object(fields["properties"]) ?? [:]
            var order: [String] = []
            if case .array(let names)? = fields["x-order"]?.kind {
                order = names.compactMap { if case .string(let name) = $0.kind { name } else { nil } }
            }
            let known = order.filter { properties[$0] != nil }
            let rest = properties.keys.filter { !known.contains($0) }.sorted()
            var reordered: [String: GeneratedContent] = [:]
            for (key, value) in properties {
                reordered[key] = apply(value, schemaProperties[key] ?? GeneratedContent(kind: .null))
            }
            return GeneratedContent(kind: .structure(properties: reordered, orderedKeys: known + rest), id: content.id)
        default:
            return content
        }
    }
}
