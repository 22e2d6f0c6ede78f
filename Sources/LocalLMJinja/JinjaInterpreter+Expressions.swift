/// Expression evaluation: names, literals, attribute/item access, calls, filters, tests, operators.
extension JinjaInterpreter {
    func eval(_ expr: JinjaExpr, _ frame: JinjaFrame) throws(JinjaError) -> JinjaValue {
        switch expr {
        case .literal(let v):
            return v
        case .name(let n, let line):
            self.line = line
            return frame.lookup(n) ?? .missing(n)
        case .list(let items):
            var values: [JinjaValue] = []
            values.reserveCapacity(items.count)
            for e in items { values.append(try eval(e, frame)) }
            return .array(values)
        case .tuple(let items):
            var values: [JinjaValue] = []
            for e in items { values.append(try eval(e, frame)) }
            return .tuple(values)
        case .dict(let pairs):
            var o = JinjaObject()
            for (k, v) in pairs {
                let key = try eval(k, frame)
                guard JinjaObject.isHashable(key) else { throw fail(.type, "unhashable type: '\(key.typeName)'") }
                o[key] = try eval(v, frame)
            }
            return .object(o)
        case .attribute(let e, let name, let line):
            let base = try eval(e, frame)
            self.line = line
            return try attribute(of: base, name)
        case .item(let e, let index, let line):
            let base = try eval(e, frame)
            let key = try eval(index, frame)
            self.line = line
            return try item(of: base, key)
        case .slice(let e, let start, let stop, let stepExpr, let line):
            let base = try eval(e, frame)
            let a = try start.map { (x) throws(JinjaError) in try eval(x, frame) }
            let b = try stop.map { (x) throws(JinjaError) in try eval(x, frame) }
            let c = try stepExpr.map { (x) throws(JinjaError) in try eval(x, frame) }
            self.line = line
            return try slice(base, a, b, c)
        case .call(let callee, let arguments, let line):
            let f = try eval(callee, frame)
            let call = try evalArguments(arguments, frame, line: line)
            self.line = line
            return try invoke(f, call)
        case .filter(let e, let f):
            return try applyFilter(f, to: try eval(e, frame), frame)
        case .test(let e, let name, let arguments, let negated, let line):
            let value = try eval(e, frame)
            let call = try evalArguments(arguments, frame, line: line)
            self.line = line
            let result = try JinjaTests.apply(name, value, call)
            return .bool(negated ? !result : result)
        case .not(let e):
            return .bool(!(try eval(e, frame).isTruthy))
        case .negate(let e, let line):
            let v = try eval(e, frame)
            self.line = line
            switch v {
            case .int(let i):
                guard i != .min else { throw overflow() }
                return .int(-i)
            case .bool(let b): return .int(b ? -1 : 0)
            case .double(let d): return .double(-d)
            case .undefined(let why): throw fail(.undefined, why)
            default: throw fail(.type, "bad operand type for unary -: '\(v.typeName)'")
            }
        case .plus(let e, let line):
            let v = try eval(e, frame)
            self.line = line
            switch v {
            case .int, .double: return v
            case .bool(let b): return .int(b ? 1 : 0)
            case .undefined(let why): throw fail(.undefined, why)
            default: throw fail(.type, "bad operand type for unary +: '\(v.typeName)'")
            }
        case .binary(let op, let l, let r, let line):
            let a = try eval(l, frame)
            let b = try eval(r, frame)
            self.line = line
            return try binary(op, a, b)
        case .and(let l, let r):
            let a = try eval(l, frame)
            return a.isTruthy ? try eval(r, frame) : a
        case .or(let l, let r):
            let a = try eval(l, frame)
            return a.isTruthy ? a : try eval(r, frame)
        case .conditional(let then, let condition, let otherwise):
            if try eval(condition, frame).isTruthy { return try eval(then, frame) }
            guard let otherwise else { return .undefined("the inline if-expression evaluated to false and no else section was defined") }
            return try eval(otherwise, frame)
        }
    }

    func evalArguments(_ arguments: JinjaArguments, _ frame: JinjaFrame, line: Int) throws(JinjaError) -> JinjaCall {
        var positional: [JinjaValue] = []
        for e in arguments.positional { positional.append(try eval(e, frame)) }
        var keywords: [(String, JinjaValue)] = []
        for (k, e) in arguments.keywords { keywords.append((k, try eval(e, frame))) }
        return JinjaCall(positional: positional, keywords: keywords, interpreter: self, line: line)
    }

    func invoke(_ f: JinjaValue, _ call: JinjaCall) throws(JinjaError) -> JinjaValue {
        switch f {
        case .callable(let c):
            return try c.body(call)
        case .undefined(let why):
            throw fail(.undefined, why)
        default:
            throw fail(.type, "'\(f.typeName)' object is not callable")
        }
    }

    func applyFilter(_ f: JinjaFilterCall, to value: JinjaValue, _ frame: JinjaFrame) throws(JinjaError) -> JinjaValue {
        let call = try evalArguments(f.arguments, frame, line: f.line)
        self.line = f.line
        guard let filter = JinjaFilters.table[f.name] else {
            throw fail(.unknownFilterOrTest, "no filter named '\(f.name)'")
        }
        return try filter(value, call)
    }

    /// The sequence a `for` loop, `in` or a filter walks: list items, dict keys, string characters.
    func iterate(_ value: JinjaValue) throws(JinjaError) -> [JinjaValue] {
        switch value {
        case .array(let a), .tuple(let a), .generator(let a): return a
        case .object(let o): return o.keys
        case .string(let s), .markup(let s): return s.unicodeScalars.map { .string(String($0)) }
        case .undefined: return []
        default: throw fail(.type, "'\(value.typeName)' object is not iterable")
        }
    }

    // MARK: access

    /// `x.name`: Python attributes (methods) first, then items, as jinja2's `getattr`.
    func attribute(of value: JinjaValue, _ name: String) throws(JinjaError) -> JinjaValue {
        switch value {
        case .undefined(let why):
            throw fail(.undefined, why)
        case .object(let o):
            if let m = JinjaMethods.method(of: value, name) { return .callable(m) }
            return o[name] ?? .undefined("'dict object' has no attribute '\(name)'")
        case .namespace(let ns):
            return ns.attributes[name] ?? .undefined("'Namespace' object has no attribute '\(name)'")
        case .none:
            return .undefined("'None' has no attribute '\(name)'")
        default:
            if let m = JinjaMethods.method(of: value, name) { return .callable(m) }
            return .undefined("'\(value.typeName) object' has no attribute '\(name)'")
        }
    }

    /// `x[key]`: items first, then attributes, as jinja2's `getitem`.
    func item(of value: JinjaValue, _ key: JinjaValue) throws(JinjaError) -> JinjaValue {
        switch value {
        case .undefined(let why):
            throw fail(.undefined, why)
        case .object(let o):
            if let v = o[key] { return v }
            if let k = key.stringValue {
                if let m = JinjaMethods.method(of: value, k) { return .callable(m) }
                return .undefined("'dict object' has no attribute '\(k)'")
            }
            if case .undefined(let why) = key { throw fail(.undefined, why) }
            return .undefined("'dict object' has no attribute \(key.pythonRepr)")
        case .namespace(let ns):
            return ns.attributes[key.stringValue ?? ""] ?? .undefined("'Namespace' has no attribute \(key.pythonRepr)")
        case .array(let a), .tuple(let a):
            if let i = intIndex(key) {
                let j = i < 0 ? a.count + i : i
                return a.indices.contains(j) ? a[j] : .undefined("list object has no element \(i)")
            }
        case .string(let s), .markup(let s):
            if let i = intIndex(key) {
                let scalars = Array(s.unicodeScalars)
                let j = i < 0 ? scalars.count + i : i
                return scalars.indices.contains(j) ? .string(String(scalars[j])) : .undefined("str object has no element \(i)")
            }
        case .none:
            return .undefined("None has no element \(key.pythonRepr)")
        default:
            break
        }
        if case .undefined(let why) = key { throw fail(.undefined, why) }
        if let k = key.stringValue, let m = JinjaMethods.method(of: value, k) { return .callable(m) }
        return .undefined("'\(value.typeName) object' has no attribute \(key.pythonRepr)")
    }

    func intIndex(_ key: JinjaValue) -> Int? {
        switch key {
        case .int(let i): return i
        case .bool(let b): return b ? 1 : 0
        default: return nil
        }
    }

    /// Python slicing `x[a:b:c]` of lists and strings.
    func slice(_ value: JinjaValue, _ a: JinjaValue?, _ b: JinjaValue?, _ c: JinjaValue?) throws(JinjaError) -> JinjaValue {
        func bound(_ v: JinjaValue?) throws(JinjaError) -> Int? {
            guard let v else { return nil }
            if case .none = v { return nil }
            guard let i = intIndex(v) else {
                if case .undefined(let why) = v { throw fail(.undefined, why) }
                throw fail(.type, "slice indices must be integers or None")
            }
            return i
        }
        let step = try bound(c) ?? 1
        guard step != 0 else { throw fail(.type, "slice step cannot be zero") }
        func pick<T>(_ items: [T]) throws(JinjaError) -> [T] {
            let n = items.count
            func clamp(_ i: Int?, _ dflt: Int, low: Int, high: Int) -> Int {
                guard var i else { return dflt }
                if i < 0 { i += n }
                return min(max(i, low), high)
            }
            var out: [T] = []
            if step > 0 {
                var i = clamp(try bound(a), 0, low: 0, high: n)
                let end = clamp(try bound(b), n, low: 0, high: n)
                while i < end {
                    out.append(items[i])
                    let (next, o) = i.addingReportingOverflow(step)
                    if o { break }
                    i = next
                }
            } else {
                var i = clamp(try bound(a), n - 1, low: -1, high: n - 1)
                let end = clamp(try bound(b), -1, low: -1, high: n - 1)
                while i > end {
                    out.append(items[i])
                    let (next, o) = i.addingReportingOverflow(step)
                    if o { break }
                    i = next
                }
            }
            return out
        }
        switch value {
        case .array(let items):
            return .array(try pick(items))
        case .tuple(let items):
            return .tuple(try pick(items))
        case .string(let s), .markup(let s):
            var v = String.UnicodeScalarView()
            v.append(contentsOf: try pick(Array(s.unicodeScalars)))
            return .string(String(v))
        case .undefined(let why):
            throw fail(.undefined, why)
        default:
            throw fail(.type, "'\(value.typeName)' object is not subscriptable")
        }
    }
}
