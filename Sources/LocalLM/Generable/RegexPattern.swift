import LocalLMGrammar

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
        // `|` outside any group or class would let the anchors bind to the first and last alternative only.
        let body = RegexSyntax.topLevelAlternatives(pattern).count > 1 ? "(\(pattern))" : pattern
        return (pattern.hasPrefix("^") ? "" : "^") + body + (RegexSyntax.endsWithAnchor(pattern) ? "" : "$")
    }
}
