/// Generated content (and every Generable value) goes into prompts and instructions as a
/// structured segment, labelled with its type's name; the chat template sees its JSON.
extension ConvertibleToGeneratedContent {
    public var promptRepresentation: Prompt {
        return Prompt(segments: [.structure(Transcript.StructuredSegment(source: Self.segmentSource, content: generatedContent))])
    }

    public var instructionsRepresentation: Instructions {
        return Instructions(
            segments: [.structure(Transcript.StructuredSegment(source: Self.segmentSource, content: generatedContent))])
    }

    private static var segmentSource: String { String(describing: Self.self) }
}

// `Optional` converts to generated content when its wrapped type does, so it is representable too.
extension Optional: InstructionsRepresentable where Wrapped: ConvertibleToGeneratedContent {}
extension Optional: PromptRepresentable where Wrapped: ConvertibleToGeneratedContent {}
