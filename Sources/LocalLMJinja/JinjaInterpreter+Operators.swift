import Foundation

/// Python semantics for jinja2's binary operators, comparisons and `in`.
extension JinjaInterpreter {
    enum Number {
        case int(Int)
        case double(Double)

        var double: Double {
            switch self {
            case .int(let i): return Double(i)
            case .double(let d): return d
            }
        }
    }

    /// A Python number (`bool` counts as `int`, as in Python).
    func number(_ v: JinjaValue) -> Number? {
        switch v {
        case .int(let i): return .int(i)
        case .bool(let b): return .int(b ? 1 : 0)
        case .double(let d): return .double(d)
        default: return nil
        }
    }

    func unsupported(_ op: String, _ a: JinjaValue, _ b: JinjaValue) -> JinjaError {
        if case .undefined(let why) = a { return fail(.undefined, why) }
        if case .undefined(let why) = b { return fail(.undefined, why) }
        if op == "+", a.stringValue != nil {
            return fail(.type, "can only concatenate str (not \"\(b.typeName)\") to str")
        }
        return fail(.type, "unsupported operand type(s) for \(op): '\(a.typeName)' and '\(b.typeName)'")
    }

    func overflow() -> JinjaError { fail(.type, "integer result too large") }

    func binary(_ op: String, _ a: JinjaValue, _ b: JinjaValue) throws(JinjaError) -> JinjaValue {
        switch op {
        case "~":
            let s = try str(a) + str(b)
            try checkSize(s)
            return .string(s)
        case "==": return .bool(equal(a, b))
        case "!=": return .bool(!equal(a, b))
        case "<", "<=", ">", ">=":
            let c = try compare(a, b, op)
            switch op {
            case "<": return .bool(c < 0)
            case "<=": return .bool(c <= 0)
            case ">": return .bool(c > 0)
            default: return .bool(c >= 0)
            }
        case "in": return .bool(try contains(b, a))
        case "not in": return .bool(!(try contains(b, a)))
        default:
            break
        }
        if let x = number(a), let y = number(b) { return try arithmetic(op, x, y) }
        switch (op, a, b) {
        case ("+", .markup(let x), _) where b.stringValue != nil:
            return .markup(x + (b.isMarkup ? b.stringValue ?? "" : Self.htmlEscape(b.stringValue ?? "")))
        case ("+", _, .markup(let y)) where a.stringValue != nil:
            return .markup(Self.htmlEscape(a.stringValue ?? "") + y)
        case ("+", .string(let x), .string(let y)):
            let s = x + y
            try checkSize(s)
            return .string(s)
        case ("+", .array(let x), .array(let y)):
            try checkCount(x.count, y.count)
            return .array(x + y)
        case ("+", .tuple(let x), .tuple(let y)):
            try checkCount(x.count, y.count)
            return .tuple(x + y)
        case ("*", _, _):
            if let n = number(b), case .int(let k) = n, a.stringValue != nil || isArray(a) {
                return try repeated(a, k)
            }
            if let n = number(a), case .int(let k) = n, b.stringValue != nil || isArray(b) {
                return try repeated(b, k)
            }
        case ("%", .string(let format), _), ("%", .markup(let format), _):
            return .string(try percentFormat(format, b))
        default:
            break
        }
        throw unsupported(op, a, b)
    }

    /// Lists are capped at `maxSteps` items so doubling a list in a loop cannot exhaust memory.
    func checkCount(_ a: Int, _ b: Int) throws(JinjaError) {
        if b > options.maxSteps - min(a, options.maxSteps) { throw fail(.limit, "list longer than \(options.maxSteps) items") }
    }

    func isArray(_ v: JinjaValue) -> Bool {
        return v.sequenceItems != nil
    }

    func repeated(_ v: JinjaValue, _ k: Int) throws(JinjaError) -> JinjaValue {
        let n = max(0, k)
        switch v {
        case .array(let a), .tuple(let a):
            guard a.isEmpty || n <= options.maxSteps / a.count else { throw fail(.limit, "list longer than \(options.maxSteps) items") }
            let r = Array([[JinjaValue]](repeating: a, count: n).joined())
            if case .tuple = v { return .tuple(r) }
            return .array(r)
        default:
            let s = v.stringValue ?? ""
            guard s.isEmpty || n <= options.maxOutputBytes / s.utf8.count else {
                throw fail(.limit, "output larger than \(options.maxOutputBytes) bytes")
            }
            return .string(String(repeating: s, count: n))
        }
    }

    func arithmetic(_ op: String, _ x: Number, _ y: Number) throws(JinjaError) -> JinjaValue {
        if case .int(let a) = x, case .int(let b) = y {
            switch op {
            case "+":
                let (r, o) = a.addingReportingOverflow(b)
                if o { throw overflow() }
                return .int(r)
            case "-":
                let (r, o) = a.subtractingReportingOverflow(b)
                if o { throw overflow() }
                return .int(r)
            case "*":
                let (r, o) = a.multipliedReportingOverflow(by: b)
                if o { throw overflow() }
                return .int(r)
            case "/":
                guard b != 0 else { throw fail(.type, "division by zero") }
                return .double(Double(a) / Double(b))
            case "//":
                guard b != 0 else { throw fail(.type, "integer division or modulo by zero") }
                if a == .min && b == -1 { throw overflow() }
                let q = a / b
                return .int((a % b != 0 && (a < 0) != (b < 0)) ? q - 1 : q)
            case "%":
                guard b != 0 else { throw fail(.type, "integer division or modulo by zero") }
                if b == -1 { return .int(0) }
                let r = a % b
                return .int(r != 0 && (r < 0) != (b < 0) ? r + b : r)
            case "**":
                if b < 0 {
                    guard a != 0 else { throw fail(.type, "0.0 cannot be raised to a negative power") }
                    return .double(pow(Double(a), Double(b)))
                }
                var result = 1, base = a, e = b
                while e > 0 {
                    if e & 1 == 1 {
                        let (r, o) = result.multipliedReportingOverflow(by: base)
                        if o { throw overflow() }
                        result = r
                    }
                    e >>= 1
                    if e > 0 {
                        let (sq, o) = base.multipliedReportingOverflow(by: base)
                        if o { throw overflow() }
                        base = sq
                    }
                }
                return .int(result)
            default:
                break
            }
        }
        let a = x.double, b = y.double
        switch op {
        case "+": return .double(a + b)
        case "-": return .double(a - b)
        case "*": return .double(a * b)
        case "/":
            guard b != 0 else { throw fail(.type, "float division by zero") }
            return .double(a / b)
        case "//":
            guard b != 0 else { throw fail(.type, "float floor division by zero") }
            return .double((a / b).rounded(.down))
        case "%":
            guard b != 0 else { throw fail(.type, "float modulo") }
            var r = fmod(a, b)
            if r != 0 && (r < 0) != (b < 0) { r += b }
            return .double(r)
        case "**":
            if a == 0 && b < 0 { throw fail(.type, "0.0 cannot be raised to a negative power") }
            return .double(pow(a, b))
        default:
            throw fail(.type, "unsupported operator \(op)")
        }
    }

    /// Python `==`.
    func equal(_ a: JinjaValue, _ b: JinjaValue) -> Bool {
        if let x = number(a), let y = number(b) {
            switch (x, y) {
            case (.int(let i), .int(let j)): return i == j
            default: return x.double == y.double
            }
        }
        switch (a, b) {
        case (.none, .none), (.undefined, .undefined): return true
        case (.array(let x), .array(let y)), (.tuple(let x), .tuple(let y)):
            return x.count == y.count && zip(x, y).allSatisfy { equal($0, $1) }
        case (.object(let x), .object(let y)):
            guard x.count == y.count else { return false }
            for (k, v) in x.entries {
                guard let w = y[k], equal(v, w) else { return false }
            }
            return true
        case (.namespace(let x), .namespace(let y)): return x === y
        default:
            if let x = a.stringValue, let y = b.stringValue {
                return x.unicodeScalars.elementsEqual(y.unicodeScalars)
            }
            return false
        }
    }

    /// Python ordering: -1, 0 or 1; TypeError across kinds.
    func compare(_ a: JinjaValue, _ b: JinjaValue, _ op: String) throws(JinjaError) -> Int {
        if let x = number(a), let y = number(b) {
            if case .int(let i) = x, case .int(let j) = y { return i < j ? -1 : i > j ? 1 : 0 }
            let p = x.double, q = y.double
            return p < q ? -1 : p > q ? 1 : 0
        }
        if let x = a.stringValue, let y = b.stringValue {
            for (c, d) in zip(x.unicodeScalars, y.unicodeScalars) where c != d {
                return c.value < d.value ? -1 : 1
            }
            let m = x.unicodeScalars.count, n = y.unicodeScalars.count
            return m < n ? -1 : m > n ? 1 : 0
        }
        if let x = a.sequenceItems, let y = b.sequenceItems, a.typeName == b.typeName {
            for (c, d) in zip(x, y) where !equal(c, d) { return try compare(c, d, op) }
            return x.count < y.count ? -1 : x.count > y.count ? 1 : 0
        }
        if case .undefined(let why) = a { throw fail(.undefined, why) }
        if case .undefined(let why) = b { throw fail(.undefined, why) }
        throw fail(.type, "'\(op)' not supported between instances of '\(a.typeName)' and '\(b.typeName)'")
    }

    /// Python `needle in haystack`.
    func contains(_ haystack: JinjaValue, _ needle: JinjaValue) throws(JinjaError) -> Bool {
        switch haystack {
        case .string(let s), .markup(let s):
            guard let n = needle.stringValue else {
                if case .undefined(let why) = needle { throw fail(.undefined, why) }
                throw fail(.type, "'in <string>' requires string as left operand, not \(needle.typeName)")
            }
            return n.isEmpty || Self.find(n, in: s) != nil
        case .array(let a), .tuple(let a), .generator(let a):
            return a.contains { equal($0, needle) }
        case .object(let o):
            if case .undefined(let why) = needle { throw fail(.undefined, why) }
            guard JinjaObject.isHashable(needle) else { throw fail(.type, "unhashable type: '\(needle.typeName)'") }
            return o[needle] != nil
        case .undefined:
            return false
        default:
            throw fail(.type, "argument of type '\(haystack.typeName)' is not iterable")
        }
    }

    /// Offset (in Unicode scalars) of the first occurrence of `needle` in `haystack`.
    static func find(_ needle: String, in haystack: String, from start: Int = 0) -> Int? {
        let h = Array(haystack.unicodeScalars), n = Array(needle.unicodeScalars)
        guard n.count <= h.count else { return nil }
        if n.isEmpty { return start <= h.count ? start : nil }
        var i = max(0, start)
        while i + n.count <= h.count {
            if h[i] == n[0], h[i..<i + n.count].elementsEqual(n) { return i }
            i += 1
        }
        return nil
    }

    static func htmlEscape(_ s: String) -> String {
        var out = ""
        for c in s.unicodeScalars {
            switch c {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&#34;"
            case "'": out += "&#39;"
            default: out.unicodeScalars.append(c)
            }
        }
        return out
    }

    /// `"…" % args`: printf-style formatting with %s, %r, %d/%i, %f, %x and %%.
    func percentFormat(_ format: String, _ args: JinjaValue) throws(JinjaError) -> String {
        var values: [JinjaValue]
        // Only a tuple spreads into several arguments, as in Python.
        if case .tuple(let a) = args { values = a } else { values = [args] }
        var out = ""
        var it = Array(format.unicodeScalars)[...]
        while let c = it.popFirst() {
            guard c == "%" else { out.unicodeScalars.append(c); continue }
            var spec = ""
            while let d = it.first, "0123456789.-+ #".unicodeScalars.contains(d) { spec.unicodeScalars.append(d); it.removeFirst() }
            guard let conv = it.popFirst() else { throw fail(.type, "incomplete format") }
            if conv == "%" { out += "%"; continue }
            guard !values.isEmpty else { throw fail(.type, "not enough arguments for format string") }
            let v = values.removeFirst()
            switch conv {
            case "s": out += try str(v)
            case "r": out += try repr(v)
            case "d", "i":
                guard let n = number(v) else { throw fail(.type, "%d format: a real number is required, not \(v.typeName)") }
                switch n {
                case .int(let i): out += String(i)
                case .double(let d):
                    guard let i = Int(exactly: d.rounded(.towardZero)) else { throw fail(.type, "cannot convert \(d) to integer") }
                    out += String(i)
                }
            case "f", "x":
                guard let n = number(v) else { throw fail(.type, "format requires a number, not \(v.typeName)") }
                if conv == "x", case .int(let i) = n { out += String(i, radix: 16); continue }
                let precision = spec.split(separator: ".").last.flatMap { spec.contains(".") ? Int($0) : nil } ?? 6
                out += String(format: "%.\(precision)f", n.double)
            default:
                throw fail(.type, "unsupported format character '\(conv)'")
            }
        }
        if !values.isEmpty, case .tuple = args { throw fail(.type, "not all arguments converted during string formatting") }
        return out
    }
}

extension JinjaValue {
    var isMarkup: Bool {
        if case .markup = self { return true }
        return false
    }
}
