/// A type that represents structured, generated content: a single value, an array, or a
/// structure with unique keys in a fixed order.
///
/// The session parses the model's JSON into this type (partially, while streaming) and
/// `Generable` types convert from and to it.
public struct GeneratedContent: Sendable, Equatable, Generable, CustomDebugStringConvertible {
    /// The representation of the generated content.
    public enum Kind: Sendable, Equatable {
        /// A null value.
        case null
        /// A Boolean value.
        case bool(Bool)
        /// A numeric value. JSON has one number type; integers convert on the way out.
        case number(Double)
        /// A string value.
        case string(String)
        /// An ordered list of values.
        case array([GeneratedContent])
        /// Key–value pairs; `orderedKeys` keeps the order the properties were generated in.
        case structure(properties: [String: GeneratedContent], orderedKeys: [String])
    }

    /// The representation of the generated content.
    public let kind: Kind

    /// An identity shared by the snapshots of one value while it streams.
    public var id: GenerationID?

    /// Whether the content is complete. Content parsed from a truncated JSON prefix
    /// (a stream in progress) is incomplete, as is every structure or array around it.
    public private(set) var isComplete: Bool

    /// Creates content with the specified kind and generation identifier.
    public init(kind: Kind, id: GenerationID? = nil) {
        self.kind = kind
        self.id = id
        self.isComplete = Self.childrenComplete(kind)
    }

    init(kind: Kind, id: GenerationID? = nil, isComplete: Bool) {
        self.kind = kind
        self.id = id
        self.isComplete = isComplete && Self.childrenComplete(kind)
    }

    /// Creates generated content from another value.
    public init(_ value: some ConvertibleToGeneratedContent) {
        self = value.generatedContent
    }

    /// Creates content that contains a single value with a custom generation identifier.
    public init(_ value: some ConvertibleToGeneratedContent, id: GenerationID) {
        self = value.generatedContent
        self.id = id
    }

    /// Creates content representing an array of elements you specify.
    public init<S: Sequence>(elements: S, id: GenerationID? = nil) where S.Element == any ConvertibleToGeneratedContent {
        self.init(kind: .array(elements.map(\.generatedContent)), id: id)
    }

    /// Creates content representing a structure with the properties you specify, in order.
    /// A repeated key keeps its last value at its first position.
    public init(properties: KeyValuePairs<String, any ConvertibleToGeneratedContent>, id: GenerationID? = nil) {
        self.init(properties: properties.map { ($0.key, $0.value) }, id: id, uniquingKeysWith: { _, second in second })
    }

    /// Creates content from key–value pairs, resolving duplicate keys with `combine`.
    public init<S: Sequence>(
        properties: S,
        id: GenerationID? = nil,
        uniquingKeysWith combine: (GeneratedContent, GeneratedContent) throws -> some ConvertibleToGeneratedContent
    ) rethrows where S.Element == (String, any ConvertibleToGeneratedContent) {
        var values: [String: GeneratedContent] = [:]
        var order: [String] = []
        for (key, value) in properties {
            let content = value.generatedContent
            if let existing = values[key] {
                values[key] = try combine(existing, content).generatedContent
            } else {
                values[key] = content
                order.append(key)
            }
        }
        self.init(kind: .structure(properties: values, orderedKeys: order), id: id)
    }

    private static func childrenComplete(_ kind: Kind) -> Bool {
        switch kind {
        case .null, .bool, .number, .string: true
        case .array(let elements): elements.allSatisfy(\.isComplete)
        case .structure(let properties, _): properties.values.allSatisfy(\.isComplete)
        }
    }

    // MARK: Generable

    /// Any JSON value: generated content describes itself.
    public static var generationSchema: GenerationSchema {
        GenerationSchema(root: .anyValue)
    }

    public init(_ content: GeneratedContent) throws {
        self = content
    }

    public var generatedContent: GeneratedContent { self }

    // MARK: Reading values

    /// Reads a top-level value of a concrete type.
    public func value<Value: ConvertibleFromGeneratedContent>(_ type: Value.Type = Value.self) throws -> Value {
        try Value(self)
    }

    /// Reads a concrete type from a named property of a structure. Throws when the property is missing.
    public func value<Value: ConvertibleFromGeneratedContent>(
        _ type: Value.Type = Value.self,
        forProperty property: String
    ) throws -> Value {
        let properties = try structureProperties()
        guard let content = properties[property] else {
            throw GeneratedContentError.missingProperty(property, available: orderedKeys)
        }
        do {
            return try Value(content)
        } catch let error as GeneratedContentError {
            throw error.inProperty(property)
        }
    }

    /// Reads an optional concrete type from a named property: `nil` when the property is
    /// missing or null.
    public func value<Value: ConvertibleFromGeneratedContent>(
        _ type: Value?.Type = Value?.self,
        forProperty property: String
    ) throws -> Value? {
        let properties = try structureProperties()
        guard let content = properties[property] else { return nil }
        if case .null = content.kind { return nil }
        do {
            return try Value(content)
        } catch let error as GeneratedContentError {
            throw error.inProperty(property)
        }
    }

    /// The properties of a structure. Throws when the content is not a structure.
    public func properties() throws -> [String: GeneratedContent] {
        try structureProperties()
    }

    /// The elements of an array. Throws when the content is not an array.
    public func elements() throws -> [GeneratedContent] {
        guard case .array(let elements) = kind else {
            throw GeneratedContentError.typeMismatch(expected: "array", found: kindName)
        }
        return elements
    }

    private func structureProperties() throws -> [String: GeneratedContent] {
        guard case .structure(let properties, _) = kind else {
            throw GeneratedContentError.typeMismatch(expected: "structure", found: kindName)
        }
        return properties
    }

    private var orderedKeys: [String] {
        if case .structure(_, let keys) = kind { return keys }
        return []
    }

    /// A short name of the kind, for error messages.
    var kindName: String {
        switch kind {
        case .null: "null"
        case .bool: "bool"
        case .number: "number"
        case .string: "string"
        case .array: "array"
        case .structure: "structure"
        }
    }

    public var debugDescription: String {
        isComplete ? jsonString : "\(jsonString) (incomplete)"
    }

    public static func == (lhs: GeneratedContent, rhs: GeneratedContent) -> Bool {
        lhs.kind == rhs.kind && lhs.id == rhs.id && lhs.isComplete == rhs.isComplete
    }
}

extension GeneratedContent.Kind {
    public static func == (lhs: Self, rhs: Self) -> Bool {
        switch (lhs, rhs) {
        case (.null, .null): true
        case (.bool(let a), .bool(let b)): a == b
        case (.number(let a), .number(let b)): a == b
        case (.string(let a), .string(let b)): a == b
        case (.array(let a), .array(let b)): a == b
        // Order is part of a structure's value: it is the order the model generated.
        case (.structure(let a, let aKeys), .structure(let b, let bKeys)): aKeys == bKeys && a == b
        default: false
        }
    }
}
