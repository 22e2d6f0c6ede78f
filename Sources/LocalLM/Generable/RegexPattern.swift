/// Regular expressions as JSON Schema `pattern` text.
enum RegexPattern {
    /// The source of a regex, as written in the literal or the string it was made from.
    /// A RegexBuilder regex that has no literal form gives no pattern (no constraint) rather
    /// than a wrong one.
    static func source<Output>(of regex: Regex<Output>) -> String? {
        regex._literalPattern
    }
}
