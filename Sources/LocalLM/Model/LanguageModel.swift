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

    /// What the model can do. A request that needs more fails with
    /// `LanguageModelError.unsupportedCapability` before the executor runs. The default is tool
    /// calling and guided generation.
    var capabilities: LanguageModelCapabilities { get }
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

    /// How much the model may reason before it answers; `nil` leaves it to the model.
    public var reasoningLevel: ReasoningLevel?

    public init(includeSchemaInPrompt: Bool? = nil, reasoningLevel: ReasoningLevel? = nil) {
        self.includeSchemaInPrompt = includeSchemaInPrompt
        self.reasoningLevel = reasoningLevel
    }

    /// How much reasoning the model may output before it produces a response.
    ///
    /// On a GGUF model whose chat template has a thinking switch (Qwen3's `enable_thinking`), every
    /// level turns thinking on, and `.custom("none")` (or `"off"`) turns it off; `nil` keeps the
    /// template's default. The switch has no degrees, so `.light`, `.moderate` and `.deep` differ
    /// only on models that tell them apart.
    public enum ReasoningLevel: Sendable, Hashable, CustomStringConvertible {
        /// Light reasoning, for quick responses.
        case light
        /// A moderate amount of reasoning.
        case moderate
        /// Deep reasoning, for more analysis.
        case deep
        /// A level the other cases do not name.
        case custom(String)

        public var description: String {
            switch self {
            case .light: "light"
            case .moderate: "moderate"
            case .deep: "deep"
            case .custom(let name): name
            }
        }
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
    /// Whether a tool call that repeats one made earlier in the same reply (same tool, same
    /// arguments) ends the reply there, without it (the session's `endsRepeatedToolCalls`).
    public var endsRepeatedToolCalls: Bool

    public init(
        id: UUID = UUID(), transcript: Transcript, generationOptions: GenerationOptions = GenerationOptions(),
        contextOptions: ContextOptions = ContextOptions(), schema: GenerationSchema? = nil, endsRepeatedToolCalls: Bool = false
    ) {
        self.id = id
        self.transcript = transcript
        self.generationOptions = generationOptions
        self.contextOptions = contextOptions
        self.schema = schema
        self.endsRepeatedToolCalls = endsRepeatedToolCalls
    }

    /// The tools offered in the transcript's instructions.
    public var toolDefinitions: [Transcript.ToolDefinition] {
        for entry in transcript {
            if case .instructions(let instructions) = entry { return instructions.toolDefinitions }
        }
        return []
    }
}
