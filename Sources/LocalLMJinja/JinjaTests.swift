/// jinja2's tests (`x is defined`, `x is string`, …) with Python's type rules: `bool` is a
/// number, a dict is a sequence, Undefined is iterable.
enum JinjaTests {
    static let names: Set<String> = [
        "defined", "undefined", "none", "string", "number", "integer", "float", "boolean", "mapping",
        "iterable", "sequence", "callable", "true", "false", "odd", "even", "divisibleby", "eq", "equalto",
        "==", "ne", "!=", "lt", "<", "lessthan", "gt", ">", "greaterthan", "le", "<=", "ge", ">=", "in",
        "sameas", "lower", "upper", "escaped", "filter", "test",
    ]

    static func apply(_ name: String, _ v: JinjaValue, _ call: JinjaCall) throws(JinjaError) -> Bool {
        let interp = call.interpreter
        func argument() throws(JinjaError) -> JinjaValue {
            guard let a = call.positional.first ?? call.keywords.first?.1 else {
                throw call.error(.type, "test '\(name)' needs an argument")
            }
            return a
        }
        func integer() throws(JinjaError) -> Int {
            switch v {
            case .int(let i): return i
            case .bool(let b): return b ? 1 : 0
            case .undefined(let why): throw call.error(.undefined, why)
            default: throw call.error(.type, "test '\(name)' needs an integer, not \(v.typeName)")
            }
        }
        switch name {
        case "defined": return !v.isUndefined
        case "undefined": return v.isUndefined
        case "none":
            if case .none = v { return true }
            return false
        case "string": return v.stringValue != nil
        case "number":
            switch v {
            case .int, .double, .bool: return true
            default: return false
            }
        case "integer":
            if case .int = v { return true }
            return false
        case "float":
            if case .double = v { return true }
            return false
        case "boolean":
            if case .bool = v { return true }
            return false
        case "true":
            if case .bool(true) = v { return true }
            return false
        case "false":
            if case .bool(false) = v { return true }
            return false
        case "mapping":
            if case .object = v { return true }
            return false
        case "iterable":
            switch v {
            case .string, .markup, .array, .tuple, .object, .generator, .undefined: return true
            default: return false
            }
        case "sequence":
            switch v {
            case .string, .markup, .array, .tuple, .object, .undefined: return true
            default: return false
            }
        case "callable":
            if case .callable = v { return true }
            return false
        case "odd": return try integer() % 2 != 0
        case "even": return try integer() % 2 == 0
        case "divisibleby":
            let n = try integer()
            guard case .int(let d) = try argument(), d != 0 else { throw call.error(.type, "divisibleby needs a non-zero integer") }
            return d == -1 || n % d == 0
        case "eq", "equalto", "==": return interp.equal(v, try argument())
        case "ne", "!=": return !interp.equal(v, try argument())
        case "lt", "<", "lessthan": return try interp.compare(v, try argument(), "<") < 0
        case "gt", ">", "greaterthan": return try interp.compare(v, try argument(), ">") > 0
        case "le", "<=": return try interp.compare(v, try argument(), "<=") <= 0
        case "ge", ">=": return try interp.compare(v, try argument(), ">=") >= 0
        case "in": return try interp.contains(try argument(), v)
        case "sameas":
            let other = try argument()
            switch (v, other) {
            case (.none, .none): return true
            case (.bool(let a), .bool(let b)): return a == b
            case (.namespace(let a), .namespace(let b)): return a === b
            default: return false
            }
        case "lower": return v.stringValue.map { $0 == $0.lowercased() } ?? false
        case "upper": return v.stringValue.map { $0 == $0.uppercased() } ?? false
        case "escaped": return v.isMarkup
        case "filter": return v.stringValue.map { JinjaFilters.table[$0] != nil } ?? false
        case "test": return v.stringValue.map { names.contains($0) } ?? false
        default:
            throw call.error(.unknownFilterOrTest, "no test named '\(name)'")
        }
    }
}
