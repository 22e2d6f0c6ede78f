/// A type that can be converted to generated content.
///
/// Apple's protocol also refines `InstructionsRepresentable` and `PromptRepresentable`; those
/// belong to the session layer (Sources/LocalLM, outside Generable/), which adds the refinement here.
public protocol ConvertibleToGeneratedContent {
    /// This instance represented as generated content.
    var generatedContent: GeneratedContent { get }
}
