/// Why a grammar, schema or pattern could not be compiled. Every case says where.
public enum GrammarError: Error, Equatable, Sendable, CustomStringConvertible {
    /// GBNF syntax or meaning error at a 1-based line and column.
    case gbnf(message: String, line: Int, column: Int)
    /// Regular expression error at a 0-based character offset in the pattern.
    case regex(message: String, offset: Int)
    /// A malformed schema (or malformed JSON text) at a JSON path such as `$.properties.age`.
    case schema(message: String, path: String)
    /// A JSON Schema keyword or value this compiler does not implement; never silently ignored.
    case unsupportedSchemaFeature(feature: String, path: String)
    /// A rule can start with itself (directly or through nullable rules); the matcher would loop.
    case leftRecursion(rule: String)
    /// The grammar has no rule of this name to start from.
    case missingRoot(name: String)
    /// The grammar is too large for the matcher's position encoding, or a repetition is too big.
    case tooLarge(message: String)

    public var description: String {
        switch self {
        case let .gbnf(message, line, column): return "GBNF error at \(line):\(column): \(message)"
        case let .regex(message, offset): return "regex error at offset \(offset): \(message)"
        case let .schema(message, path): return "schema error at \(path): \(message)"
        case let .unsupportedSchemaFeature(feature, path): return "unsupported JSON Schema feature '\(feature)' at \(path)"
        case let .leftRecursion(rule): return "left recursion through rule '\(rule)'"
        case let .missingRoot(name): return "grammar has no rule '\(name)'"
        case let .tooLarge(message): return "grammar too large: \(message)"
        }
    }
}
