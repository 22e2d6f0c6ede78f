/// A type that can be initialized from generated content.
///
/// `SendableMetatype` because schemas hold these metatypes and are shared across tasks.
public protocol ConvertibleFromGeneratedContent: SendableMetatype {
    /// Creates an instance from content the model generated (or that you built by hand).
    init(_ content: GeneratedContent) throws
}
