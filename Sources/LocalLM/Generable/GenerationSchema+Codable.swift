/// `GenerationSchema` encodes as the JSON Schema `jsonSchema` describes. It decodes from any JSON
/// Schema document: one in Apple's shape (what it encodes to) becomes schema nodes again, and any
/// other (`oneOf`, `minLength`, `format`, `patternProperties`, `definitions`, type lists, …) is kept
/// whole, so that every keyword reaches the grammar compiler, which enforces it or refuses the schema
/// with a `GrammarError` naming its path when a response is asked for. No keyword is dropped.
extension GenerationSchema: Codable {
    public func encode(to encoder: any Encoder) throws {
        try JSONContent(jsonSchema).encode(to: encoder)
    }

    public init(from decoder: any Decoder) throws {
        let tree = try JSONContent(from: decoder).content
        do {
            self = try JSONSchemaReader.decoded(tree)
        } catch {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: error.description))
        }
    }

    /// Reads JSON Schema text as decoding does.
    package init(jsonSchema text: String) throws {
        self = try JSONSchemaReader.decoded(GeneratedContent(json: text))
    }
}

/// Turns JSON Schema (Apple's subset) back into schema nodes.
enum JSONSchemaReader {
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    /// The schema of a decoded document: schema nodes when `tree` is in Apple's shape, else the
    /// document verbatim.
    static func decoded(_ tree: GeneratedContent) throws(Failure) -> GenerationSchema {
        guard case .structure = tree.kind else { throw Failure(description: "a schema must be a JSON object") }
        guard isAppleShape(tree) else { return GenerationSchema(verbatimJSONSchema: tree) }
        // What the reader cannot resolve (`$ref: #` under a root without a title) the grammar may.
        return (try? schema(from: tree)) ?? GenerationSchema(verbatimJSONSchema: tree)
    }

    /// Whether `schema(from:)` reads every keyword of `tree`: each schema object holds only the
    /// keywords Apple's shape gives its kind (`JSONSchemaEmitter`), with values of the kinds read,
    /// and named types live under the root's `$defs`. A keyword outside it would be lost.
    static func isAppleShape(_ tree: GeneratedContent) -> Bool {
        guard case .structure(let root, _) = tree.kind else { return false }
        if let defs = root["$defs"] {
            guard case .structure(let entries, _) = defs.kind, entries.values.allSatisfy({ readsWhole($0, atRoot: false) })
            else { return false }
        }
        return readsWhole(tree, atRoot: true)
    }

    private static func readsWhole(_ tree: GeneratedContent, atRoot: Bool) -> Bool {
        guard case .structure(let object, _) = tree.kind else { return false }
        func isString(_ key: String) -> Bool {
            if case .string? = object[key]?.kind { return true }
            return false
        }
        func isNumber(_ key: String) -> Bool {
            if case .number? = object[key]?.kind { return true }
            return false
        }
        func isStrings(_ key: String) -> Bool {
            guard case .array(let elements)? = object[key]?.kind else { return false }
            return elements.allSatisfy { if case .string = $0.kind { true } else { false } }
        }
        // Keys beside the kind's own: annotations the reader keeps, and the root's definitions.
        var allowed: Set<String> = ["type", "title", "description"]
        if atRoot { allowed.insert("$defs") }
        for key in ["title", "description"] where object[key] != nil && !isString(key) { return false }
        if let ref = object["$ref"] {
            // The references the reader resolves: the root, or a type under the root's `$defs`.
            guard case .string(let target) = ref.kind,
                  target == "#" || (target.hasPrefix("#/$defs/") && !target.dropFirst(8).contains("/"))
            else { return false }
            allowed.insert("$ref")
            return Set(object.keys).isSubset(of: allowed)
        }
        if let anyOf = object["anyOf"] {
            guard case .array(let choices) = anyOf.kind, choices.allSatisfy({ readsWhole($0, atRoot: false) }) else { return false }
            allowed.insert("anyOf")
            return Set(object.keys).isSubset(of: allowed)
        }
        var fieldsRead = true
        switch object["type"]?.kind {
        case .string("object")?:
            allowed.formUnion(["properties", "required", "x-order", "additionalProperties"])
            if let properties = object["properties"] {
                guard case .structure(let members, _) = properties.kind,
                      members.values.allSatisfy({ readsWhole($0, atRoot: false) }) else { return false }
            }
            for key in ["required", "x-order"] where object[key] != nil && !isStrings(key) { return false }
            // Apple's objects are closed; an open one (true, or a schema for further members) is not.
            if let extra = object["additionalProperties"], extra.kind != .bool(false) { return false }
        case .string("string")?:
            allowed.formUnion(["enum", "pattern"])
            fieldsRead = (object["enum"] == nil || isStrings("enum")) && (object["pattern"] == nil || isString("pattern"))
        case .string("integer")?, .string("number")?:
            allowed.formUnion(["minimum", "maximum"])
            fieldsRead = (object["minimum"] == nil || isNumber("minimum")) && (object["maximum"] == nil || isNumber("maximum"))
        case .string("boolean")?, .string("null")?:
            break
        case .string("array")?:
            allowed.formUnion(["items", "minItems", "maxItems"])
            if let items = object["items"], !readsWhole(items, atRoot: false) { return false }
            fieldsRead = (object["minItems"] == nil || isNumber("minItems")) && (object["maxItems"] == nil || isNumber("maxItems"))
        case nil:
            allowed.insert("enum")
            fieldsRead = object["enum"] == nil || isStrings("enum")
        default:
            return false
        }
        return fieldsRead && Set(object.keys).isSubset(of: allowed)
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
