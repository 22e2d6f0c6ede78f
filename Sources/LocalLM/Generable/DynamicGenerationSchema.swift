/// A schema built at run time: structures, choices and arrays that refer to each other by name.
///
/// Turn a root and its dependencies into a `GenerationSchema` with
/// `GenerationSchema(root:dependencies:)`, which checks names and references.
public struct DynamicGenerationSchema: Sendable {
    let node: SchemaNode

    init(node: SchemaNode) {
        self.node = node
    }

    /// Creates an object schema with the properties you specify, in order.
    public init(name: String, description: String? = nil, properties: [DynamicGenerationSchema.Property]) {
        node = .object(name: name, description: description, properties: properties.map(\.property))
    }

    /// Creates a schema that is any one of the given schemas.
    public init(name: String, description: String? = nil, anyOf choices: [DynamicGenerationSchema]) {
        node = .anyOf(name: name, description: description, choices: choices.map(\.node))
    }

    /// Creates a schema for a string that is one of the choices.
    public init(name: String, description: String? = nil, anyOf choices: [String]) {
        node = .string(name: name, description: description, choices: choices, pattern: nil)
    }

    /// Creates an array schema; the element count bounds are inclusive.
    public init(arrayOf itemSchema: DynamicGenerationSchema, minimumElements: Int? = nil, maximumElements: Int? = nil) {
        node = .array(items: itemSchema.node, minimumCount: minimumElements, maximumCount: maximumElements)
    }

    /// Creates a reference to a schema defined in the dependencies (or to the root) by name.
    public init(referenceTo name: String) {
        node = .reference(name)
    }

    /// Creates a schema from a Generable type and guides.
    public init<Value: Generable>(type: Value.Type, guides: [GenerationGuide<Value>] = []) {
        node = .generable(Value.self, GuideConstraints.merged(guides.map(\.constraints)))
    }

    /// A property of a dynamic object schema.
    public struct Property: Sendable {
        let property: SchemaProperty

        /// Creates a property; an optional one may be left out of the generated object.
        public init(name: String, description: String? = nil, schema: DynamicGenerationSchema, isOptional: Bool = false) {
            property = SchemaProperty(name: name, description: description, node: schema.node, isOptional: isOptional)
        }
    }
}

extension GenerationSchema {
    /// Creates a schema from a dynamic root and the named schemas it refers to.
    ///
    /// Throws `SchemaError` when two types share a name, a structure repeats a property,
    /// an `anyOf` is empty, or a reference names no type.
    public init(root: DynamicGenerationSchema, dependencies: [DynamicGenerationSchema]) throws {
        var validator = DynamicSchemaValidator()
        let rootName = root.node.typeName
        try validator.collect(root.node, owner: rootName)
        for dependency in dependencies {
            try validator.collect(dependency.node, owner: dependency.node.typeName)
        }
        let missing = validator.references.subtracting(validator.defined).sorted()
        if !missing.isEmpty {
            throw SchemaError.undefinedReferences(
                schema: rootName,
                references: missing,
                context: .init(debugDescription: "Undefined types: [\(missing.joined(separator: ", "))]")
            )
        }
        self.init(root: root.node, definitions: validator.namedNodes)
    }
}

/// Walks dynamic schemas once: records every named type and every reference, and finds
/// duplicates and empty choices.
private struct DynamicSchemaValidator {
    var defined: Set<String> = []
    var references: Set<String> = []
    var namedNodes: [(name: String, node: SchemaNode)] = []

    mutating func collect(_ node: SchemaNode, owner: String?) throws {
        if let name = node.typeName {
            guard !defined.contains(name) else {
                throw GenerationSchema.SchemaError.duplicateType(
                    schema: owner, type: name,
                    context: .init(debugDescription: "Type '\(name)' is defined more than once")
                )
            }
            defined.insert(name)
            namedNodes.append((name, node))
        }
        switch node {
        case .object(let name, _, let properties):
            var seen: Set<String> = []
            for property in properties {
                guard seen.insert(property.name).inserted else {
                    throw GenerationSchema.SchemaError.duplicateProperty(
                        schema: name ?? owner ?? "root", property: property.name,
                        context: .init(debugDescription: "Property '\(property.name)' appears more than once")
                    )
                }
                try collect(property.node, owner: name ?? owner)
            }
        case .anyOf(let name, _, let choices):
            guard !choices.isEmpty else {
                throw GenerationSchema.SchemaError.emptyTypeChoices(
                    schema: name ?? owner ?? "root",
                    context: .init(debugDescription: "An anyOf schema has no choices")
                )
            }
            for choice in choices { try collect(choice, owner: name ?? owner) }
        case .string(let name, _, let choices, _):
            if let choices, choices.isEmpty {
                throw GenerationSchema.SchemaError.emptyTypeChoices(
                    schema: name ?? owner ?? "root",
                    context: .init(debugDescription: "A string anyOf schema has no choices")
                )
            }
        case .array(let items, _, _):
            try collect(items, owner: owner)
        case .reference(let name):
            references.insert(name)
        case .integer, .number, .boolean, .null, .anyValue, .generable:
            break
        }
    }
}
