import Foundation

// The standard types the model can generate directly, as in Apple's framework.

extension Bool: Generable {
    public static var generationSchema: GenerationSchema { .primitive(.boolean) }

    public init(_ content: GeneratedContent) throws {
        guard case .bool(let value) = content.kind else {
            throw GeneratedContentError.typeMismatch(expected: "bool", found: content.kindName)
        }
        self = value
    }

    public var generatedContent: GeneratedContent { GeneratedContent(kind: .bool(self)) }
}

extension String: Generable {
    public static var generationSchema: GenerationSchema {
        .primitive(.string(name: nil, description: nil, choices: nil, pattern: nil))
    }

    public init(_ content: GeneratedContent) throws {
        guard case .string(let value) = content.kind else {
            throw GeneratedContentError.typeMismatch(expected: "string", found: content.kindName)
        }
        self = value
    }

    public var generatedContent: GeneratedContent { GeneratedContent(kind: .string(self)) }
}

extension Int: Generable {
    public static var generationSchema: GenerationSchema { .primitive(.integer(minimum: nil, maximum: nil)) }

    public init(_ content: GeneratedContent) throws {
        let value = try Double.number(in: content)
        // Exact only: a fractional or out-of-range number is an error, not a silent rounding.
        guard let exact = Int(exactly: value) else {
            throw GeneratedContentError.numberOutOfRange(value, type: "Int")
        }
        self = exact
    }

    public var generatedContent: GeneratedContent { GeneratedContent(kind: .number(Double(self))) }
}

extension Double: Generable {
    public static var generationSchema: GenerationSchema { .primitive(.number(minimum: nil, maximum: nil)) }

    public init(_ content: GeneratedContent) throws {
        self = try Double.number(in: content)
    }

    public var generatedContent: GeneratedContent { GeneratedContent(kind: .number(self)) }

    static func number(in content: GeneratedContent) throws -> Double {
        guard case .number(let value) = content.kind else {
            throw GeneratedContentError.typeMismatch(expected: "number", found: content.kindName)
        }
        return value
    }
}

extension Float: Generable {
    public static var generationSchema: GenerationSchema { .primitive(.number(minimum: nil, maximum: nil)) }

    public init(_ content: GeneratedContent) throws {
        self = Float(try Double.number(in: content))
    }

    public var generatedContent: GeneratedContent { GeneratedContent(kind: .number(Double(self))) }
}

extension Decimal: Generable {
    public static var generationSchema: GenerationSchema { .primitive(.number(minimum: nil, maximum: nil)) }

    public init(_ content: GeneratedContent) throws {
        let value = try Double.number(in: content)
        // Through the shortest decimal text of the double, so 0.1 stays 0.1 and not 0.1000000000000000055…
        guard let decimal = Decimal(string: GeneratedContent.formatJSONNumber(value), locale: Locale(identifier: "en_US_POSIX")) else {
            throw GeneratedContentError.numberOutOfRange(value, type: "Decimal")
        }
        self = decimal
    }

    public var generatedContent: GeneratedContent {
        GeneratedContent(kind: .number(NSDecimalNumber(decimal: self).doubleValue))
    }
}

extension Array: Generable where Element: Generable {
    public typealias PartiallyGenerated = [Element.PartiallyGenerated]

    public static var generationSchema: GenerationSchema { .array(of: Element.self) }
}

extension Array: ConvertibleFromGeneratedContent where Element: ConvertibleFromGeneratedContent {
    public init(_ content: GeneratedContent) throws {
        guard case .array(let elements) = content.kind else {
            throw GeneratedContentError.typeMismatch(expected: "array", found: content.kindName)
        }
        self = try elements.enumerated().map { index, element in
            do {
                return try Element(element)
            } catch let error as GeneratedContentError {
                throw error.inProperty("[\(index)]")
            }
        }
    }
}

extension Array: ConvertibleToGeneratedContent where Element: ConvertibleToGeneratedContent {
    public var generatedContent: GeneratedContent {
        GeneratedContent(kind: .array(map(\.generatedContent)))
    }
}

extension Optional: Generable where Wrapped: Generable {
    public typealias PartiallyGenerated = Wrapped.PartiallyGenerated

    /// The wrapped type's schema: optionality belongs to the property (it is left out of
    /// `required`), as in Apple's schemas.
    public static var generationSchema: GenerationSchema { GenerationSchema(root: .generable(Wrapped.self, .none)) }
}

extension Optional: ConvertibleFromGeneratedContent where Wrapped: ConvertibleFromGeneratedContent {
    public init(_ content: GeneratedContent) throws {
        if case .null = content.kind {
            self = nil
        } else {
            self = try Wrapped(content)
        }
    }
}

extension Optional: ConvertibleToGeneratedContent where Wrapped: ConvertibleToGeneratedContent {
    public var generatedContent: GeneratedContent {
        self?.generatedContent ?? GeneratedContent(kind: .null)
    }
}
