/// One lexical token of a template. Text between tags arrives already whitespace-controlled the
/// way Hugging Face configures jinja2 (`trim_blocks`, `lstrip_blocks`, plus `-`/`+` markers).
struct JinjaToken: Sendable {
    enum Kind: Sendable, Equatable {
        case text(String)
        case blockBegin, blockEnd, variableBegin, variableEnd
        case name(String)
        case string(String)
        case int(Int)
        case double(Double)
        case op(String)
        case eof
    }

    let kind: Kind
    let line: Int
    let column: Int
}

/// Splits a template into tokens. Works on Unicode scalars so positions are exact and `\r\n`
/// is not merged into one Character.
struct JinjaLexer {
    private let s: [Unicode.Scalar]
    private var lineStarts: [Int] = [0]
    private var tokens: [JinjaToken] = []

    init(_ source: String) {
        // jinja2 normalises \r\n and \r to \n and drops one trailing newline
        // (keep_trailing_newline=False) before lexing.
        var scalars: [Unicode.Scalar] = []
        scalars.reserveCapacity(source.unicodeScalars.count)
        var previousCR = false
        for c in source.unicodeScalars {
            if c == "\r" {
                scalars.append("\n")
                previousCR = true
                continue
            }
            if c == "\n", previousCR { previousCR = false; continue }
            previousCR = false
            scalars.append(c)
        }
        if scalars.last == "\n" { scalars.removeLast() }
        s = scalars
        for (i, c) in s.enumerated() where c == "\n" { lineStarts.append(i + 1) }
    }

    static func tokenize(_ source: String) throws(JinjaError) -> [JinjaToken] {
        var lexer = JinjaLexer(source)
        try lexer.run()
        return lexer.tokens
    }

    private func place(_ pos: Int) -> (line: Int, column: Int) {
        var lo = 0, hi = lineStarts.count - 1
        while lo < hi {
            let mid = (lo + hi + 1) / 2
            if lineStarts[mid] <= pos { lo = mid } else { hi = mid - 1 }
        }
        return (lo + 1, pos - lineStarts[lo] + 1)
    }

    private func error(_ message: String, at pos: Int) -> JinjaError {
        let p = place(pos)
        return JinjaError(.syntax, message, line: p.line, column: p.column)
    }

    private mutating func emit(_ kind: JinjaToken.Kind, at pos: Int) {
        let p = place(pos)
        tokens.append(JinjaToken(kind: kind, line: p.line, column: p.column))
    }

    private func at(_ i: Int) -> Unicode.Scalar? { i < s.count ? s[i] : nil }

    private func isSpace(_ c: Unicode.Scalar) -> Bool { c.properties.isWhitespace }

    /// Index of the next `{{`, `{%` or `{#` at or after `from`, or `s.count`.
    private func nextTag(from: Int) -> Int {
        var i = from
        while i + 1 < s.count {
            if s[i] == "{", s[i + 1] == "{" || s[i + 1] == "%" || s[i + 1] == "#" { return i }
            i += 1
        }
        return s.count
    }

    /// `lstrip_blocks`: drop spaces/tabs between the start of the line and a block or comment tag.
    private func lstripBlock(text: Range<Int>) -> Range<Int> {
        var j = text.upperBound
        while j > text.lowerBound, s[j - 1] == " " || s[j - 1] == "\t" { j -= 1 }
        // Only spaces/tabs may precede the tag on its line. s[j - 1] may lie before this text (the
        // newline a trimmed tag left behind), which still counts as a line start, as in jinja2.
        guard j == 0 || s[j - 1] == "\n" else { return text }
        return text.lowerBound..<j
    }

    private mutating func emitText(_ range: Range<Int>) {
        guard !range.isEmpty else { return }
        var str = String.UnicodeScalarView()
        str.append(contentsOf: s[range])
        emit(.text(String(str)), at: range.lowerBound)
    }

    /// After a block/comment tag closed without `-`/`+`: `trim_blocks` eats one newline.
    private func trimBlock(after pos: Int) -> Int {
        if at(pos) == "\n" { return pos + 1 }
        if at(pos) == "\r", at(pos + 1) == "\n" { return pos + 2 }
        return pos
    }

    private mutating func run() throws(JinjaError) {
        var pos = 0
        var stripLeading = false  // the previous tag ended with `-`
        while pos <= s.count {
            let tag = nextTag(from: pos)
            var text = pos..<tag
            if stripLeading {
                var a = text.lowerBound
                while a < text.upperBound, isSpace(s[a]) { a += 1 }
                text = a..<text.upperBound
            }
            if tag >= s.count {
                emitText(text)
                break
            }
            let kind = s[tag + 1]
            var inner = tag + 2
            let marker = at(inner)
            if marker == "-" {
                var b = text.upperBound
                while b > text.lowerBound, isSpace(s[b - 1]) { b -= 1 }
                text = text.lowerBound..<b
                inner += 1
            } else {
                if kind != "{", marker != "+" { text = lstripBlock(text: text) }
                if marker == "+" { inner += 1 }
            }
            emitText(text)
            switch kind {
            case "#":
                var j = inner
                while j + 1 < s.count, !(s[j] == "#" && s[j + 1] == "}") { j += 1 }
                guard j + 1 < s.count else { throw error("missing end of comment tag", at: tag) }
                let closeMarker = j > inner ? s[j - 1] : nil
                stripLeading = closeMarker == "-"
                pos = j + 2
                if closeMarker != "-", closeMarker != "+" { pos = trimBlock(after: pos) }
            case "%":
                if let raw = try rawBlock(tag: tag, inner: inner) {
                    pos = raw.end
                    stripLeading = raw.stripAfter
                    continue
                }
                emit(.blockBegin, at: tag)
                let end = try expressionTokens(from: inner, close: "%")
                emit(.blockEnd, at: end.pos)
                stripLeading = end.marker == "-"
                pos = end.pos + 2
                if end.marker == nil { pos = trimBlock(after: pos) }
            default:
                emit(.variableBegin, at: tag)
                let end = try expressionTokens(from: inner, close: "}")
                emit(.variableEnd, at: end.pos)
                stripLeading = end.marker == "-"
                pos = end.pos + 2
            }
        }
        emit(.eof, at: s.count)
    }

    /// `{% raw %}…{% endraw %}`: the body is text, verbatim.
    private mutating func rawBlock(tag: Int, inner: Int) throws(JinjaError) -> (end: Int, stripAfter: Bool)? {
        var i = inner
        while let c = at(i), isSpace(c) { i += 1 }
        guard at(i) == "r", at(i + 1) == "a", at(i + 2) == "w" else { return nil }
        i += 3
        while let c = at(i), isSpace(c) { i += 1 }
        var stripBody = false
        if at(i) == "-" { stripBody = true; i += 1 } else if at(i) == "+" { i += 1 }
        guard at(i) == "%", at(i + 1) == "}" else { return nil }
        var bodyStart = i + 2
        if stripBody {
            while let c = at(bodyStart), isSpace(c) { bodyStart += 1 }
        } else if at(i - 1) != "+" {
            bodyStart = trimBlock(after: bodyStart)
        }
        // Find `{%[-+]? endraw [-+]?%}`.
        var j = bodyStart
        while j + 1 < s.count {
            if s[j] == "{", s[j + 1] == "%" {
                var k = j + 2
                let open = at(k)
                if open == "-" || open == "+" { k += 1 }
                while let c = at(k), isSpace(c) { k += 1 }
                if String(String.UnicodeScalarView(s[k..<min(k + 6, s.count)])) == "endraw" {
                    k += 6
                    while let c = at(k), isSpace(c) { k += 1 }
                    let close = at(k)
                    if close == "-" || close == "+" { k += 1 }
                    if at(k) == "%", at(k + 1) == "}" {
                        var body = bodyStart..<j
                        if open == "-" {
                            var b = body.upperBound
                            while b > body.lowerBound, isSpace(s[b - 1]) { b -= 1 }
                            body = body.lowerBound..<b
                        } else if open != "+" {
                            body = lstripBlock(text: body)
                        }
                        emitText(body)
                        var end = k + 2
                        if close == nil || (close != "-" && close != "+") { end = trimBlock(after: end) }
                        return (end, close == "-")
                    }
                }
            }
            j += 1
        }
        throw error("missing {% endraw %}", at: tag)
    }

    /// Tokens inside `{{ … }}` or `{% … %}` up to the closing delimiter at bracket depth 0.
    /// Returns the position of the closing `}}`/`%}` and the `-`/`+` marker before it.
    private mutating func expressionTokens(from start: Int, close: Unicode.Scalar) throws(JinjaError) -> (pos: Int, marker: Unicode.Scalar?) {
        var i = start
        var depth = 0
        while true {
            while let c = at(i), isSpace(c) { i += 1 }
            guard let c = at(i) else { throw error("unexpected end of template inside a tag", at: start) }
            if depth == 0 {
                if c == close, at(i + 1) == "}" { return (i, nil) }
                if c == "-" || c == "+", at(i + 1) == close, at(i + 2) == "}" { return (i + 1, c) }
            }
            if c == "_" || c.properties.isAlphabetic {
                var j = i + 1
                while let d = at(j), d == "_" || d.properties.isAlphabetic || d.properties.numericType != nil { j += 1 }
                emit(.name(String(String.UnicodeScalarView(s[i..<j]))), at: i)
                i = j
            } else if c.isASCII, c.properties.numericType != nil {
                i = try number(at: i)
            } else if c == "'" || c == "\"" {
                i = try string(at: i, quote: c)
            } else {
                let two = i + 1 < s.count ? String(String.UnicodeScalarView([c, s[i + 1]])) : ""
                if ["**", "//", "==", "!=", "<=", ">="].contains(two) {
                    emit(.op(two), at: i)
                    i += 2
                } else if "+-*/%~<>=()[]{},.:|".unicodeScalars.contains(c) {
                    if c == "(" || c == "[" || c == "{" { depth += 1 }
                    if c == ")" || c == "]" || c == "}" { depth = max(0, depth - 1) }
                    emit(.op(String(c)), at: i)
                    i += 1
                } else {
                    throw error("unexpected character '\(c)'", at: i)
                }
            }
        }
    }

    private func isDigit(_ c: Unicode.Scalar?) -> Bool {
        guard let c else { return false }
        return c >= "0" && c <= "9"
    }

    private mutating func number(at start: Int) throws(JinjaError) -> Int {
        var i = start
        var text = ""
        func digits(_ i: inout Int, _ text: inout String) {
            while let c = at(i), isDigit(c) || (c == "_" && isDigit(at(i + 1))) {
                if c != "_" { text.unicodeScalars.append(c) }
                i += 1
            }
        }
        digits(&i, &text)
        var isFloat = false
        if at(i) == ".", isDigit(at(i + 1)) {
            isFloat = true
            text += "."
            i += 1
            digits(&i, &text)
        }
        if at(i) == "e" || at(i) == "E" {
            var j = i + 1
            var exp = "e"
            if at(j) == "+" || at(j) == "-" { exp.unicodeScalars.append(s[j]); j += 1 }
            if isDigit(at(j)) {
                digits(&j, &exp)
                text += exp
                i = j
                isFloat = true
            }
        }
        if isFloat {
            guard let d = Double(text) else { throw error("bad number \(text)", at: start) }
            emit(.double(d), at: start)
        } else {
            guard let n = Int(text) else { throw error("integer literal \(text) is too large", at: start) }
            emit(.int(n), at: start)
        }
        return i
    }

    private mutating func string(at start: Int, quote: Unicode.Scalar) throws(JinjaError) -> Int {
        var i = start + 1
        var out = String.UnicodeScalarView()
        while true {
            guard let c = at(i) else { throw error("unterminated string literal", at: start) }
            if c == quote { break }
            if c == "\\", let e = at(i + 1) {
                i += 2
                switch e {
                case "n": out.append("\n")
                case "t": out.append("\t")
                case "r": out.append("\r")
                case "b": out.append("\u{08}")
                case "f": out.append("\u{0C}")
                case "v": out.append("\u{0B}")
                case "a": out.append("\u{07}")
                case "0": out.append("\u{00}")
                case "\\", "'", "\"": out.append(e)
                case "\n": break
                case "x", "u", "U":
                    let n = e == "x" ? 2 : e == "u" ? 4 : 8
                    guard i + n <= s.count,
                          let v = UInt32(String(String.UnicodeScalarView(s[i..<i + n])), radix: 16),
                          let scalar = Unicode.Scalar(v)
                    else { throw error("bad \\\(e) escape in string literal", at: i - 2) }
                    out.append(scalar)
                    i += n
                default:
                    out.append("\\")
                    out.append(e)
                }
                continue
            }
            out.append(c)
            i += 1
        }
        emit(.string(String(out)), at: start)
        return i + 1
    }
}
