/// Structural equality (`.int(1) != .double(1)`), for callers and tests. Templates compare with
/// Python's rules instead (`1 == 1.0 == True`), in `JinjaInterpreter.equal`.
extension JinjaValue: Equatable {
    public static func == (lhs: JinjaValue, rhs: JinjaValue) -> Bool {
        switch (lhs, rhs) {
        case (.undefined, .undefined), (.none, .none): return true
        case (.bool(let a), .bool(let b)): return a == b
        case (.int(let a), .int(let b)): return a == b
        case (.double(let a), .double(let b)): return a == b
        case (.string(let a), .string(let b)), (.markup(let a), .markup(let b)): return a == b
        case (.array(let a), .array(let b)), (.tuple(let a), .tuple(let b)), (.generator(let a), .generator(let b)): return a == b
        case (.object(let a), .object(let b)): return a == b
        case (.namespace(let a), .namespace(let b)): return a === b
        default: return false
        }
    }
}

/// Same entries in the same order.
extension JinjaObject: Equatable {
    public static func == (lhs: JinjaObject, rhs: JinjaObject) -> Bool {
        lhs.entries.count == rhs.entries.count
            && zip(lhs.entries, rhs.entries).allSatisfy { $0.key == $1.key && $0.value == $1.value }
    }
}

extension JinjaValue: ExpressibleByDictionaryLiteral {
    /// An object literal; keys keep the literal's order.
    public init(dictionaryLiteral elements: (String, JinjaValue)...) {
        self = .object(JinjaObject(elements))
    }
}

extension JinjaValue {
    /// Python's `json.dumps(value, ensure_ascii=…, indent=…, sort_keys=…)`: key order kept,
    /// `", "`/`": "` separators (`","` and newlines with an indent). Undefined, callables and
    /// namespaces are not JSON (a `.type` error).
    public func jsonString(ensureASCII: Bool = false, indent: Int? = nil, sortKeys: Bool = false) throws(JinjaError) -> String {
        try json(ensureASCII: ensureASCII, indent: indent.map { String(repeating: " ", count: max(0, min($0, 64))) },
                 sortKeys: sortKeys)
    }
}
