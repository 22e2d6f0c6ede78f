/// A type that describes the properties of an object and any guides on their values.
///
/// Made by `@Generable`, by the initializers below, or from `DynamicGenerationSchema`s at run
/// time. It encodes (`Codable`) to JSON Schema in Apple's shape: objects carry `title`,
/// `properties` in order, `required`, `x-order` and `additionalProperties: false`; nested named
/// types live in `$defs` and are referenced with `$ref`.
public struct GenerationSchema: Sendable, CustomDebugStringConvertible {
    /// The schema's own type.
    let root: SchemaNode
    /// Named types the root refers to by name, in definition order (dynamic schemas).
    let definitions: [(name: String, node: SchemaNode)]
    /// JSON Schema taken as it is (a client's schema in `locallm serve`), which the grammar compiles
    /// in full rather than through Apple's subset; `root` is then `.anyValue`.
    let verbatim: GeneratedContent?

    init(root: SchemaNode, definitions: [(name: String, node: SchemaNode)] = []) {
        self.root = root
        self.definitions = definitions
        self.verbatim = nil
    }

    /// A schema that is exactly this JSON Schema document, for callers that hold JSON Schema rather
    /// than Swift types (the OpenAI-compatible server). The grammar engine reports what it cannot enforce.
    package init(verbatimJSONSchema document: GeneratedContent) {
        root = .anyValue
        definitions = []
        verbatim = document
    }

    /// Creates a schema for a structure with the properties you specify, in order.
    public init(type: any Generable.Type, description: String? = nil, properties: [GenerationSchema.Property]) {
        self.init(root: .object(
            name: Self.typeName(type),
            description: description,
            properties: properties.map(\.property)
        ))
    }

    /// Creates a structure's schema in which a `nil` optional property is generated as an
    /// explicit `null` (the property is always present) instead of being left out.
    public init(
        type: any Generable.Type,
        description: String? = nil,
        representNilExplicitlyInGeneratedContent: Bool,
        properties: [GenerationSchema.Property]
    ) {
        guard representNilExplicitlyInGeneratedContent else {
            self.init(type: type, description: description, properties: properties)
            return
        }
        self.init(root: .object(
            name: Self.typeName(type),
            description: description,
            properties: properties.map { property in
                var explicit = property.property
                if explicit.isOptional {
                    explicit.isOptional = false
                    explicit.node = .anyOf(name: nil, description: nil, choices: [explicit.node, .null])
                }
                return explicit
            }
        ))
    }

    /// Creates a schema for a string that is one of the choices (a Swift enumeration's cases).
    public init(type: any Generable.Type, description: String? = nil, anyOf choices: [String]) {
        self.init(root: .string(name: Self.typeName(type), description: description, choices: choices, pattern: nil))
    }

    /// Creates a schema for a value that is any one of the Generable types.
    public init(type: any Generable.Type, description: String? = nil, anyOf types: [any Generable.Type]) {
        self.init(root: .anyOf(
            name: Self.typeName(type),
            description: description,
            choices: types.map { .generable($0, .none) }
        ))
    }

    /// The name a type has in `title`, `$defs` and `$ref`.
    static func typeName(_ type: any Any.Type) -> String {
        String(describing: type)
    }

    // MARK: Schemas for the built-in types

    static func primitive(_ node: SchemaNode) -> GenerationSchema {
        GenerationSchema(root: node)
    }

    static func array(of element: any Generable.Type) -> GenerationSchema {
        GenerationSchema(root: .array(items: .generable(element, .none), minimumCount: nil, maximumCount: nil))
    }

    // MARK: Output

    /// The schema as compact JSON Schema text, properties in order: what the grammar compiler
    /// and the prompt renderer consume.
    package var jsonSchemaString: String {
        jsonSchema.jsonString
    }

    /// The schema as a JSON tree (properties and keys in order).
    package var jsonSchema: GeneratedContent {
        if let verbatim { return verbatim }
        var encoder = JSONSchemaEmitter(schema: self)
        return encoder.emitDocument()
    }

    /// The schema as a prompt shows it in a tool's definition: plain JSON Schema as a caller writes
    /// it for a chat template's `tools` (``JSONSchemaEmitter/Style/prompt``), or a verbatim
    /// document as the caller gave it. The grammar compiles ``jsonSchema``.
    package var promptJSONSchema: GeneratedContent {
        if let verbatim { return verbatim }
        var encoder = JSONSchemaEmitter(schema: self, style: .prompt)
        return encoder.emitDocument()
    }

    public var debugDescription: String {
        "GenerationSchema(\(jsonSchemaString))"
    }
}
