extension GenerationSchema {
    /// A property of a structure's schema: its name, description, type and guides.
    public struct Property: Sendable {
        let property: SchemaProperty

        /// Creates a property that must be present.
        ///
        /// Disfavored so that `type: T?.self` picks the optional overload below.
        @_disfavoredOverload
        public init<Value: Generable>(
            name: String,
            description: String? = nil,
            type: Value.Type,
            guides: [GenerationGuide<Value>] = []
        ) {
            property = SchemaProperty(
                name: name,
                description: description,
                node: .generable(Value.self, GuideConstraints.merged(guides.map(\.constraints))),
                isOptional: false
            )
        }

        /// Creates a property that may be left out (an `Optional` Swift property).
        public init<Value: Generable>(
            name: String,
            description: String? = nil,
            type: Value?.Type,
            guides: [GenerationGuide<Value>] = []
        ) {
            property = SchemaProperty(
                name: name,
                description: description,
                node: .generable(Value.self, GuideConstraints.merged(guides.map(\.constraints))),
                isOptional: true
            )
        }

        /// Creates a string property that matches a regular expression (the last of `guides`, as in Apple's).
        public init<RegexOutput>(
            name: String,
            description: String? = nil,
            type: String.Type,
            guides: [Regex<RegexOutput>] = []
        ) {
            property = SchemaProperty(
                name: name,
                description: description,
                node: .generable(String.self, GuideConstraints(pattern: guides.last.flatMap(RegexPattern.source(of:)))),
                isOptional: false
            )
        }

        /// Creates an optional string property that matches a regular expression (the last of `guides`).
        public init<RegexOutput>(
            name: String,
            description: String? = nil,
            type: String?.Type,
            guides: [Regex<RegexOutput>] = []
        ) {
            property = SchemaProperty(
                name: name,
                description: description,
                node: .generable(String.self, GuideConstraints(pattern: guides.last.flatMap(RegexPattern.source(of:)))),
                isOptional: true
            )
        }
    }
}
