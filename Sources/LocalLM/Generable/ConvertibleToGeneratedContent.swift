/// A type that can be converted to generated content.
///
/// As in Apple's framework it refines `InstructionsRepresentable` and `PromptRepresentable`; the
/// session layer (Prompting/ConvertibleToGeneratedContent+Prompt.swift) supplies the representations.
public protocol ConvertibleToGeneratedContent: InstructionsRepresentable, PromptRepresentable {
    /// This instance represented as generated content.
    var generatedContent: GeneratedContent { get }
}
