/// Why generated content could not be parsed or converted to a Swift value.
///
/// Messages name the place: the property path for conversions, the UTF-8 byte offset for JSON.
public enum GeneratedContentError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The content has another kind than the type needs (`path` is the property path, outermost first).
    case typeMismatch(expected: String, found: String, path: [String] = [])
    /// A required property is absent from a structure.
    case missingProperty(String, available: [String], path: [String] = [])
    /// A number does not fit the requested type (an `Int` that is fractional or out of range).
    case numberOutOfRange(Double, type: String, path: [String] = [])
    /// A string is none of an enumeration's cases.
    case unknownCase(String, type: String, path: [String] = [])
    /// The text is not JSON, nor a prefix of JSON. `offset` counts UTF-8 bytes from the start.
    case invalidJSON(String, offset: Int)

    func inProperty(_ name: String) -> Self {
        switch self {
        case .typeMismatch(let e, let f, let path): .typeMismatch(expected: e, found: f, path: [name] + path)
        case .missingProperty(let p, let a, let path): .missingProperty(p, available: a, path: [name] + path)
        case .numberOutOfRange(let v, let t, let path): .numberOutOfRange(v, type: t, path: [name] + path)
        case .unknownCase(let v, let t, let path): .unknownCase(v, type: t, path: [name] + path)
        case .invalidJSON: self
        }
    }

    public var description: String {
        func at(_ path: [String]) -> String { path.isEmpty ? "" : " at \(path.joined(separator: "."))" }
        switch self {
        case .typeMismatch(let expected, let found, let path):
            return "expected \(expected), found \(found)\(at(path))"
        case .missingProperty(let name, let available, let path):
            return "missing property '\(name)'\(at(path)); present: [\(available.joined(separator: ", "))]"
        case .numberOutOfRange(let value, let type, let path):
            return "\(value) is not a valid \(type)\(at(path))"
        case .unknownCase(let value, let type, let path):
            return "'\(value)' is not a case of \(type)\(at(path))"
        case .invalidJSON(let message, let offset):
            return "invalid JSON at byte \(offset): \(message)"
        }
    }
}
