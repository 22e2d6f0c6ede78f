import LocalLMJSON

extension JSONValue {
    /// Parses strict JSON text (a schema), reporting a failure as a schema error at `$`.
    public init(parsing text: String) throws(GrammarError) {
        do {
            self = try JSONParser.parse(text)
        } catch {
            throw GrammarError.schema(message: error.description, path: "$")
        }
    }
}
