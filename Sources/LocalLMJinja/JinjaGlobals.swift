import Foundation

/// Global functions every template sees: jinja2's `range`, `namespace`, `dict`, `cycler`,
/// `joiner`, and Hugging Face's `raise_exception` and `strftime_now`.
enum JinjaGlobals {
    static func make(options: JinjaRenderOptions) -> [String: JinjaValue] {
        var g: [String: JinjaValue] = [:]
        g["range"] = .callable(JinjaCallable(name: "range") { call throws(JinjaError) in
            var bounds: [Int] = []
            for v in call.positional {
                guard let i = try call.int(v, "range") else { throw call.error(.type, "range() arguments must be integers") }
                bounds.append(i)
            }
            guard !bounds.isEmpty, bounds.count <= 3, call.keywords.isEmpty else { throw call.error(.type, "range expected 1 to 3 integer arguments") }
            let start = bounds.count == 1 ? 0 : bounds[0]
            let stop = bounds.count == 1 ? bounds[0] : bounds[1]
            let step = bounds.count == 3 ? bounds[2] : 1
            guard step != 0 else { throw call.error(.type, "range() arg 3 must not be zero") }
            // Int128 so extreme bounds cannot overflow while counting.
            let (a, b, s) = (Int128(start), Int128(stop), Int128(step))
            let wide = s > 0 ? max(0, (b - a + s - 1) / s) : max(0, (a - b - s - 1) / -s)
            guard wide <= Int128(call.interpreter.options.maxSteps) else {
                throw call.error(.limit, "range of \(wide) items exceeds the step limit")
            }
            let count = Int(wide)
            return .array((0..<count).map { .int(start + $0 * step) })
        })
        g["namespace"] = .callable(JinjaCallable(name: "namespace") { call throws(JinjaError) in
            var o = JinjaObject()
            for v in call.positional {
                guard case .object(let d) = v else { throw call.error(.type, "namespace() takes mappings or keyword arguments") }
                for (k, x) in d.entries { o[k] = x }
            }
            for (k, v) in call.keywords { o[k] = v }
            return .namespace(JinjaNamespace(o))
        })
        g["dict"] = .callable(JinjaCallable(name: "dict") { call throws(JinjaError) in
            var o = JinjaObject()
            for v in call.positional {
                guard case .object(let d) = v else { throw call.error(.type, "dict() takes a mapping or keyword arguments") }
                for (k, x) in d.entries { o[k] = x }
            }
            for (k, v) in call.keywords { o[k] = v }
            return .object(o)
        })
        g["raise_exception"] = .callable(JinjaCallable(name: "raise_exception") { call throws(JinjaError) in
            // Hugging Face's `raise_exception(message)`: without its argument Python raises a TypeError.
            guard let value = call.positional.first ?? call.keywords.first?.1 else {
                throw call.error(.type, "raise_exception() missing 1 required positional argument: 'message'")
            }
            let message = value.pythonStr
            throw call.error(.raised, message.isEmpty ? "raise_exception called with an empty message" : message)
        })
        let now = options.now, zone = options.timeZone
        g["strftime_now"] = .callable(JinjaCallable(name: "strftime_now") { call throws(JinjaError) in
            guard let format = try call.string(try call.bind("strftime_now", ["format"])[0], "format") else {
                throw call.error(.type, "strftime_now needs a format string")
            }
            return .string(try JinjaStrftime.format(format, now(), zone, call))
        })
        return g
    }
}

/// Python's `datetime.strftime` for the C locale.
enum JinjaStrftime {
    static let days = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"]
    static let months = ["January", "February", "March", "April", "May", "June", "July", "August",
                         "September", "October", "November", "December"]

    static func format(_ format: String, _ date: Date, _ zone: TimeZone, _ call: JinjaCall) throws(JinjaError) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = zone
        let c = calendar.dateComponents([.year, .month, .day, .hour, .minute, .second, .weekday], from: date)
        let year = c.year ?? 1970, month = c.month ?? 1, day = c.day ?? 1
        let hour = c.hour ?? 0, minute = c.minute ?? 0, second = c.second ?? 0
        let weekday = ((c.weekday ?? 1) + 5) % 7  // Monday = 0
        let dayOfYear = calendar.ordinality(of: .day, in: .year, for: date) ?? 1
        func pad(_ n: Int, _ width: Int = 2) -> String {
            let s = String(n)
            return String(repeating: "0", count: max(0, width - s.count)) + s
        }
        var out = ""
        var it = Array(format.unicodeScalars)[...]
        while let ch = it.popFirst() {
            guard ch == "%", let spec = it.popFirst() else { out.unicodeScalars.append(ch); continue }
            switch spec {
            case "a": out += String(days[weekday].prefix(3))
            case "A": out += days[weekday]
            case "w": out += String((weekday + 1) % 7)
            case "d": out += pad(day)
            case "-":
                // glibc's %-d, %-m, … (no padding), which Llama templates use.
                guard let next = it.popFirst() else { out += "%-"; continue }
                switch next {
                case "d": out += String(day)
                case "m": out += String(month)
                case "H": out += String(hour)
                case "I": out += String(hour % 12 == 0 ? 12 : hour % 12)
                case "M": out += String(minute)
                case "S": out += String(second)
                case "j": out += String(dayOfYear)
                default: out += "%-"; out.unicodeScalars.append(next)
                }
            case "b", "h": out += String(months[month - 1].prefix(3))
            case "B": out += months[month - 1]
            case "m": out += pad(month)
            case "y": out += pad(year % 100)
            case "Y": out += String(year)
            case "H": out += pad(hour)
            case "I": out += pad(hour % 12 == 0 ? 12 : hour % 12)
            case "p": out += hour < 12 ? "AM" : "PM"
            case "M": out += pad(minute)
            case "S": out += pad(second)
            case "f": out += "000000"
            case "j": out += pad(dayOfYear, 3)
            case "z", "Z": break  // a naive datetime, as datetime.now() is
            case "e": out += (day < 10 ? " " : "") + String(day)
            case "D": out += pad(month) + "/" + pad(day) + "/" + pad(year % 100)
            case "F": out += String(year) + "-" + pad(month) + "-" + pad(day)
            case "T": out += pad(hour) + ":" + pad(minute) + ":" + pad(second)
            case "%": out += "%"
            default:
                throw call.error(.type, "unsupported strftime directive %\(spec)")
            }
        }
        return out
    }
}
