import Foundation

/// A model a session can run on (the 2026 API). The type is light: it describes the model and
/// provides the configuration from which the framework makes an `Executor`, which does the work.
///
/// `SystemLanguageModel` (a local GGUF file on our own runtime) is one implementation; another
/// backend implements this protocol and its executor, and sessions run on it unchanged:
/// `LanguageModelSession(model: MyModel())`.
public protocol LanguageModel: Sendable {
    /// The executor type that runs this model.
    associatedtype Executor: LanguageModelExecutor where Executor.Model == Self

    /// A configuration for an executor capable of running this model.
    var executorConfiguration: Executor.Configuration { get }
}

/// The bridge between the framework's types and what actually produces tokens.
///
/// The framework makes one executor per session from the model's `executorConfiguration`, so an
/// executor may keep per-conversation state (a KV cache) between requests. For every request it
/// receives the whole transcript (instructions, history, the new prompt, tool outputs) and streams
/// the next entry back through the channel: text deltas for a response, or tool calls.
public protocol LanguageModelExecutor: Sendable {
    /// The model type this executor processes requests for.
    associatedtype Model: LanguageModel
    /// What the executor is made from.
    associatedtype Configuration: Hashable, Sendable

    /// Creates an executor from a configuration.
    init(configuration: Configuration) throws

    /// Loads assets or pre-fills caches ahead of a request. The default does nothing.
    func prewarm(model: Model, transcript: Transcript)

    /// Generates the next transcript entry for `request.transcript`, streaming it into `channel`.
    /// Throws `LanguageModelError` for model failures and `CancellationError` when the task is cancelled.
    func respond(
        to request: LanguageModelExecutorGenerationRequest, model: Model,
        streamingInto channel: LanguageModelExecutorGenerationChannel
    ) async throws
}

extension LanguageModelExecutor {
    public func prewarm(model: Model, transcript: Transcript) {}
}

/// Preferences about how the prompt is built, as opposed to how tokens are sampled.
public struct ContextOptions: Sendable, Equatable {
    /// Whether the response schema is described in the prompt as well as enforced while decoding.
    public var includeSchemaInPrompt: Bool?

    public init(includeSchemaInPrompt: Bool? = nil) {
        self.includeSchemaInPrompt = includeSchemaInPrompt
    }
}

/// One request from a session to an executor.
public struct LanguageModelExecutorGenerationRequest: Sendable {
    /// A unique identifier of the request.
    public var id: UUID
    /// The transcript to generate the next entry for; it ends with a prompt or tool outputs.
    public var transcript: Transcript
    /// Sampling, temperature, response budget and tool calling mode.
    public var generationOptions: GenerationOptions
    /// How the prompt is built.
    public var contextOptions: ContextOptions
    /// The schema a response must follow, or `nil` for free text.
    public var schema: GenerationSchema?

    public init(
        id: UUID = UUID(), transcript: Transcript, generationOptions: GenerationOptions = GenerationOptions(),
        contextOptions: ContextOptions = ContextOptions(), schema: GenerationSchema? = nil
    ) {
        self.id = id
        self.transcript = transcript
        self.generationOptions = generationOptions
        self.contextOptions = contextOptions
        self.schema = schema
    }

    /// The tools offered in the transcript's instructions.
    public var toolDefinitions: [Transcript.ToolDefinition] {
        for entry in transcript {
            if case .instructions(let instructions) = entry { return instructions.toolDefinitions }
        }
        return []
    }
}
