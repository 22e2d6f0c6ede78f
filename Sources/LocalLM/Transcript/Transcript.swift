import Foundation

/// A linear history of a session: instructions, prompts, tool calls, tool outputs, reasoning and
/// responses, in order. A session restored from a transcript continues the conversation.
public struct Transcript: Sendable, Equatable, RandomAccessCollection {
    package var entries: [Entry]

    /// Creates a transcript from a sequence of entries.
    public init(entries: some Sequence<Entry> = []) {
        self.entries = Array(entries)
    }

    public typealias Index = Int
    public var startIndex: Int { entries.startIndex }
    public var endIndex: Int { entries.endIndex }
    public subscript(position: Int) -> Entry { entries[position] }
}

extension Transcript {
    /// One entry of a transcript.
    public enum Entry: Sendable, Identifiable, Equatable, CustomStringConvertible {
        /// Instructions, usually the first entry.
        case instructions(Transcript.Instructions)
        /// A prompt from a person.
        case prompt(Transcript.Prompt)
        /// Tool calls the model generated.
        case toolCalls(Transcript.ToolCalls)
        /// The output of one tool call, fed back to the model.
        case toolOutput(Transcript.ToolOutput)
        /// A response from the model.
        case response(Transcript.Response)
        /// Reasoning the model produced before its response.
        case reasoning(Transcript.Reasoning)

        public var id: String {
            switch self {
            case .instructions(let entry): entry.id
            case .prompt(let entry): entry.id
            case .toolCalls(let entry): entry.id
            case .toolOutput(let entry): entry.id
            case .response(let entry): entry.id
            case .reasoning(let entry): entry.id
            }
        }

        public var description: String {
            switch self {
            case .instructions(let entry): entry.description
            case .prompt(let entry): entry.description
            case .toolCalls(let entry): entry.description
            case .toolOutput(let entry): entry.description
            case .response(let entry): entry.description
            case .reasoning(let entry): entry.description
            }
        }
    }

    /// A piece of content: text, or structured content generated for a schema.
    public enum Segment: Sendable, Identifiable, Equatable, CustomStringConvertible {
        case text(Transcript.TextSegment)
        case structure(Transcript.StructuredSegment)

        public var id: String {
            switch self {
            case .text(let segment): segment.id
            case .structure(let segment): segment.id
            }
        }

        public var description: String {
            switch self {
            case .text(let segment): segment.description
            case .structure(let segment): segment.description
            }
        }
    }

    /// A text segment.
    public struct TextSegment: Sendable, Identifiable, Equatable, CustomStringConvertible {
        public var id: String
        public var content: String

        public init(id: String = UUID().uuidString, content: String) {
            self.id = id
            self.content = content
        }

        public var description: String { content }
    }

    /// A segment holding generated content and the name of the type or tool it came from.
    public struct StructuredSegment: Sendable, Identifiable, Equatable, CustomStringConvertible {
        public var id: String
        /// The name of the type, schema or tool the content belongs to.
        public var source: String
        public var content: GeneratedContent

        public init(id: String = UUID().uuidString, source: String, content: GeneratedContent) {
            self.id = id
            self.source = source
            self.content = content
        }

        public var description: String { content.jsonString }
    }

    /// Instructions, with the definitions of the tools the session offers.
    public struct Instructions: Sendable, Identifiable, Equatable, CustomStringConvertible {
        public var id: String
        public var segments: [Transcript.Segment]
        public var toolDefinitions: [Transcript.ToolDefinition]

        public init(id: String = UUID().uuidString, segments: [Transcript.Segment], toolDefinitions: [Transcript.ToolDefinition]) {
            self.id = id
            self.segments = segments
            self.toolDefinitions = toolDefinitions
        }

        public var description: String { "Instructions: " + segments.renderedText }
    }

    /// A tool's name, description and arguments schema, as the model sees them.
    public struct ToolDefinition: Sendable, Equatable {
        public var name: String
        public var description: String
        /// The JSON schema of the tool's arguments.
        public var parameters: GenerationSchema

        public init(name: String, description: String, parameters: GenerationSchema) {
            self.name = name
            self.description = description
            self.parameters = parameters
        }

        public init(tool: some Tool) {
            self.init(name: tool.name, description: tool.description, parameters: tool.parameters)
        }

        public static func == (lhs: Self, rhs: Self) -> Bool {
            lhs.name == rhs.name && lhs.description == rhs.description
                && lhs.parameters.canonicalJSON == rhs.parameters.canonicalJSON
        }
    }

    /// A prompt, with the options and response format of its request.
    public struct Prompt: Sendable, Identifiable, Equatable, CustomStringConvertible {
        public var id: String
        public var segments: [Transcript.Segment]
        public var options: GenerationOptions
        public var responseFormat: Transcript.ResponseFormat?

        public init(
            id: String = UUID().uuidString, segments: [Transcript.Segment], options: GenerationOptions = GenerationOptions(),
            responseFormat: Transcript.ResponseFormat? = nil
        ) {
            self.id = id
            self.segments = segments
            self.options = options
            self.responseFormat = responseFormat
        }

        public var description: String { "Prompt: " + segments.renderedText }
    }

    /// The schema a response was asked to follow.
    public struct ResponseFormat: Sendable, Equatable, CustomStringConvertible {
        /// The schema's name (the type name for Generable types).
        public var name: String
        package var schema: GenerationSchema

        public init(schema: GenerationSchema) {
            self.schema = schema
            self.name = schema.schemaName
        }

        public init<Content: Generable>(type: Content.Type) {
            self.init(schema: Content.generationSchema)
        }

        package init(name: String, schema: GenerationSchema) {
            self.name = name
            self.schema = schema
        }

        public var description: String { name }

        public static func == (lhs: Self, rhs: Self) -> Bool {
            lhs.name == rhs.name && lhs.schema.canonicalJSON == rhs.schema.canonicalJSON
        }
    }

    /// The tool calls the model made in one turn.
    public struct ToolCalls: Sendable, Identifiable, Equatable, RandomAccessCollection, CustomStringConvertible {
        public var id: String
        package var calls: [Transcript.ToolCall]

        public init(id: String = UUID().uuidString, _ calls: some Collection<Transcript.ToolCall>) {
            self.id = id
            self.calls = Array(calls)
        }

        public var startIndex: Int { calls.startIndex }
        public var endIndex: Int { calls.endIndex }
        public subscript(position: Int) -> Transcript.ToolCall { calls[position] }

        public var description: String { "Tool calls:\n" + calls.map(\.description).joined(separator: "\n") }
    }

    /// One call of a tool with generated arguments.
    public struct ToolCall: Sendable, Identifiable, Equatable, CustomStringConvertible {
        public var id: String
        public var toolName: String
        public var arguments: GeneratedContent

        public init(id: String, toolName: String, arguments: GeneratedContent) {
            self.id = id
            self.toolName = toolName
            self.arguments = arguments
        }

        public var description: String { "\(toolName): \(arguments.jsonString)" }
    }

    /// The output of a tool call. Its `id` is the id of the call it answers.
    public struct ToolOutput: Sendable, Identifiable, Equatable, CustomStringConvertible {
        public var id: String
        public var toolName: String
        public var segments: [Transcript.Segment]

        public init(id: String, toolName: String, segments: [Transcript.Segment]) {
            self.id = id
            self.toolName = toolName
            self.segments = segments
        }

        public var description: String { "\(toolName) output: " + segments.renderedText }
    }

    /// A response from the model.
    public struct Response: Sendable, Identifiable, Equatable, CustomStringConvertible {
        public var id: String
        /// Identifiers of the model assets that produced the response (the GGUF file name here).
        public var assetIDs: [String]
        public var segments: [Transcript.Segment]

        public init(id: String = UUID().uuidString, assetIDs: [String], segments: [Transcript.Segment]) {
            self.id = id
            self.assetIDs = assetIDs
            self.segments = segments
        }

        public var description: String { "Response: " + segments.renderedText }
    }

    /// Reasoning the model produced before responding.
    public struct Reasoning: Sendable, Identifiable, Equatable, CustomStringConvertible {
        public var id: String
        public var segments: [Transcript.Segment]

        public init(id: String = UUID().uuidString, segments: [Transcript.Segment]) {
            self.id = id
            self.segments = segments
        }

        public var description: String { "Reasoning: " + segments.renderedText }
    }
}

extension Array where Element == Transcript.Segment {
    /// What a chat template sees for these segments: texts as they are, structures as JSON,
    /// one segment per line.
    package var renderedText: String {
        map { segment in
            switch segment {
            case .text(let text): text.content
            case .structure(let structure): structure.content.jsonString
            }
        }.joined(separator: "\n")
    }
}
