import Foundation

typealias JinjaFilter = @Sendable (JinjaValue, JinjaCall) throws(JinjaError) -> JinjaValue

/// jinja2's built-in filters, plus Hugging Face's `tojson`. Filters that return generators in
/// jinja2 (`map`, `select`, `items`, `unique`, `reverse` of a list, …) return `.generator` so
/// `length`/`tojson` fail on them as in Python.
enum JinjaFilters {
    static let table: [String: JinjaFilter] = [
        "tojson": tojson,
        "length": length,
        "count": length,
        "string": stringFilter,
        "trim": trimFilter,
        "upper": upperFilter,
        "lower": lowerFilter,
        "capitalize": capitalizeFilter,
        "title": titleFilter,
        "default": defaultValue,
        "d": defaultValue,
        "join": join,
        "items": itemsFilter,
        "first": firstFilter,
        "last": lastFilter,
        "list": listFilter,
        "map": map,
        "select": selectFilter,
        "reject": rejectFilter,
        "selectattr": selectattrFilter,
        "rejectattr": rejectattrFilter,
        "replace": replaceFilter,
        "int": toInt,
        "float": toFloat,
        "abs": absFilter,
        "round": round,
        "unique": unique,
        "sort": sort,
        "dictsort": dictsort,
        "reverse": reverseFilter,
        "min": minFilter,
        "max": maxFilter,
        "sum": sum,
        "wordcount": wordcountFilter,
        "indent": indent,
        "safe": safeFilter,
        "escape": escape,
        "e": escape,
        "forceescape": forceescapeFilter,
        "attr": attrFilter,
        "center": centerFilter,
        "format": formatFilter,
        "pprint": pprintFilter,
        "batch": batchFilter,
    ]

    static func stringFilter(_ v: JinjaValue, _ _: JinjaCall) throws(JinjaError) -> JinjaValue {
        return v.isMarkup ? v : .string(v.pythonStr)
    }

    static func trimFilter(_ v: JinjaValue, _ call: JinjaCall) throws(JinjaError) -> JinjaValue {
        let chars = try call.string(try call.bind("trim", ["chars"])[0], "chars")
        return .string(JinjaStrings.strip(v.pythonStr, chars: chars))
    }

    static func upperFilter(_ v: JinjaValue, _ _: JinjaCall) throws(JinjaError) -> JinjaValue {
        return .string(JinjaStrings.upper(v.pythonStr))
    }

    static func lowerFilter(_ v: JinjaValue, _ _: JinjaCall) throws(JinjaError) -> JinjaValue {
        return .string(JinjaStrings.lower(v.pythonStr))
    }

    static func capitalizeFilter(_ v: JinjaValue, _ _: JinjaCall) throws(JinjaError) -> JinjaValue {
        return .string(JinjaStrings.capitalize(v.pythonStr))
    }

    static func titleFilter(_ v: JinjaValue, _ _: JinjaCall) throws(JinjaError) -> JinjaValue {
        return .string(title(v.pythonStr))
    }

    static func itemsFilter(_ v: JinjaValue, _ call: JinjaCall) throws(JinjaError) -> JinjaValue {
        switch v {
        case .undefined: return .generator([])
        case .object(let o): return .generator(o.entries.map { .tuple([$0.key, $0.value]) })
        default: throw call.error(.type, "Can only get item pairs from a mapping.")
        }
    }

    static func firstFilter(_ v: JinjaValue, _ call: JinjaCall) throws(JinjaError) -> JinjaValue {
        try call.interpreter.iterate(v).first ?? .undefined("No first item, sequence was empty.")
    }

    static func lastFilter(_ v: JinjaValue, _ call: JinjaCall) throws(JinjaError) -> JinjaValue {
        if case .generator = v { throw call.error(.type, "'generator' object is not reversible") }
        return try call.interpreter.iterate(v).last ?? .undefined("No last item, sequence was empty.")
    }

    static func listFilter(_ v: JinjaValue, _ call: JinjaCall) throws(JinjaError) -> JinjaValue {
        return .array(try call.interpreter.iterate(v))
    }

    static func selectFilter(_ v: JinjaValue, _ call: JinjaCall) throws(JinjaError) -> JinjaValue {
        return try select(v, call, byAttribute: false, keep: true)
    }

    static func rejectFilter(_ v: JinjaValue, _ call: JinjaCall) throws(JinjaError) -> JinjaValue {
        return try select(v, call, byAttribute: false, keep: false)
    }

    static func selectattrFilter(_ v: JinjaValue, _ call: JinjaCall) throws(JinjaError) -> JinjaValue {
        return try select(v, call, byAttribute: true, keep: true)
    }

    static func rejectattrFilter(_ v: JinjaValue, _ call: JinjaCall) throws(JinjaError) -> JinjaValue {
        return try select(v, call, byAttribute: true, keep: false)
    }

    static func replaceFilter(_ v: JinjaValue, _ call: JinjaCall) throws(JinjaError) -> JinjaValue {
        let a = try call.bind("replace", ["old", "new", "count"])
        guard let old = a[0], let new = a[1] else { throw call.error(.type, "replace needs old and new") }
        let (s, o, n) = (v.pythonStr, old.pythonStr, new.pythonStr)
        try call.checkReplaceSize(s, o, n)
        return .string(JinjaStrings.replace(s, o, n, count: try call.int(a[2], "count") ?? -1))
    }

    static func absFilter(_ v: JinjaValue, _ call: JinjaCall) throws(JinjaError) -> JinjaValue {
        switch v {
        case .int(let i):
            guard i != .min else { throw call.error(.type, "integer result too large") }
            return .int(abs(i))
        case .bool(let b): return .int(b ? 1 : 0)
        case .double(let d): return .double(abs(d))
        default: throw call.error(.type, "bad operand type for abs(): '\(v.typeName)'")
        }
    }

    static func reverseFilter(_ v: JinjaValue, _ call: JinjaCall) throws(JinjaError) -> JinjaValue {
        switch v {
        case .string(let s), .markup(let s): return .string(JinjaStrings.string(s.unicodeScalars.reversed()))
        case .array(let a), .tuple(let a): return .generator(a.reversed())
        default: return .generator(try call.interpreter.iterate(v).reversed())
        }
    }

    static func minFilter(_ v: JinjaValue, _ call: JinjaCall) throws(JinjaError) -> JinjaValue {
        return try extreme(v, call, wantMax: false)
    }

    static func maxFilter(_ v: JinjaValue, _ call: JinjaCall) throws(JinjaError) -> JinjaValue {
        return try extreme(v, call, wantMax: true)
    }

    static func wordcountFilter(_ v: JinjaValue, _ _: JinjaCall) throws(JinjaError) -> JinjaValue {
        // re.findall(r"\w+", s): runs of letters, digits and underscore.
        var n = 0, inWord = false
        for c in v.pythonStr.unicodeScalars {
            let w = c == "_" || c.properties.isAlphabetic || c.properties.numericType != nil
            if w, !inWord { n += 1 }
            inWord = w
        }
        return .int(n)
    }

    static func safeFilter(_ v: JinjaValue, _ _: JinjaCall) throws(JinjaError) -> JinjaValue {
        return .markup(v.pythonStr)
    }

    static func forceescapeFilter(_ v: JinjaValue, _ _: JinjaCall) throws(JinjaError) -> JinjaValue {
        return .markup(JinjaInterpreter.htmlEscape(v.pythonStr))
    }

    static func attrFilter(_ v: JinjaValue, _ call: JinjaCall) throws(JinjaError) -> JinjaValue {
        guard let name = try call.string(try call.bind("attr", ["name"])[0], "attr name") else {
            throw call.error(.type, "attr needs a name")
        }
        // Python getattr: methods and namespace attributes, never dict items.
        if case .namespace(let ns) = v { return ns.attributes[name] ?? .undefined("no attribute '\(name)'") }
        if case .undefined(let why) = v { throw call.error(.undefined, why) }
        return JinjaMethods.method(of: v, name).map { .callable($0) } ?? .undefined("no attribute '\(name)'")
    }

    static func centerFilter(_ v: JinjaValue, _ call: JinjaCall) throws(JinjaError) -> JinjaValue {
        let width = try call.int(try call.bind("center", ["width"])[0], "width") ?? 80
        let s = Array(v.pythonStr.unicodeScalars)
        guard width > s.count, width <= call.interpreter.options.maxOutputBytes else { return .string(v.pythonStr) }
        let total = width - s.count
        let left = total / 2 + (total & width & 1)
        return .string(String(repeating: " ", count: left) + v.pythonStr + String(repeating: " ", count: total - left))
    }

    static func formatFilter(_ v: JinjaValue, _ call: JinjaCall) throws(JinjaError) -> JinjaValue {
        let args: JinjaValue = .tuple(call.positional)
        return .string(try call.interpreter.percentFormat(v.pythonStr, args))
    }

    static func pprintFilter(_ v: JinjaValue, _ _: JinjaCall) throws(JinjaError) -> JinjaValue {
        return .string(v.sortedForPrettyPrint.pythonRepr)
    }

    static func batchFilter(_ v: JinjaValue, _ call: JinjaCall) throws(JinjaError) -> JinjaValue {
        let a = try call.bind("batch", ["linecount", "fill_with"])
        guard let n = try call.int(a[0], "linecount"), n > 0 else { throw call.error(.type, "batch needs a positive size") }
        let items = try call.interpreter.iterate(v)
        var rows: [JinjaValue] = []
        guard n <= call.interpreter.options.maxSteps else { throw call.error(.limit, "batch size \(n) exceeds the step limit") }
        var i = 0
        while i < items.count {
            let end = min(i + n, items.count)
            var row = Array(items[i..<end])
            if let fill = a[1] { while row.count < n { row.append(fill) } }
            rows.append(.array(row))
            i = end
        }
        return .generator(rows)
    }

    /// Hugging Face's override: `json.dumps(x, ensure_ascii=False, indent=None, separators=None, sort_keys=False)`.
    static func tojson(_ v: JinjaValue, _ call: JinjaCall) throws(JinjaError) -> JinjaValue {
        let a = try call.bind("tojson", ["ensure_ascii", "indent", "separators", "sort_keys"])
        var indent: String?
        switch a[1] {
        case nil, .none?: indent = nil
        case .int(let n)?: indent = String(repeating: " ", count: max(0, min(n, 64)))
        case .string(let s)?: indent = s
        case let other?: throw call.error(.type, "tojson indent must be an int or str, not \(other.typeName)")
        }
        var separators: (String, String)?
        if let s = a[2], !(s.isNone) {
            guard let pair = s.sequenceItems, pair.count == 2, let i = pair[0].stringValue, let k = pair[1].stringValue else {
                throw call.error(.type, "tojson separators must be a pair of strings")
            }
            separators = (i, k)
        }
        var budget = call.interpreter.options.maxOutputBytes / 3
        guard v.fitsRepr(&budget) else { throw call.error(.limit, "tojson output too large") }
        do throws(JinjaError) {
            return .string(try v.json(ensureASCII: a[0]?.isTruthy ?? false, indent: indent, separators: separators,
                                      sortKeys: a[3]?.isTruthy ?? false))
        } catch {
            throw JinjaError(error.kind, error.message, line: call.line)
        }
    }

    static func length(_ v: JinjaValue, _ call: JinjaCall) throws(JinjaError) -> JinjaValue {
        switch v {
        case .string(let s), .markup(let s): return .int(s.unicodeScalars.count)
        case .array(let a), .tuple(let a): return .int(a.count)
        case .object(let o): return .int(o.count)
        case .undefined: return .int(0)
        default: throw call.error(.type, "object of type '\(v.typeName)' has no len()")
        }
    }

    static func defaultValue(_ v: JinjaValue, _ call: JinjaCall) throws(JinjaError) -> JinjaValue {
        let a = try call.bind("default", ["default_value", "boolean"])
        let fallback = a[0] ?? .string("")
        if v.isUndefined || ((a[1]?.isTruthy ?? false) && !v.isTruthy) { return fallback }
        return v
    }

    static func join(_ v: JinjaValue, _ call: JinjaCall) throws(JinjaError) -> JinjaValue {
        let a = try call.bind("join", ["d", "attribute"])
        var items = try call.interpreter.iterate(v)
        if let attribute = a[1] { items = try items.map { (x) throws(JinjaError) in try lookup(x, attribute, call) } }
        let sep = a[0]?.pythonStr ?? ""
        var parts: [String] = []
        var size = 0
        for x in items {
            let s = try call.interpreter.str(x)
            size += s.utf8.count + sep.utf8.count
            if size > call.interpreter.options.maxOutputBytes { throw call.error(.limit, "join output too large") }
            parts.append(s)
        }
        return .string(parts.joined(separator: sep))
    }

    /// jinja2's `title` filter: words start after `-`, whitespace, `(`, `{`, `[` or `<`.
    static func title(_ s: String) -> String {
        var out = ""
        var startOfWord = true
        for c in s.unicodeScalars {
            let separator = c == "-" || c == "(" || c == "{" || c == "[" || c == "<" || JinjaStrings.isSpace(c)
            if separator {
                out.unicodeScalars.append(c)
                startOfWord = true
            } else if startOfWord {
                out += String(c).uppercased()
                startOfWord = false
            } else {
                out += String(c).lowercased()
            }
        }
        return out
    }

    /// jinja2's attribute path lookup for `map(attribute=…)`, `selectattr`, `sort(attribute=…)`:
    /// dotted names, integer parts index lists; item lookup first.
    static func lookup(_ v: JinjaValue, _ attribute: JinjaValue, _ call: JinjaCall) throws(JinjaError) -> JinjaValue {
        if case .int = attribute { return try call.interpreter.item(of: v, attribute) }
        var current = v
        for part in attribute.pythonStr.split(separator: ".", omittingEmptySubsequences: false) {
            let key: JinjaValue = Int(part).map { .int($0) } ?? .string(String(part))
            current = try call.interpreter.item(of: current, key)
        }
        return current
    }

    static func map(_ v: JinjaValue, _ call: JinjaCall) throws(JinjaError) -> JinjaValue {
        // jinja2 maps nothing over a falsy value (`if value:`), so `none | map(...)` is empty.
        let items = v.isTruthy ? try call.interpreter.iterate(v) : []
        if call.positional.isEmpty, let attribute = call.keywords.first(where: { $0.0 == "attribute" })?.1 {
            let fallback = call.keywords.first(where: { $0.0 == "default" })?.1
            return .generator(try items.map { (x) throws(JinjaError) in
                let r = try lookup(x, attribute, call)
                if r.isUndefined, let fallback { return fallback }
                return r
            })
        }
        guard let name = call.positional.first?.stringValue, let filter = table[name] else {
            throw call.error(.unknownFilterOrTest, "map needs attribute= or a known filter name")
        }
        var inner = call
        inner.positional.removeFirst()
        return .generator(try items.map { (x) throws(JinjaError) in try filter(x, inner) })
    }

    static func select(_ v: JinjaValue, _ call: JinjaCall, byAttribute: Bool, keep: Bool) throws(JinjaError) -> JinjaValue {
        // As `map`: jinja2 selects nothing from a falsy value.
        let items = v.isTruthy ? try call.interpreter.iterate(v) : []
        var args = call
        var attribute: JinjaValue?
        if byAttribute {
            guard !args.positional.isEmpty else { throw call.error(.type, "selectattr needs an attribute") }
            attribute = args.positional.removeFirst()
        }
        let test = args.positional.isEmpty ? nil : args.positional.removeFirst().stringValue
        var out: [JinjaValue] = []
        for x in items {
            let subject = try attribute.map { (a) throws(JinjaError) in try lookup(x, a, call) } ?? x
            let passed = try test.map { (t) throws(JinjaError) in try JinjaTests.apply(t, subject, args) } ?? subject.isTruthy
            if passed == keep { out.append(x) }
        }
        return .generator(out)
    }

    static func toInt(_ v: JinjaValue, _ call: JinjaCall) throws(JinjaError) -> JinjaValue {
        let a = try call.bind("int", ["default", "base"])
        let fallback = a[0] ?? .int(0)
        let base = try call.int(a[1], "base") ?? 10
        switch v {
        case .int: return v
        case .bool(let b): return .int(b ? 1 : 0)
        case .double(let d):
            guard d.isFinite, let i = Int(exactly: d.rounded(.towardZero)) else { return fallback }
            return .int(i)
        case .string(let s), .markup(let s):
            var t = JinjaStrings.strip(s, chars: nil).replacingOccurrences(of: "_", with: "")
            var sign = ""
            if t.hasPrefix("-") || t.hasPrefix("+") { sign = String(t.removeFirst()) }
            // Python's int(s, base) accepts the 0x/0o/0b prefix matching the base (base 0: any).
            var radix = base
            for (prefix, r) in [("0x", 16), ("0o", 8), ("0b", 2)] where t.lowercased().hasPrefix(prefix) && (base == r || base == 0) {
                t.removeFirst(2)
                radix = r
            }
            if radix == 0 { radix = 10 }
            if (2...36).contains(radix), let i = Int(sign + t, radix: radix) { return .int(i) }
            if base == 10, let d = Double(t), d.isFinite, let i = Int(exactly: d.rounded(.towardZero)) { return .int(i) }
            return fallback
        default:
            return fallback
        }
    }

    static func toFloat(_ v: JinjaValue, _ call: JinjaCall) throws(JinjaError) -> JinjaValue {
        let fallback = try call.bind("float", ["default"])[0] ?? .double(0)
        switch v {
        case .int(let i): return .double(Double(i))
        case .bool(let b): return .double(b ? 1 : 0)
        case .double: return v
        case .string(let s), .markup(let s):
            let t = JinjaStrings.strip(s, chars: nil).lowercased()
            switch t {
            case "inf", "+inf", "infinity", "+infinity": return .double(.infinity)
            case "-inf", "-infinity": return .double(-.infinity)
            case "nan", "+nan", "-nan": return .double(.nan)
            default: return Double(t.replacingOccurrences(of: "_", with: "")).map { .double($0) } ?? fallback
            }
        default:
            return fallback
        }
    }

    static func round(_ v: JinjaValue, _ call: JinjaCall) throws(JinjaError) -> JinjaValue {
        let a = try call.bind("round", ["precision", "method"])
        let precision = try call.int(a[0], "precision") ?? 0
        let method = a[1]?.stringValue ?? "common"
        guard let n = call.interpreter.number(v) else { throw call.error(.type, "round needs a number, not \(v.typeName)") }
        let d = n.double
        let scale = pow(10.0, Double(precision))
        switch method {
        // Python's round() rounds half to even.
        case "common": return .double((d * scale).rounded(.toNearestOrEven) / scale)
        case "ceil": return .double((d * scale).rounded(.up) / scale)
        case "floor": return .double((d * scale).rounded(.down) / scale)
        default: throw call.error(.type, "method must be common, ceil or floor")
        }
    }

    /// Comparison key for sort/unique/min/max: strings lower-cased unless case-sensitive.
    static func key(_ x: JinjaValue, _ attribute: JinjaValue?, caseSensitive: Bool, _ call: JinjaCall) throws(JinjaError) -> JinjaValue {
        let v = try attribute.map { (a) throws(JinjaError) in try lookup(x, a, call) } ?? x
        if !caseSensitive, let s = v.stringValue { return .string(s.lowercased()) }
        return v
    }

    /// A stable merge sort whose comparison may throw (Python raises on mixed types).
    static func stableSort(_ items: [JinjaValue], _ keys: [JinjaValue], reverse: Bool, _ call: JinjaCall) throws(JinjaError) -> [JinjaValue] {
        var order = Array(items.indices)
        var buffer = order
        var width = 1
        while width < order.count {
            var start = 0
            while start < order.count {
                let mid = min(start + width, order.count), end = min(start + 2 * width, order.count)
                var i = start, j = mid, k = start
                while i < mid, j < end {
                    var c = try call.interpreter.compare(keys[order[j]], keys[order[i]], "<")
                    if reverse { c = -c }
                    if c < 0 { buffer[k] = order[j]; j += 1 } else { buffer[k] = order[i]; i += 1 }
                    k += 1
                }
                while i < mid { buffer[k] = order[i]; i += 1; k += 1 }
                while j < end { buffer[k] = order[j]; j += 1; k += 1 }
                start = end
            }
            swap(&order, &buffer)
            width *= 2
        }
        return order.map { items[$0] }
    }

    static func sort(_ v: JinjaValue, _ call: JinjaCall) throws(JinjaError) -> JinjaValue {
        let a = try call.bind("sort", ["reverse", "case_sensitive", "attribute"])
        let items = try call.interpreter.iterate(v)
        let caseSensitive = a[1]?.isTruthy ?? false
        let keys = try items.map { (x) throws(JinjaError) in try key(x, a[2], caseSensitive: caseSensitive, call) }
        return .array(try stableSort(items, keys, reverse: a[0]?.isTruthy ?? false, call))
    }

    static func dictsort(_ v: JinjaValue, _ call: JinjaCall) throws(JinjaError) -> JinjaValue {
        let a = try call.bind("dictsort", ["case_sensitive", "by", "reverse"])
        guard case .object(let o) = v else { throw call.error(.type, "dictsort needs a mapping") }
        let byValue = a[1]?.stringValue == "value"
        if let by = a[1]?.stringValue, by != "key", by != "value" { throw call.error(.type, "You can only sort by either 'key' or 'value'") }
        let pairs = o.entries.map { JinjaValue.tuple([$0.key, $0.value]) }
        let caseSensitive = a[0]?.isTruthy ?? false
        let keys = try o.entries.map { (p) throws(JinjaError) in
            try key(byValue ? p.value : p.key, nil, caseSensitive: caseSensitive, call)
        }
        return .array(try stableSort(pairs, keys, reverse: a[2]?.isTruthy ?? false, call))
    }

    static func unique(_ v: JinjaValue, _ call: JinjaCall) throws(JinjaError) -> JinjaValue {
        let a = try call.bind("unique", ["case_sensitive", "attribute"])
        var seen: [JinjaValue] = []
        var out: [JinjaValue] = []
        for x in try call.interpreter.iterate(v) {
            let k = try key(x, a[1], caseSensitive: a[0]?.isTruthy ?? false, call)
            if !seen.contains(where: { call.interpreter.equal($0, k) }) {
                seen.append(k)
                out.append(x)
            }
        }
        return .generator(out)
    }

    static func extreme(_ v: JinjaValue, _ call: JinjaCall, wantMax: Bool) throws(JinjaError) -> JinjaValue {
        let a = try call.bind(wantMax ? "max" : "min", ["case_sensitive", "attribute"])
        var best: (JinjaValue, JinjaValue)?
        for x in try call.interpreter.iterate(v) {
            let k = try key(x, a[1], caseSensitive: a[0]?.isTruthy ?? false, call)
            if let (_, bk) = best {
                let c = try call.interpreter.compare(k, bk, "<")
                if wantMax ? c > 0 : c < 0 { best = (x, k) }
            } else {
                best = (x, k)
            }
        }
        return best?.0 ?? .undefined("No aggregated item, sequence was empty.")
    }

    static func sum(_ v: JinjaValue, _ call: JinjaCall) throws(JinjaError) -> JinjaValue {
        let a = try call.bind("sum", ["attribute", "start"])
        var total = a[1] ?? .int(0)
        for x in try call.interpreter.iterate(v) {
            let item = try a[0].map { (attr) throws(JinjaError) in try lookup(x, attr, call) } ?? x
            total = try call.interpreter.binary("+", total, item)
        }
        return total
    }

    static func indent(_ v: JinjaValue, _ call: JinjaCall) throws(JinjaError) -> JinjaValue {
        let a = try call.bind("indent", ["width", "first", "blank"])
        let pad: String
        switch a[0] {
        case nil: pad = "    "
        case .string(let s)?: pad = s
        case let w?:
            guard let n = try call.int(w, "width"), n <= 1024 else { throw call.error(.type, "indent width too large") }
            pad = String(repeating: " ", count: max(0, n))
        }
        let lines = JinjaStrings.splitlines(v.pythonStr + "\n")
        var rv: String
        if a[2]?.isTruthy ?? false {
            rv = lines.joined(separator: "\n" + pad)
        } else {
            rv = lines.first ?? ""
            let rest = lines.dropFirst()
            if !rest.isEmpty { rv += "\n" + rest.map { $0.isEmpty ? $0 : pad + $0 }.joined(separator: "\n") }
        }
        if a[1]?.isTruthy ?? false { rv = pad + rv }
        try call.interpreter.checkSize(rv)
        return v.isMarkup ? .markup(rv) : .string(rv)
    }

    static func escape(_ v: JinjaValue, _ _: JinjaCall) throws(JinjaError) -> JinjaValue {
        if v.isMarkup { return v }
        return .markup(JinjaInterpreter.htmlEscape(v.pythonStr))
    }
}

extension JinjaValue {
    /// `pprint` sorts dict keys.
    var sortedForPrettyPrint: JinjaValue {
        switch self {
        case .array(let a): return .array(a.map(\.sortedForPrettyPrint))
        case .tuple(let a): return .tuple(a.map(\.sortedForPrettyPrint))
        case .object(let o):
            var sorted = JinjaObject()
            for (k, v) in o.entries.sorted(by: { $0.key.pythonStr.unicodeScalars.lexicographicallyPrecedes($1.key.pythonStr.unicodeScalars) }) {
                sorted[k] = v.sortedForPrettyPrint
            }
            return .object(sorted)
        default: return self
        }
    }

    var isNone: Bool {
        if case .none = self { return true }
        return false
    }
}
