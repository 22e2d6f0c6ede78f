extension GeneratedContent {
    /// Reads a property for a `PartiallyGenerated` value; `@Generable` writes the calls.
    ///
    /// `nil` when the property is missing or null, and also when its content is still
    /// incomplete and cannot be read yet (half an enum case name such as `"ja`): a stream
    /// snapshot shows the field as not there yet instead of failing. Complete content that
    /// does not convert is still an error.
    public func _partialValue<Value: ConvertibleFromGeneratedContent>(
        _ type: Value.Type = Value.self,
        forProperty property: String
    ) throws -> Value? {
        guard case .structure(let properties, _) = kind else {
            throw GeneratedContentError.typeMismatch(expected: "structure", found: kindName)
        }
        guard let content = properties[property] else { return nil }
        if case .null = content.kind { return nil }
        do {
            return try Value(content)
        } catch let error as GeneratedContentError {
            if content.isComplete { throw error.inProperty(property) }
            return nil
        } catch {
            if content.isComplete { throw error }
            return nil
        }
    }
}
