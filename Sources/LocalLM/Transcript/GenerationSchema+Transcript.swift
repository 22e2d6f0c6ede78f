extension GenerationSchema {
    /// The schema as compact JSON Schema text, for equality and token counts.
    package var canonicalJSON: String { jsonSchemaString }

    /// The name a response format and structured segments carry: the root type's title.
    package var schemaName: String {
        if case .structure(let properties, _) = jsonSchema.kind, case .string(let title)? = properties["title"]?.kind {
            return title
        }
        return "GeneratedContent"
    }
}
