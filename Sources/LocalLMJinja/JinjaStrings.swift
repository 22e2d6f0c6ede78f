/// Python `str` behaviour over Unicode scalars (Python strings index code points).
enum JinjaStrings {
    /// `str.isspace()` for one character: Unicode White_Space plus the ASCII separators 0x1C–0x1F.
    static func isSpace(_ c: Unicode.Scalar) -> Bool {
        c.properties.isWhitespace || (c.value >= 0x1C && c.value <= 0x1F)
    }

    static func string(_ scalars: some Sequence<Unicode.Scalar>) -> String {
        var v = String.UnicodeScalarView()
        v.append(contentsOf: scalars)
        return String(v)
    }

    /// `strip`/`lstrip`/`rstrip` with optional `chars`.
    static func strip(_ s: String, chars: String?, left: Bool = true, right: Bool = true) -> String {
        let a = Array(s.unicodeScalars)
        let set = chars.map { Set($0.unicodeScalars) }
        func drop(_ c: Unicode.Scalar) -> Bool { set.map { $0.contains(c) } ?? isSpace(c) }
        var i = 0, j = a.count
        if left { while i < j, drop(a[i]) { i += 1 } }
        if right { while j > i, drop(a[j - 1]) { j -= 1 } }
        return string(a[i..<j])
    }

    /// `str.split(sep, maxsplit)`.
    static func split(_ s: String, sep: String?, maxsplit: Int) -> [String] {
        let a = Array(s.unicodeScalars)
        var parts: [String] = []
        guard let sep else {
            var i = 0
            while true {
                while i < a.count, isSpace(a[i]) { i += 1 }
                if i >= a.count { break }
                if maxsplit >= 0, parts.count == maxsplit {
                    parts.append(string(a[i...]))  // the remainder keeps its trailing whitespace
                    break
                }
                let start = i
                while i < a.count, !isSpace(a[i]) { i += 1 }
                parts.append(string(a[start..<i]))
            }
            return parts
        }
        let p = Array(sep.unicodeScalars)
        var start = 0, i = 0
        while i + p.count <= a.count {
            if maxsplit >= 0, parts.count == maxsplit { break }
            if a[i] == p[0], a[i..<i + p.count].elementsEqual(p) {
                parts.append(string(a[start..<i]))
                i += p.count
                start = i
            } else {
                i += 1
            }
        }
        parts.append(string(a[start...]))
        return parts
    }

    /// `str.rsplit(sep, maxsplit)`.
    static func rsplit(_ s: String, sep: String?, maxsplit: Int) -> [String] {
        if maxsplit < 0 { return split(s, sep: sep, maxsplit: -1) }
        let reversed = string(s.unicodeScalars.reversed())
        let rsep = sep.map { string($0.unicodeScalars.reversed()) }
        if sep == nil {
            // Whitespace split from the right: mirror, split, mirror back.
            return split(reversed, sep: nil, maxsplit: maxsplit).reversed().map { string($0.unicodeScalars.reversed()) }
        }
        return split(reversed, sep: rsep, maxsplit: maxsplit).reversed().map { string($0.unicodeScalars.reversed()) }
    }

    /// `str.replace(old, new, count)`.
    static func replace(_ s: String, _ old: String, _ new: String, count: Int = -1) -> String {
        let a = Array(s.unicodeScalars), o = Array(old.unicodeScalars)
        var out = String.UnicodeScalarView()
        var done = 0
        if o.isEmpty {
            // Python inserts `new` between every character and at both ends.
            for c in a {
                if count < 0 || done < count { out.append(contentsOf: new.unicodeScalars); done += 1 }
                out.append(c)
            }
            if count < 0 || done < count { out.append(contentsOf: new.unicodeScalars) }
            return String(out)
        }
        var i = 0
        while i < a.count {
            if (count < 0 || done < count), i + o.count <= a.count, a[i] == o[0], a[i..<i + o.count].elementsEqual(o) {
                out.append(contentsOf: new.unicodeScalars)
                i += o.count
                done += 1
            } else {
                out.append(a[i])
                i += 1
            }
        }
        return String(out)
    }

    /// Occurrences of `sub` (non-overlapping), as `str.count`.
    static func count(_ s: String, _ sub: String) -> Int {
        let a = Array(s.unicodeScalars), o = Array(sub.unicodeScalars)
        if o.isEmpty { return a.count + 1 }
        var n = 0, i = 0
        while i + o.count <= a.count {
            if a[i..<i + o.count].elementsEqual(o) { n += 1; i += o.count } else { i += 1 }
        }
        return n
    }

    static func upper(_ s: String) -> String { s.uppercased() }
    static func lower(_ s: String) -> String { s.lowercased() }

    /// `str.title()`: a cased character after an uncased one starts a word.
    static func title(_ s: String) -> String {
        var out = ""
        var previousCased = false
        for c in s.unicodeScalars {
            let text = String(c)
            out += previousCased ? text.lowercased() : (c.properties.titlecaseMapping)
            previousCased = c.properties.isCased
        }
        return out
    }

    /// `str.capitalize()`: first character title-cased, the rest lower-cased.
    static func capitalize(_ s: String) -> String {
        guard let first = s.unicodeScalars.first else { return s }
        return first.properties.titlecaseMapping + string(s.unicodeScalars.dropFirst()).lowercased()
    }

    /// `str.splitlines()`.
    static func splitlines(_ s: String) -> [String] {
        let a = Array(s.unicodeScalars)
        var lines: [String] = []
        var start = 0, i = 0
        while i < a.count {
            let c = a[i].value
            if c == 0x0A || c == 0x0D || c == 0x0B || c == 0x0C || (0x1C...0x1E).contains(c) || c == 0x85 || c == 0x2028 || c == 0x2029 {
                lines.append(string(a[start..<i]))
                if c == 0x0D, i + 1 < a.count, a[i + 1] == "\n" { i += 1 }
                i += 1
                start = i
            } else {
                i += 1
            }
        }
        if start < a.count { lines.append(string(a[start...])) }
        return lines
    }
}
