/// A prompt from a person to the model: becomes a user message of the chat template.
public struct Prompt: Sendable, Equatable {
    /// The prompt as transcript segments (text, or structured content from Generable values).
    package var segments: [Transcript.Segment]

    package init(segments: [Transcript.Segment]) {
        self.segments = segments
    }

    /// Creates a prompt from a value that has a prompt representation.
    public init(_ content: some PromptRepresentable) {
        self = content.promptRepresentation
    }

    /// Creates a prompt with a result builder.
    public init(@PromptBuilder _ content: () throws -> Prompt) rethrows {
        self = try content()
    }

    /// The text the chat template sees: segments joined by newlines, structures as JSON.
    package var text: String { segments.renderedText }
}

/// A type that can be turned into a prompt.
public protocol PromptRepresentable {
    /// A prompt representation of this value.
    @PromptBuilder var promptRepresentation: Prompt { get }
}

extension Prompt: PromptRepresentable {
    public var promptRepresentation: Prompt {
        // An explicit `return` keeps the builder out: through it, this getter would call itself.
        return self
    }
}

extension String: PromptRepresentable {
    public var promptRepresentation: Prompt {
        return Prompt(segments: [.text(Transcript.TextSegment(content: self))])
    }
}

extension Array: PromptRepresentable where Element: PromptRepresentable {
    public var promptRepresentation: Prompt {
        return Prompt(segments: flatMap { $0.promptRepresentation.segments })
    }
}

/// Builds a `Prompt` from a list of representable values, one segment each, with the usual
/// control flow (`if`, `if/else`, `for`, availability checks).
@resultBuilder
public struct PromptBuilder {
    public static func buildBlock<each P: PromptRepresentable>(_ components: repeat each P) -> Prompt {
        var segments: [Transcript.Segment] = []
        for component in repeat each components {
            segments += component.promptRepresentation.segments
        }
        return Prompt(segments: segments)
    }

    public static func buildArray(_ prompts: [some PromptRepresentable]) -> Prompt {
        Prompt(segments: prompts.flatMap { $0.promptRepresentation.segments })
    }

    public static func buildEither(first component: some PromptRepresentable) -> Prompt {
        component.promptRepresentation
    }

    public static func buildEither(second component: some PromptRepresentable) -> Prompt {
        component.promptRepresentation
    }

    public static func buildOptional(_ prompt: Prompt?) -> Prompt {
        prompt ?? Prompt(segments: [])
    }

    public static func buildLimitedAvailability(_ prompt: some PromptRepresentable) -> Prompt {
        prompt.promptRepresentation
    }

    public static func buildExpression<P: PromptRepresentable>(_ expression: P) -> P {
        expression
    }

    public static func buildExpression(_ expression: Prompt) -> Prompt {
        expression
    }
}
