import Foundation

extension GenerationSchema {
    /// Why a schema built from `DynamicGenerationSchema`s is not valid.
    public enum SchemaError: Error, LocalizedError, Sendable {
        /// The context in which the error occurred.
        public struct Context: Sendable {
            /// A description of the error, for debugging.
            public let debugDescription: String

            public init(debugDescription: String) {
                self.debugDescription = debugDescription
            }
        }

        /// Two types in the schema have the same name.
        case duplicateType(schema: String?, type: String, context: Context)
        /// A structure has two properties with the same name.
        case duplicateProperty(schema: String, property: String, context: Context)
        /// An `anyOf` has no choices.
        case emptyTypeChoices(schema: String, context: Context)
        /// The schema refers to types that neither the root nor the dependencies define.
        case undefinedReferences(schema: String?, references: [String], context: Context)

        public var errorDescription: String? {
            switch self {
            case .duplicateType(let schema, let type, let context):
                return "\(context.debugDescription) (type '\(type)' in schema '\(schema ?? "root")')"
            case .duplicateProperty(let schema, let property, let context):
                return "\(context.debugDescription) (property '\(property)' in '\(schema)')"
            case .emptyTypeChoices(let schema, let context):
                return "\(context.debugDescription) (in '\(schema)')"
            case .undefinedReferences(let schema, let references, let context):
                return "\(context.debugDescription) (\(references.joined(separator: ", ")) in schema '\(schema ?? "root")')"
            }
        }
    }
}
