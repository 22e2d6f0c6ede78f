/// Writes a `GenerationSchema` as JSON Schema, in Apple's shape or in the plain shape a prompt shows.
///
/// Named types met below the root (Generable structs and enums, named dynamic schemas) are
/// written once into `$defs` and referenced with `$ref`; the root refers to itself as `#`.
/// Generable types are expanded here, on first use, which is what lets recursive types work.
struct JSONSchemaEmitter {
    enum Style {
        /// Apple's encoding: `title`, `x-order`, `additionalProperties: false`, named types in `$defs`.
        case apple
        /// The schema as a caller writes one for a chat template's `tools` (OpenAI's style): named
        /// types inline (only a type that contains itself is referenced), `type` then
        /// `description`, no `title`, `x-order` or `additionalProperties`. Models are trained on
        /// tool lists of this shape; the grammar still enforces the full schema.
        case prompt
    }

    private let schema: GenerationSchema
    private let style: Style
    /// Named types being written inline, outermost first (prompt style): meeting one again is recursion.
    private var expanding: Set<String> = []
    private var rootName: String?
    /// Definitions emitted so far, in the order they were completed.
    private var definitions: [(String, GeneratedContent)] = []
    /// Names that are emitted or being emitted (recursion stops here).
    private var started: Set<String> = []
    /// Named schemas that may be referenced by name, from `init(root:dependencies:)`.
    private var known: [String: SchemaNode] = [:]

    init(schema: GenerationSchema, style: Style = .apple) {
        self.schema = schema
        self.style = style
    }

    mutating func emitDocument() -> GeneratedContent {
        for (name, node) in schema.definitions where known[name] == nil {
            known[name] = node
        }
        var root = schema.root
        var rootGuides = GuideConstraints.none
        // A schema whose root is a Generable type stands for that type's schema.
        while case .generable(let type, let guides) = root {
            let inner = type.generationSchema
            learn(inner)
            root = inner.root
            rootGuides = guides.merging(rootGuides)
        }
        rootName = root.typeName
        if let rootName { started.insert(rootName) }
        let body = typeBody(root, guides: rootGuides)
        var pairs: [(String, GeneratedContent)] = []
        if !definitions.isEmpty {
            pairs.append(("$defs", Self.object(definitions)))
        }
        pairs += body
        return Self.object(pairs)
    }

    private mutating func learn(_ schema: GenerationSchema) {
        for (name, node) in schema.definitions where known[name] == nil {
            known[name] = node
        }
    }

    /// The schema at a use site: a `$ref` for named types, the inline body otherwise.
    private mutating func use(_ node: SchemaNode, guides: GuideConstraints, description: String?) -> GeneratedContent {
        var pairs: [(String, GeneratedContent)]
        switch node {
        case .generable(let type, let inner):
            let typeSchema = type.generationSchema
            learn(typeSchema)
            return use(typeSchema.root, guides: inner.merging(guides), description: description)
        case .reference(let name):
            if let node = known[name], inlines(name) {
                pairs = inline(name, node, guides: guides)
            } else {
                pairs = [("$ref", reference(to: name))]
                if let node = known[name] { define(name, node) }
            }
        default:
            if let name = node.typeName {
                if inlines(name) {
                    pairs = inline(name, node, guides: guides)
                } else {
                    define(name, node)
                    pairs = [("$ref", reference(to: name))]
                }
            } else {
                pairs = typeBody(node, guides: guides)
            }
        }
        if let description {
            switch style {
            case .apple:
                pairs.append(("description", GeneratedContent(kind: .string(description))))
            case .prompt:
                // The property's description stands for the type's, right after `type`.
                pairs.removeAll { $0.0 == "description" }
                let at = pairs.first?.0 == "type" ? 1 : 0
                pairs.insert(("description", GeneratedContent(kind: .string(description))), at: at)
            }
        }
        return Self.object(pairs)
    }

    /// Whether a named type is written where it is used: in prompt style, unless it is the root or
    /// one being written already (a type that contains itself).
    private func inlines(_ name: String) -> Bool {
        style == .prompt && name != rootName && !expanding.contains(name)
    }

    private mutating func inline(_ name: String, _ node: SchemaNode, guides: GuideConstraints) -> [(String, GeneratedContent)] {
        expanding.insert(name)
        defer { expanding.remove(name) }
        return typeBody(node, guides: guides)
    }

    private func reference(to name: String) -> GeneratedContent {
        GeneratedContent(kind: .string(name == rootName ? "#" : "#/$defs/\(name)"))
    }

    private mutating func define(_ name: String, _ node: SchemaNode) {
        guard !started.contains(name) else { return }
        started.insert(name)
        let body = typeBody(node, guides: .none)
        definitions.append((name, Self.object(body)))
    }

    /// The keys of a type's own schema object.
    private mutating func typeBody(_ node: SchemaNode, guides: GuideConstraints) -> [(String, GeneratedContent)] {
        var pairs: [(String, GeneratedContent)] = []
        func add(_ key: String, _ kind: GeneratedContent.Kind) {
            pairs.append((key, GeneratedContent(kind: kind)))
        }
        func addTitle(_ name: String?, _ description: String?) {
            if let name, style == .apple { add("title", .string(name)) }
            if let description { add("description", .string(description)) }
        }
        func addBounds(_ minimum: Double?, _ maximum: Double?) {
            if let value = guides.minimum ?? minimum { add("minimum", .number(value)) }
            if let value = guides.maximum ?? maximum { add("maximum", .number(value)) }
        }
        switch node {
        case .object(let name, let description, let properties):
            add("type", .string("object"))
            addTitle(name, description)
            var propertySchemas: [(String, GeneratedContent)] = []
            for property in properties {
                propertySchemas.append((property.name, use(property.node, guides: .none, description: property.description)))
            }
            pairs.append(("properties", Self.object(propertySchemas)))
            let required = properties.filter { !$0.isOptional }.map { GeneratedContent(kind: .string($0.name)) }
            switch style {
            case .apple:
                add("required", .array(required))
                add("x-order", .array(properties.map { GeneratedContent(kind: .string($0.name)) }))
                add("additionalProperties", .bool(false))
            case .prompt:
                if !required.isEmpty { add("required", .array(required)) }
            }
        case .string(let name, let description, let choices, let pattern):
            add("type", .string("string"))
            addTitle(name, description)
            if let choices = guides.choices ?? choices {
                add("enum", .array(choices.map { GeneratedContent(kind: .string($0)) }))
            }
            if let pattern = guides.pattern ?? pattern {
                add("pattern", .string(pattern))
            }
        case .integer(let minimum, let maximum):
            add("type", .string("integer"))
            addBounds(minimum, maximum)
        case .number(let minimum, let maximum):
            add("type", .string("number"))
            addBounds(minimum, maximum)
        case .boolean:
            add("type", .string("boolean"))
        case .null:
            add("type", .string("null"))
        case .anyValue:
            break  // `{}`: any JSON value
        case .array(let items, let minimumCount, let maximumCount):
            add("type", .string("array"))
            pairs.append(("items", use(items, guides: guides.element?.constraints ?? .none, description: nil)))
            if let count = guides.minimumCount ?? minimumCount { add("minItems", .number(Double(count))) }
            if let count = guides.maximumCount ?? maximumCount { add("maxItems", .number(Double(count))) }
        case .anyOf(let name, let description, let choices):
            addTitle(name, description)
            var options: [GeneratedContent] = []
            for choice in choices {
                options.append(use(choice, guides: .none, description: nil))
            }
            add("anyOf", .array(options))
        case .reference(let name):
            pairs.append(("$ref", reference(to: name)))
            if let node = known[name] { define(name, node) }
        case .generable(let type, let inner):
            let typeSchema = type.generationSchema
            learn(typeSchema)
            pairs = typeBody(typeSchema.root, guides: inner.merging(guides))
        }
        return pairs
    }

    static func object(_ pairs: [(String, GeneratedContent)]) -> GeneratedContent {
        var properties: [String: GeneratedContent] = [:]
        var order: [String] = []
        for (key, value) in pairs where properties[key] == nil {
            properties[key] = value
            order.append(key)
        }
        return GeneratedContent(kind: .structure(properties: properties, orderedKeys: order))
    }
}
