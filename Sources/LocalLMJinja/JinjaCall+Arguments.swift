/// Binding call arguments to Python-style parameters.
extension JinjaCall {
    func error(_ kind: JinjaError.Kind, _ message: String) -> JinjaError {
        JinjaError(kind, message, line: line)
    }

    /// Binds positional then keyword arguments to `names`, as a Python signature would; returns
    /// one slot per name (nil when not passed). Too many or unknown arguments are a TypeError.
    func bind(_ function: String, _ names: [String]) throws(JinjaError) -> [JinjaValue?] {
        guard positional.count <= names.count else {
            throw error(.type, "\(function)() takes at most \(names.count) arguments (\(positional.count) given)")
        }
        var slots = [JinjaValue?](repeating: nil, count: names.count)
        for (i, v) in positional.enumerated() { slots[i] = v }
        for (k, v) in keywords {
            guard let i = names.firstIndex(of: k) else {
                throw error(.type, "\(function)() got an unexpected keyword argument '\(k)'")
            }
            guard slots[i] == nil else { throw error(.type, "\(function)() got multiple values for argument '\(k)'") }
            slots[i] = v
        }
        return slots
    }

    /// Refuses a replace whose result would exceed the output limit.
    func checkReplaceSize(_ s: String, _ old: String, _ new: String) throws(JinjaError) {
        let limit = interpreter.options.maxOutputBytes
        guard new.utf8.count > old.utf8.count else { return }
        let occurrences = old.isEmpty ? s.unicodeScalars.count + 1 : JinjaStrings.count(s, old)
        let growth = new.utf8.count - old.utf8.count
        if occurrences > 0, growth > (limit - min(limit, s.utf8.count)) / occurrences {
            throw error(.limit, "replace output larger than \(limit) bytes")
        }
    }

    func string(_ v: JinjaValue?, _ what: String) throws(JinjaError) -> String? {
        guard let v else { return nil }
        if case .none = v { return nil }
        guard let s = v.stringValue else { throw error(.type, "\(what) must be str, not \(v.typeName)") }
        return s
    }

    func int(_ v: JinjaValue?, _ what: String) throws(JinjaError) -> Int? {
        guard let v else { return nil }
        switch v {
        case .none: return nil
        case .int(let i): return i
        case .bool(let b): return b ? 1 : 0
        default: throw error(.type, "\(what): '\(v.typeName)' object cannot be interpreted as an integer")
        }
    }
}
