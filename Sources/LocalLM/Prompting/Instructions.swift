/// Instructions that control the model's behaviour: they become the system message of the chat
/// template, ahead of every prompt in the session.
public struct Instructions: Sendable, Equatable {
    /// The instructions as transcript segments (text, or structured content from Generable values).
    package var segments: [Transcript.Segment]

    package init(segments: [Transcript.Segment]) {
        self.segments = segments
    }

    /// Creates instructions from a value that has an instructions representation.
    public init(_ content: some InstructionsRepresentable) {
        self = content.instructionsRepresentation
    }

    /// Creates instructions with a result builder.
    public init(@InstructionsBuilder _ content: () throws -> Instructions) rethrows {
        self = try content()
    }

    /// The text the chat template sees: segments joined by newlines, structures as JSON.
    package var text: String { segments.renderedText }
}

/// A type that can be turned into instructions.
public protocol InstructionsRepresentable {
    /// An instructions representation of this value.
    @InstructionsBuilder var instructionsRepresentation: Instructions { get }
}

extension Instructions: InstructionsRepresentable {
    public var instructionsRepresentation: Instructions {
        // An explicit `return` keeps the builder out: through it, this getter would call itself.
        return self
    }
}

extension String: InstructionsRepresentable {
    public var instructionsRepresentation: Instructions {
        return Instructions(segments: [.text(Transcript.TextSegment(content: self))])
    }
}

extension Array: InstructionsRepresentable where Element: InstructionsRepresentable {
    public var instructionsRepresentation: Instructions {
        return Instructions(segments: flatMap { $0.instructionsRepresentation.segments })
    }
}

/// Builds `Instructions` from a list of representable values, one segment each, with the usual
/// control flow (`if`, `if/else`, `for`, availability checks).
@resultBuilder
public struct InstructionsBuilder {
    public static func buildBlock<each I: InstructionsRepresentable>(_ components: repeat each I) -> Instructions {
        var segments: [Transcript.Segment] = []
        for component in repeat each components {
            segments += component.instructionsRepresentation.segments
        }
        return Instructions(segments: segments)
    }

    public static func buildArray(_ instructions: [some InstructionsRepresentable]) -> Instructions {
        Instructions(segments: instructions.flatMap { $0.instructionsRepresentation.segments })
    }

    public static func buildEither(first component: some InstructionsRepresentable) -> Instructions {
        component.instructionsRepresentation
    }

    public static func buildEither(second component: some InstructionsRepresentable) -> Instructions {
        component.instructionsRepresentation
    }

    public static func buildOptional(_ instructions: Instructions?) -> Instructions {
        instructions ?? Instructions(segments: [])
    }

    public static func buildLimitedAvailability(_ instructions: some InstructionsRepresentable) -> Instructions {
        instructions.instructionsRepresentation
    }

    public static func buildExpression<I: InstructionsRepresentable>(_ expression: I) -> I {
        expression
    }

    public static func buildExpression(_ expression: Instructions) -> Instructions {
        expression
    }
}
