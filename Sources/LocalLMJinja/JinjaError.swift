/// Why a chat template failed to parse or render, with the template line (1-based) it failed at.
///
/// The kinds mirror the exceptions jinja2 raises, so a caller can tell a template's own
/// `raise_exception(...)` (a deliberate refusal of the conversation) from a broken template.
public struct JinjaError: Error, Sendable, CustomStringConvertible, Equatable {
    public enum Kind: String, Sendable, Equatable {
        /// The template does not parse (jinja2 `TemplateSyntaxError`).
        case syntax
        /// A filter or test name jinja2 does not know (`TemplateAssertionError`/`TemplateRuntimeError`).
        case unknownFilterOrTest
        /// Use of an undefined value where jinja2 raises `UndefinedError`.
        case undefined
        /// A Python `TypeError`/`ValueError`/`ZeroDivisionError` equivalent.
        case type
        /// The template called `raise_exception(message)`.
        case raised
        /// A call the immutable sandbox forbids (`list.append`, `dict.update`, …).
        case security
        /// A resource limit (output size, recursion depth, loop steps) was hit.
        case limit
    }

    public let kind: Kind
    public let message: String
    /// 1-based template line; 0 when unknown.
    public let line: Int
    /// 1-based column where known.
    public let column: Int?

    public init(_ kind: Kind, _ message: String, line: Int, column: Int? = nil) {
        self.kind = kind
        self.message = message
        self.line = line
        self.column = column
    }

    public var description: String {
        let place = column.map { "line \(line), column \($0)" } ?? "line \(line)"
        return "template \(kind.rawValue) error at \(place): \(message)"
    }
}
