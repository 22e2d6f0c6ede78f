/// JSON Schema's reading of `pattern`: a search (Python's `re.search`, ECMA's `RegExp.test`), so
/// an alternative without `^` may have anything before it and one without `$` anything after it.
extension RegexCompiler {
    static func parseSearch(_ pattern: String) throws(GrammarError) -> Node {
        let any = Node.repeated(.scalars([0...UTF8Ranges.maxScalar]), min: 0, max: nil)
        var alternatives: [Node] = []
        for piece in RegexSyntax.topLevelAlternatives(pattern) {
            let node = try parse(piece)
            var seq: [Node] = []
            if !piece.hasPrefix("^") { seq.append(any) }
            seq.append(node)
            if !RegexSyntax.endsWithAnchor(piece) { seq.append(any) }
            alternatives.append(seq.count == 1 ? seq[0] : .sequence(seq))
        }
        return alternatives.count == 1 ? alternatives[0] : .alternation(alternatives)
    }
}

/// Reading a regex's top level without compiling it (the API anchors guide patterns with these).
package enum RegexSyntax {
    /// The pattern split at `|` outside groups, classes and escapes.
    package static func topLevelAlternatives(_ pattern: String) -> [String] {
        var pieces: [String] = [], current = ""
        var depth = 0, inClass = false, escaped = false
        for c in pattern.unicodeScalars {
            if escaped { escaped = false; current.unicodeScalars.append(c); continue }
            switch c {
            case "\\": escaped = true
            case "[": inClass = true
            case "]": inClass = false
            case "(" where !inClass: depth += 1
            case ")" where !inClass: depth -= 1
            case "|" where !inClass && depth == 0:
                pieces.append(current); current = ""; continue
            default: break
            }
            current.unicodeScalars.append(c)
        }
        pieces.append(current)
        return pieces
    }

    /// Ends in a `$` that is not escaped.
    package static func endsWithAnchor(_ piece: String) -> Bool {
        guard piece.hasSuffix("$") else { return false }
        var backslashes = 0
        for c in piece.unicodeScalars.dropLast().reversed() { if c == "\\" { backslashes += 1 } else { break } }
        return backslashes % 2 == 0
    }
}
