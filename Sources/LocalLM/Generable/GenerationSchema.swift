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

    init(root: SchemaNode, definitions: [(name: String, node: SchemaNode)] = []) {
        self.root = root
        self.definitions = definitions
    }

    /// Creates a schema for a structure with the properties you specify, in order.
    public init(type: any Generable.Type, description: String? = nil, properties: [GenerationSchema.Property]) {
        self.init(root: .object(
            name: Self.typeName(type),
            description: description,
            properties: properties.map(\.property)
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
        var encoder = JSONSchemaEmitter(schema: self)
        return encoder.emitDocument()
    }

    public var debugDescription: String {
        "GenerationSchema(\(jsonSchemaString))"
    }
}
