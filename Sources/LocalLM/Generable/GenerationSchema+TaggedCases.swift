extension GenerationSchema {
    /// The schema of a `@Generable` enum whose cases carry values; the macro writes the call.
    ///
    /// A plain case is generated as its name (a string); a case with values as a structure
    /// with one key, the case name, whose value holds the associated values
    /// (`{"circle": {"radius": 2}}`; unlabeled values are `_0`, `_1`…).
    public init(type: any Generable.Type, description: String? = nil, _cases cases: [(String, [Property]?)]) {
        var choices: [SchemaNode] = []
        let plain = cases.filter { $0.1 == nil }.map(\.0)
        if !plain.isEmpty {
            choices.append(.string(name: nil, description: nil, choices: plain, pattern: nil))
        }
        for (name, properties) in cases {
            guard let properties else { continue }
            let payload = SchemaNode.object(name: nil, description: nil, properties: properties.map(\.property))
            choices.append(.object(name: nil, description: nil, properties: [
                SchemaProperty(name: name, description: nil, node: payload, isOptional: false),
            ]))
        }
        self.init(root: .anyOf(name: Self.typeName(type), description: description, choices: choices))
    }
}
