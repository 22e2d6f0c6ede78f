/// Python's `str()` and `repr()` of values, which is what jinja2 prints for `{{ value }}`.
extension JinjaValue {
    /// `str(value)`; jinja2 prints Undefined as "".
    var pythonStr: String {
        switch self {
        case .undefined: return ""
        case .string(let s), .markup(let s): return s
        default: return pythonRepr
        }
    }

    /// `repr(value)`: `None`, `True`, `'text'`, `[1, 'a']`, `{'k': 'v'}`.
    var pythonRepr: String {
        switch self {
        case .undefined: return "Undefined"
        case .none: return "None"
        case .bool(let b): return b ? "True" : "False"
        case .int(let i): return String(i)
        case .double(let d): return Self.pythonFloat(d)
        case .string(let s): return Self.pythonStringRepr(s)
        case .markup(let s): return "Markup(\(Self.pythonStringRepr(s)))"
        case .array(let a): return "[" + a.map(\.pythonRepr).joined(separator: ", ") + "]"
        case .tuple(let a): return a.count == 1 ? "(\(a[0].pythonRepr),)" : "(" + a.map(\.pythonRepr).joined(separator: ", ") + ")"
        case .object(let o):
            return "{" + o.entries.map { $0.key.pythonRepr + ": " + $0.value.pythonRepr }.joined(separator: ", ") + "}"
        case .namespace(let ns):
            return "<Namespace " + JinjaValue.object(ns.attributes).pythonRepr + ">"
        case .callable(let c): return "<function \(c.name)>"
        case .generator: return "<generator object>"
        }
    }

    /// `repr(float)`: Swift's shortest round-trip description uses the same digits and the same
    /// switch to exponent form (below 1e-4, from 1e16), so only inf/nan need care.
    static func pythonFloat(_ d: Double) -> String {
        if d.isNaN { return "nan" }
        if d.isInfinite { return d < 0 ? "-inf" : "inf" }
        return d.description
    }

    /// `repr(str)`: single quotes unless the text has a `'` and no `"`; escapes as CPython does.
    static func pythonStringRepr(_ s: String) -> String {
        let quote: Unicode.Scalar = s.contains("'") && !s.contains("\"") ? "\"" : "'"
        var out = String.UnicodeScalarView()
        out.append(quote)
        for c in s.unicodeScalars {
            switch c {
            case quote, "\\": out.append("\\"); out.append(c)
            case "\n": out.append(contentsOf: "\\n".unicodeScalars)
            case "\r": out.append(contentsOf: "\\r".unicodeScalars)
            case "\t": out.append(contentsOf: "\\t".unicodeScalars)
            default:
                if isPrintable(c) {
                    out.append(c)
                } else {
                    let hex = String(c.value, radix: 16)
                    let (prefix, width) = c.value < 0x100 ? ("\\x", 2) : c.value < 0x10000 ? ("\\u", 4) : ("\\U", 8)
                    out.append(contentsOf: (prefix + String(repeating: "0", count: width - hex.count) + hex).unicodeScalars)
                }
            }
        }
        out.append(quote)
        return String(out)
    }

    /// Python's `str.isprintable()` for one character.
    static func isPrintable(_ c: Unicode.Scalar) -> Bool {
        if c == " " { return true }
        switch c.properties.generalCategory {
        case .control, .format, .surrogate, .privateUse, .unassigned,
             .lineSeparator, .paragraphSeparator, .spaceSeparator:
            return false
        default:
            return true
        }
    }
}

extension JinjaInterpreter {
    func str(_ v: JinjaValue) throws(JinjaError) -> String {
        switch v {
        case .array, .tuple, .object, .namespace: return try repr(v)
        default: return v.pythonStr
        }
    }

    /// `repr`, refusing to build text beyond the output limit (a list can hold the same big
    /// string many times over without using memory until printed).
    func repr(_ v: JinjaValue) throws(JinjaError) -> String {
        var budget = options.maxOutputBytes
        guard v.fitsRepr(&budget) else { throw fail(.limit, "output larger than \(options.maxOutputBytes) bytes") }
        return v.pythonRepr
    }
}

extension JinjaValue {
    /// Subtracts an upper bound of the repr's UTF-8 size from `budget`; false once it runs out.
    func fitsRepr(_ budget: inout Int) -> Bool {
        switch self {
        case .string(let s), .markup(let s): budget -= 4 * s.utf8.count + 12
        case .array(let a), .tuple(let a), .generator(let a):
            budget -= 2
            for x in a {
                budget -= 2
                if budget < 0 || !x.fitsRepr(&budget) { return false }
            }
        case .object(let o):
            budget -= 2
            for (k, x) in o.entries {
                budget -= 4
                if budget < 0 || !k.fitsRepr(&budget) || !x.fitsRepr(&budget) { return false }
            }
        case .namespace(let ns): return JinjaValue.object(ns.attributes).fitsRepr(&budget)
        default: budget -= 32
        }
        return budget >= 0
    }
}
