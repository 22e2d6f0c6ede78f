import Foundation

/// A tool the model can call to fetch information or act, while it answers a prompt.
///
/// The session describes each tool to the model (name, description, arguments schema); when the
/// model calls one, the session decodes the generated arguments, runs `call(arguments:)` and feeds
/// the output back to the model before it continues. Calls may run concurrently with each other.
public protocol Tool<Arguments, Output>: Sendable {
    /// The arguments the model generates for a call.
    associatedtype Arguments: ConvertibleFromGeneratedContent
    /// What the tool returns to the model.
    associatedtype Output: PromptRepresentable

    /// A unique name, the one the model uses to call the tool. Defaults to the type's name.
    var name: String { get }
    /// A natural-language description of when and how to use the tool.
    var description: String { get }
    /// The schema of the arguments.
    var parameters: GenerationSchema { get }
    /// Whether the arguments schema is written into the instructions. Defaults to `true`.
    var includesSchemaInInstructions: Bool { get }

    /// Runs the tool with the arguments the model generated.
    func call(arguments: Arguments) async throws -> Output
}

extension Tool {
    public var name: String { String(describing: Self.self) }
    public var includesSchemaInInstructions: Bool { true }
}

extension Tool where Arguments: Generable {
    public var parameters: GenerationSchema { Arguments.generationSchema }
}

extension Tool {
    /// Decodes generated arguments, calls the tool and returns its output as transcript segments.
    /// Structured output is labelled with the tool's name, as Apple's transcripts do.
    package func call(generatedArguments: GeneratedContent) async throws -> [Transcript.Segment] {
        let arguments = try Arguments(generatedArguments)
        let output = try await call(arguments: arguments)
        return output.promptRepresentation.segments.map { segment in
            guard case .structure(var structure) = segment else { return segment }
            structure.source = name
            return .structure(structure)
        }
    }
}
