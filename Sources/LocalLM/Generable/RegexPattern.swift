/// Regular expressions as JSON Schema `pattern` text.
enum RegexPattern {
    /// The pattern a whole generated string must match, from a regex's source.
    ///
    /// A guide constrains the whole string, while a JSON Schema `pattern` matches anywhere
    /// unless anchored; so the pattern is anchored (`^…$`), which is also the form grammar
    /// compilers such as llama.cpp's expect. A RegexBuilder regex with no literal form gives
    /// no pattern (no constraint) rather than a wrong one.
    static func source<Output>(of regex: Regex<Output>) -> String? {
        regex._literalPattern.map(anchored)
    }

    static func anchored(_ pattern: String) -> String {
        let body = hasTopLevelAlternation(pattern) ? "(\(pattern))" : pattern
        return (pattern.hasPrefix("^") ? "" : "^") + body + (pattern.hasSuffix("$") && !pattern.hasSuffix("\\$") ? "" : "$")
    }

    /// Whether `|` splits the pattern outside any group or character class.
    private static func hasTopLevelAlternation(_ pattern: String) -> Bool {
        var depth = 0
        var inClass = false
        var escaped = false
        for character in pattern {
            if escaped { escaped = false; continue }
            switch character {
            case "\\": escaped = true
            case "[": inClass = true
            case "]": inClass = false
            case "(" where !inClass: depth += 1
            case ")" where !inClass: depth -= 1
            case "|" where !inClass && depth == 0: return true
            default: break
            }
        }
        return false
    }
}
