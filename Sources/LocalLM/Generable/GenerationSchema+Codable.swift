/// `GenerationSchema` encodes as the JSON Schema `jsonSchema` describes, and decodes from JSON
/// Schema of the same shape (so schemas can be stored, or made by other tools).
extension GenerationSchema: Codable {
    public func encode(to encoder: any Encoder) throws {
        try JSONContent(jsonSchema).encode(to: encoder)
    }

    public init(from decoder: any Decoder) throws {
        let tree = try JSONContent(from: decoder).content
        do {
            self = try JSONSchemaReader.schema(from: tree)
        } catch let error as JSONSchemaReader.Failure {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: error.description))
        }
    }

    /// Reads JSON Schema text (as `jsonSchemaString` writes it).
    package init(jsonSchema text: String) throws {
        self = try JSONSchemaReader.schema(from: GeneratedContent(json: text))
    }
}

/// Turns JSON Schema (Apple's subset) back into schema nodes.
enum JSONSchemaReader {
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    static func schema(from tree: GeneratedContent) throws -> GenerationSchema {
        guard case .structure(let root, _) = tree.kind else { throw Failure(description: "a schema must be a JSON object") }
        var definitions: [(name: String, node: SchemaNode)] = []
        var rootName: String?
        if case .string(let title)? = root["title"]?.kind { rootName = title }
        if let defs = root["$defs"] {
            guard case .structure(let entries, let order) = defs.kind else { throw Failure(description: "$defs must be an object") }
            for name in order {
                guard let entry = entries[name] else { continue }
                definitions.append((name, try node(from: entry, path: "$defs.\(name)", defaultName: name, rootName: rootName)))
            }
        }
        let rootNode = try node(from: tree, path: "#", defaultName: nil, rootName: rootName)
        return GenerationSchema(root: rootNode, definitions: definitions)
    }

    private static func node(from tree: GeneratedContent, path: String, defaultName: String?, rootName: String?) throws -> SchemaNode {
        guard case .structure(let object, _) = tree.kind else { throw Failure(description: "\(path): a schema must be a JSON object") }
        func string(_ key: String) -> String? {
            if case .string(let value)? = object[key]?.kind { return value }
            return nil
        }
        func number(_ key: String) -> Double? {
            if case .number(let value)? = object[key]?.kind { return value }
            return nil
        }
        func strings(_ key: String) throws -> [String]? {
            guard let value = object[key] else { return nil }
            guard case .array(let elements) = value.kind else { throw Failure(description: "\(path).\(key) must be an array") }
            return try elements.map {
                guard case .string(let text) = $0.kind else { throw Failure(description: "\(path).\(key) must hold strings") }
                return text
            }
        }
        let name = string("title") ?? defaultName
        let description = string("description")
        if let ref = string("$ref") {
            if ref == "#" {
                guard let rootName else { throw Failure(description: "\(path): '$ref: #' needs a root with a title") }
                return .reference(rootName)
            }
            guard ref.hasPrefix("#/$defs/") else { throw Failure(description: "\(path): unsupported $ref '\(ref)'") }
            return .reference(String(ref.dropFirst("#/$defs/".count)))
        }
        if let anyOf = object["anyOf"] {
            guard case .array(let choices) = anyOf.kind else { throw Failure(description: "\(path).anyOf must be an array") }
            return .anyOf(name: name, description: description, choices: try choices.enumerated().map {
                try node(from: $1, path: "\(path).anyOf[\($0)]", defaultName: nil, rootName: rootName)
            })
        }
        let type = string("type")
        switch type {
        case "object":
            guard case .structure(let properties, let order)? = object["properties"]?.kind else {
                return .object(name: name, description: description, properties: [])
            }
            let required = Set(try strings("required") ?? [])
            let names = try strings("x-order") ?? order
            return .object(name: name, description: description, properties: try names.compactMap { key in
                guard let value = properties[key] else { return nil }
                var property = try node(from: value, path: "\(path).properties.\(key)", defaultName: nil, rootName: rootName)
                var propertyDescription: String?
                if case .structure(let fields, _) = value.kind, case .string(let text)? = fields["description"]?.kind {
                    propertyDescription = text
                    // A property's description was written beside its type; keep it on the property.
                    if property.typeName == nil { property = property.describing(nil) }
                }
                return SchemaProperty(name: key, description: propertyDescription, node: property, isOptional: !required.contains(key))
            })
        case "string":
            // Only a named string (an enum type) owns its description; a property's is the property's.
            return .string(name: name, description: name != nil ? description : nil,
                           choices: try strings("enum"), pattern: string("pattern"))
        case "integer":
            return .integer(minimum: number("minimum"), maximum: number("maximum"))
        case "number":
            return .number(minimum: number("minimum"), maximum: number("maximum"))
        case "boolean":
            return .boolean
        case "null":
            return .null
        case "array":
            let items = try object["items"].map { try node(from: $0, path: "\(path).items", defaultName: nil, rootName: rootName) } ?? .anyValue
            return .array(items: items, minimumCount: number("minItems").flatMap { Int(exactly: $0) },
                          maximumCount: number("maxItems").flatMap { Int(exactly: $0) })
        case nil:
            if let choices = try strings("enum") {
                return .string(name: name, description: description, choices: choices, pattern: nil)
            }
            return .anyValue
        default:
            throw Failure(description: "\(path): unsupported type '\(type ?? "")'")
        }
    }
}
