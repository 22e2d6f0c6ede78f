import Foundation

/// A value in a Jinja template context, modelled on the Python values jinja2 sees when Hugging Face
/// renders a chat template: `None`, `bool`, `int`, `float`, `str`, `list`, `dict` (insertion-ordered),
/// plus jinja2's `Undefined` and the runtime-only kinds a template can make (callables, namespaces,
/// `Markup` strings, lazy generators from filters such as `map`).
public enum JinjaValue: Sendable {
    /// jinja2's default `Undefined`: renders as "", is falsy, iterates as empty; attribute access,
    /// calls and arithmetic on it raise. The payload says what was missing, for error messages.
    case undefined(String)
    case none
    case bool(Bool)
    case int(Int)
    case double(Double)
    case string(String)
    /// A `Markup` string (from `safe`/`escape`): `+` with a plain string HTML-escapes the other side.
    case markup(String)
    case array([JinjaValue])
    /// A Python tuple (`(a, b)` literals, `dict.items()` pairs): a list that prints as `(a, b)`.
    case tuple([JinjaValue])
    case object(JinjaObject)
    /// A `namespace()` object: the one mutable value (`{% set ns.x = … %}`).
    case namespace(JinjaNamespace)
    case callable(JinjaCallable)
    /// A one-shot Python generator (`map`, `select`, `items`, `reverse` … return these in jinja2):
    /// iterable, but `length` and `tojson` fail on it as they do in Python.
    case generator([JinjaValue])

    /// An undefined value for a missing variable, worded as jinja2 words it.
    static func missing(_ name: String) -> JinjaValue { .undefined("'\(name)' is undefined") }
}

/// An insertion-ordered dictionary, like a Python `dict`. Keys are usually strings (from JSON),
/// but template literals such as `{4096: 512}` have int keys, hashed as Python does (1 == 1.0 == True).
public struct JinjaObject: Sendable {
    public private(set) var entries: [(key: JinjaValue, value: JinjaValue)] = []
    private var index: [HashKey: Int] = [:]

    enum HashKey: Hashable {
        case string(String)
        case int(Int)
        case double(UInt64)
        case none

        init?(_ v: JinjaValue) {
            switch v {
            case .string(let s), .markup(let s): self = .string(s)
            case .int(let i): self = .int(i)
            case .bool(let b): self = .int(b ? 1 : 0)
            case .double(let d):
                if let i = Int(exactly: d) { self = .int(i) } else { self = .double(d.bitPattern) }
            case .none: self = .none
            default: return nil
            }
        }
    }

    public init() {}

    public init(_ pairs: [(String, JinjaValue)]) {
        for (k, v) in pairs { self[k] = v }
    }

    public var count: Int { entries.count }
    public var isEmpty: Bool { entries.isEmpty }

    public subscript(key: String) -> JinjaValue? {
        get { self[.string(key)] }
        set { self[.string(key)] = newValue }
    }

    /// Lookup by any hashable key; nil for a missing or unhashable key. Setting nil is ignored
    /// (templates cannot delete keys).
    public subscript(key: JinjaValue) -> JinjaValue? {
        get { HashKey(key).flatMap { index[$0] }.map { entries[$0].value } }
        set {
            guard let newValue, let h = HashKey(key) else { return }
            if let i = index[h] {
                entries[i].value = newValue
            } else {
                index[h] = entries.count
                entries.append((key, newValue))
            }
        }
    }

    /// Whether `key` can be a dict key (Python raises "unhashable type" otherwise).
    static func isHashable(_ key: JinjaValue) -> Bool { HashKey(key) != nil }

    /// Keys in insertion order.
    public var keys: [JinjaValue] { entries.map(\.key) }

    /// Entries with keys as `str(key)`, in insertion order.
    public var pairs: [(key: String, value: JinjaValue)] {
        entries.map { ($0.key.pythonStr, $0.value) }
    }
}

/// The mutable object `namespace()` returns. Only a render call creates and mutates one, on the
/// rendering thread, and it never outlives that call; hence the unchecked Sendable.
public final class JinjaNamespace: @unchecked Sendable {
    var attributes: JinjaObject
    init(_ attributes: JinjaObject) { self.attributes = attributes }
}

/// A function value: a global (`range`, `namespace`, `raise_exception`, …), a macro, `caller`,
/// or a bound method such as `"a,b".split`.
public struct JinjaCallable: Sendable {
    let name: String
    let body: @Sendable (_ call: JinjaCall) throws(JinjaError) -> JinjaValue
}

/// The arguments of one call, with the interpreter for callables that render (macros).
struct JinjaCall {
    var positional: [JinjaValue]
    var keywords: [(String, JinjaValue)]
    let interpreter: JinjaInterpreter
    let line: Int
}

extension JinjaValue: ExpressibleByStringLiteral, ExpressibleByIntegerLiteral, ExpressibleByFloatLiteral,
    ExpressibleByBooleanLiteral, ExpressibleByArrayLiteral, ExpressibleByNilLiteral {
    public init(stringLiteral value: String) { self = .string(value) }
    public init(integerLiteral value: Int) { self = .int(value) }
    public init(floatLiteral value: Double) { self = .double(value) }
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    public init(arrayLiteral elements: JinjaValue...) { self = .array(elements) }
    public init(nilLiteral: ()) { self = .none }
}

extension JinjaValue {
    public init(_ string: String) { self = .string(string) }

    /// Python truthiness.
    var isTruthy: Bool {
        switch self {
        case .undefined, .none: return false
        case .bool(let b): return b
        case .int(let i): return i != 0
        case .double(let d): return d != 0
        case .string(let s), .markup(let s): return !s.isEmpty
        case .array(let a), .tuple(let a): return !a.isEmpty
        case .object(let o): return !o.isEmpty
        case .namespace, .callable, .generator: return true
        }
    }

    var isUndefined: Bool {
        if case .undefined = self { return true }
        return false
    }

    /// The items of a list or tuple, else nil.
    var sequenceItems: [JinjaValue]? {
        switch self {
        case .array(let a), .tuple(let a): return a
        default: return nil
        }
    }

    /// The text of a `str` or `Markup`, else nil.
    var stringValue: String? {
        switch self {
        case .string(let s), .markup(let s): return s
        default: return nil
        }
    }

    /// Python's type name, for error messages.
    var typeName: String {
        switch self {
        case .undefined: return "Undefined"
        case .none: return "NoneType"
        case .bool: return "bool"
        case .int: return "int"
        case .double: return "float"
        case .string: return "str"
        case .markup: return "Markup"
        case .array: return "list"
        case .tuple: return "tuple"
        case .object: return "dict"
        case .namespace: return "Namespace"
        case .callable: return "function"
        case .generator: return "generator"
        }
    }
}
