/// The inside of a `GenerationSchema`: a tree that encodes to JSON Schema.
///
/// Generable types appear as `.generable(Type, guides)` and are expanded only when the schema
/// is encoded, so a type that contains itself (`children: [Person]`) does not recurse forever.
indirect enum SchemaNode: Sendable {
    /// A structure with named properties, in order. `name` becomes the `title` and the `$defs` key.
    case object(name: String?, description: String?, properties: [SchemaProperty])
    /// A string, optionally limited to `choices` (`enum`) or a `pattern`; a named one is a type (an enum).
    case string(name: String?, description: String?, choices: [String]?, pattern: String?)
    case integer(minimum: Double?, maximum: Double?)
    case number(minimum: Double?, maximum: Double?)
    case boolean
    case null
    /// Any JSON value (the schema of `GeneratedContent` itself).
    case anyValue
    case array(items: SchemaNode, minimumCount: Int?, maximumCount: Int?)
    /// One of several schemas; a named one is a type.
    case anyOf(name: String?, description: String?, choices: [SchemaNode])
    /// A reference to a named type defined elsewhere in the schema (dynamic and decoded schemas).
    case reference(String)
    /// A Generable type with guides, expanded lazily.
    case generable(any Generable.Type, GuideConstraints)

    /// The type name of a node that is a named type (so it goes to `$defs` when nested).
    var typeName: String? {
        switch self {
        case .object(let name, _, _), .string(let name, _, _, _), .anyOf(let name, _, _): name
        default: nil
        }
    }

    /// The same node with another type description (for `@Generable(description:)`).
    func describing(_ description: String?) -> SchemaNode {
        switch self {
        case .object(let name, _, let properties): .object(name: name, description: description, properties: properties)
        case .string(let name, _, let choices, let pattern): .string(name: name, description: description, choices: choices, pattern: pattern)
        case .anyOf(let name, _, let choices): .anyOf(name: name, description: description, choices: choices)
        default: self
        }
    }

    var typeDescription: String? {
        switch self {
        case .object(_, let description, _), .string(_, let description, _, _), .anyOf(_, let description, _): description
        default: nil
        }
    }
}

/// One property of an object node.
struct SchemaProperty: Sendable {
    var name: String
    var description: String?
    var node: SchemaNode
    var isOptional: Bool
}
