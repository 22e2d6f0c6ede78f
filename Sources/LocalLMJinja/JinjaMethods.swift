/// Python methods templates call on values: `str.strip`, `str.split`, `dict.get`, `dict.items`, …
/// Mutating methods are refused as jinja2's `ImmutableSandboxedEnvironment` (Hugging Face's)
/// refuses them.
enum JinjaMethods {
    static let mutatingListMethods: Set<String> = ["append", "extend", "insert", "pop", "remove", "reverse", "sort", "clear"]
    static let mutatingDictMethods: Set<String> = ["clear", "pop", "popitem", "setdefault", "update"]

    static func method(of value: JinjaValue, _ name: String) -> JinjaCallable? {
        switch value {
        case .string(let s), .markup(let s):
            return stringMethod(s, name)
        case .tuple(let a):
            return listMethod(a, name)
        case .array(let a):
            if mutatingListMethods.contains(name) { return refused("list", name) }
            return listMethod(a, name)
        case .object(let o):
            if mutatingDictMethods.contains(name) { return refused("dict", name) }
            return dictMethod(o, name)
        default:
            return nil
        }
    }

    static func refused(_ type: String, _ name: String) -> JinjaCallable {
        JinjaCallable(name: name) { call throws(JinjaError) in
            throw call.error(.security, "access to attribute '\(name)' of '\(type)' object is unsafe.")
        }
    }

    static func make(_ name: String, _ body: @escaping @Sendable (JinjaCall) throws(JinjaError) -> JinjaValue) -> JinjaCallable {
        JinjaCallable(name: name, body: body)
    }

    static func dictMethod(_ o: JinjaObject, _ name: String) -> JinjaCallable? {
        switch name {
        case "items":
            return make(name) { call throws(JinjaError) in
                _ = try call.bind("items", [])
                return .array(o.entries.map { .tuple([$0.key, $0.value]) })
            }
        case "keys":
            return make(name) { call throws(JinjaError) in
                _ = try call.bind("keys", [])
                return .array(o.keys)
            }
        case "values":
            return make(name) { call throws(JinjaError) in
                _ = try call.bind("values", [])
                return .array(o.entries.map(\.value))
            }
        case "get":
            return make(name) { call throws(JinjaError) in
                let a = try call.bind("get", ["key", "default"])
                guard let key = a[0] else { throw call.error(.type, "get expected at least 1 argument, got 0") }
                if let v = o[key] { return v }
                return a[1] ?? .none
            }
        case "copy":
            return make(name) { _ in .object(o) }
        default:
            return nil
        }
    }

    static func listMethod(_ a: [JinjaValue], _ name: String) -> JinjaCallable? {
        switch name {
        case "index":
            return make(name) { call throws(JinjaError) in
                let args = try call.bind("index", ["value"])
                guard let v = args[0] else { throw call.error(.type, "index expected 1 argument") }
                guard let i = a.firstIndex(where: { call.interpreter.equal($0, v) }) else {
                    throw call.error(.type, "\(v.pythonRepr) is not in list")
                }
                return .int(i)
            }
        case "count":
            return make(name) { call throws(JinjaError) in
                let args = try call.bind("count", ["value"])
                guard let v = args[0] else { throw call.error(.type, "count expected 1 argument") }
                return .int(a.filter { call.interpreter.equal($0, v) }.count)
            }
        case "copy":
            return make(name) { _ in .array(a) }
        default:
            return nil
        }
    }

    static func stringMethod(_ s: String, _ name: String) -> JinjaCallable? {
        switch name {
        case "strip", "lstrip", "rstrip":
            return make(name) { call throws(JinjaError) in
                let chars = try call.string(try call.bind(name, ["chars"])[0], "strip arg")
                return .string(JinjaStrings.strip(s, chars: chars, left: name != "rstrip", right: name != "lstrip"))
            }
        case "split", "rsplit":
            return make(name) { call throws(JinjaError) in
                let a = try call.bind(name, ["sep", "maxsplit"])
                let sep = try call.string(a[0], "sep")
                if sep == "" { throw call.error(.type, "empty separator") }
                let maxsplit = try call.int(a[1], "maxsplit") ?? -1
                let parts = name == "split"
                    ? JinjaStrings.split(s, sep: sep, maxsplit: maxsplit)
                    : JinjaStrings.rsplit(s, sep: sep, maxsplit: maxsplit)
                return .array(parts.map { .string($0) })
            }
        case "splitlines":
            return make(name) { _ in .array(JinjaStrings.splitlines(s).map { .string($0) }) }
        case "startswith", "endswith":
            return make(name) { call throws(JinjaError) in
                let a = try call.bind(name, ["prefix", "start", "end"])
                guard let p = a[0] else { throw call.error(.type, "\(name) takes at least 1 argument") }
                var candidates: [String] = []
                switch p {
                case .array(let items), .tuple(let items):
                    for item in items {
                        guard let t = item.stringValue else { throw call.error(.type, "tuple for \(name) must only contain str") }
                        candidates.append(t)
                    }
                default:
                    guard let t = p.stringValue else {
                        throw call.error(.type, "\(name) first arg must be str or a tuple of str, not \(p.typeName)")
                    }
                    candidates = [t]
                }
                let scalars = Array(s.unicodeScalars)
                let n = scalars.count
                func norm(_ i: Int?, _ d: Int) -> Int {
                    guard var i else { return d }
                    if i < 0 { i += n }
                    return min(max(i, 0), n)
                }
                let lo = norm(try call.int(a[1], "start"), 0), hi = norm(try call.int(a[2], "end"), n)
                guard lo <= hi else { return .bool(false) }
                let window = Array(scalars[lo..<hi])
                return .bool(candidates.contains { c in
                    let t = Array(c.unicodeScalars)
                    return name == "startswith" ? window.starts(with: t) : window.reversed().starts(with: t.reversed())
                })
            }
        case "replace":
            return make(name) { call throws(JinjaError) in
                let a = try call.bind(name, ["old", "new", "count"])
                guard let old = try call.string(a[0], "replace arg 1"), let new = try call.string(a[1], "replace arg 2") else {
                    throw call.error(.type, "replace expected at least 2 arguments")
                }
                try call.checkReplaceSize(s, old, new)
                return .string(JinjaStrings.replace(s, old, new, count: try call.int(a[2], "count") ?? -1))
            }
        case "upper": return make(name) { _ in .string(JinjaStrings.upper(s)) }
        case "lower": return make(name) { _ in .string(JinjaStrings.lower(s)) }
        case "title": return make(name) { _ in .string(JinjaStrings.title(s)) }
        case "capitalize": return make(name) { _ in .string(JinjaStrings.capitalize(s)) }
        case "swapcase":
            return make(name) { _ in
                .string(s.unicodeScalars.map { c in
                    c.properties.isUppercase ? String(c).lowercased() : c.properties.isLowercase ? String(c).uppercased() : String(c)
                }.joined())
            }
        case "find", "rfind", "index", "rindex":
            return make(name) { call throws(JinjaError) in
                let a = try call.bind(name, ["sub", "start", "end"])
                guard let sub = try call.string(a[0], "\(name) arg") else { throw call.error(.type, "\(name) takes at least 1 argument") }
                let scalars = Array(s.unicodeScalars), t = Array(sub.unicodeScalars)
                let n = scalars.count
                func norm(_ i: Int?, _ d: Int) -> Int {
                    guard var i else { return d }
                    if i < 0 { i += n }
                    return min(max(i, 0), n)
                }
                let lo = norm(try call.int(a[1], "start"), 0), hi = norm(try call.int(a[2], "end"), n)
                var found: Int?
                if lo <= hi, t.count <= hi - lo {
                    let positions = Array(lo...(hi - t.count))
                    let order = name.hasPrefix("r") ? positions.reversed() : positions
                    found = order.first { scalars[$0..<$0 + t.count].elementsEqual(t) }
                }
                if let found { return .int(found) }
                if name.hasSuffix("index") { throw call.error(.type, "substring not found") }
                return .int(-1)
            }
        case "count":
            return make(name) { call throws(JinjaError) in
                guard let sub = try call.string(try call.bind(name, ["sub"])[0], "count arg") else {
                    throw call.error(.type, "count takes at least 1 argument")
                }
                return .int(JinjaStrings.count(s, sub))
            }
        case "join":
            return make(name) { call throws(JinjaError) in
                guard let items = try call.bind(name, ["iterable"])[0] else { throw call.error(.type, "join takes 1 argument") }
                var parts: [String] = []
                var size = 0
                for item in try call.interpreter.iterate(items) {
                    size += (item.stringValue?.utf8.count ?? 0) + s.utf8.count
                    if size > call.interpreter.options.maxOutputBytes { throw call.error(.limit, "join output too large") }
                    guard let t = item.stringValue else {
                        throw call.error(.type, "sequence item \(parts.count): expected str instance, \(item.typeName) found")
                    }
                    parts.append(t)
                }
                return .string(parts.joined(separator: s))
            }
        case "format":
            return make(name) { call throws(JinjaError) in .string(try format(s, call)) }
        case "isdigit", "isnumeric", "isdecimal":
            return make(name) { _ in
                .bool(!s.isEmpty && s.unicodeScalars.allSatisfy { $0.properties.numericType != nil })
            }
        case "isalpha":
            return make(name) { _ in .bool(!s.isEmpty && s.unicodeScalars.allSatisfy { $0.properties.isAlphabetic }) }
        case "isalnum":
            return make(name) { _ in
                .bool(!s.isEmpty && s.unicodeScalars.allSatisfy { $0.properties.isAlphabetic || $0.properties.numericType != nil })
            }
        case "isspace":
            return make(name) { _ in .bool(!s.isEmpty && s.unicodeScalars.allSatisfy(JinjaStrings.isSpace)) }
        case "isupper", "islower":
            return make(name) { _ in
                let cased = s.unicodeScalars.filter { $0.properties.isCased }
                let ok = cased.allSatisfy { name == "isupper" ? !$0.properties.isLowercase : !$0.properties.isUppercase }
                return .bool(!cased.isEmpty && ok)
            }
        case "removeprefix", "removesuffix":
            return make(name) { call throws(JinjaError) in
                guard let p = try call.string(try call.bind(name, ["affix"])[0], "\(name) arg") else {
                    throw call.error(.type, "\(name) takes 1 argument")
                }
                let a = Array(s.unicodeScalars), t = Array(p.unicodeScalars)
                if name == "removeprefix", a.starts(with: t) { return .string(JinjaStrings.string(a.dropFirst(t.count))) }
                if name == "removesuffix", !t.isEmpty, a.reversed().starts(with: t.reversed()) {
                    return .string(JinjaStrings.string(a.dropLast(t.count)))
                }
                return .string(s)
            }
        default:
            return nil
        }
    }

    /// `str.format(*args, **kwargs)` for `{}`, `{0}`, `{name}`, `{x.attr}`-free fields, `!r`/`!s`,
    /// and `{{`/`}}` escapes. Format specs are not supported (a TypeError, not silent output).
    static func format(_ s: String, _ call: JinjaCall) throws(JinjaError) -> String {
        var out = ""
        var auto = 0
        var it = Array(s.unicodeScalars)[...]
        while let c = it.popFirst() {
            if c == "}" {
                guard it.first == "}" else { throw call.error(.type, "Single '}' encountered in format string") }
                it.removeFirst()
                out += "}"
                continue
            }
            guard c == "{" else { out.unicodeScalars.append(c); continue }
            if it.first == "{" { it.removeFirst(); out += "{"; continue }
            var field = ""
            while let d = it.first, d != "}" { field.unicodeScalars.append(d); it.removeFirst() }
            guard it.popFirst() == "}" else { throw call.error(.type, "expected '}' before end of string") }
            var conversion: Character?
            if let bang = field.firstIndex(of: "!") {
                conversion = field[field.index(after: bang)...].first
                field = String(field[..<bang])
            }
            if field.contains(":") { throw call.error(.type, "format specs in str.format are not supported") }
            let value: JinjaValue
            if field.isEmpty {
                guard auto < call.positional.count else { throw call.error(.type, "Replacement index \(auto) out of range") }
                value = call.positional[auto]
                auto += 1
            } else if let i = Int(field) {
                guard i >= 0, i < call.positional.count else { throw call.error(.type, "Replacement index \(i) out of range") }
                value = call.positional[i]
            } else {
                guard let v = call.keywords.first(where: { $0.0 == field })?.1 else { throw call.error(.type, "KeyError: '\(field)'") }
                value = v
            }
            out += conversion == "r" ? value.pythonRepr : value.pythonStr
        }
        return out
    }
}
