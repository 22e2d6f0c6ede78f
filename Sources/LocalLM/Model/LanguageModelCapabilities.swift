/// What a language model can do: call tools, follow a generation schema, reason apart from its
/// response. A session checks a request against its model's capabilities before the model runs,
/// and throws `LanguageModelError.unsupportedCapability` for one the model lacks.
///
/// ```swift
/// if model.capabilities.contains(.guidedGeneration) { … }
/// ```
public struct LanguageModelCapabilities: Sendable, Hashable {
    /// One capability a model may or may not have.
    public struct Capability: Sendable, Hashable, CustomStringConvertible {
        package let name: String

        /// Making tool calls that the session runs and feeds back.
        public static var toolCalling: Capability { Capability(name: "toolCalling") }
        /// Producing output that conforms to a generation schema.
        public static var guidedGeneration: Capability { Capability(name: "guidedGeneration") }
        /// Reasoning, kept apart from the response.
        public static var reasoning: Capability { Capability(name: "reasoning") }

        public var description: String { name }
    }

    private let capabilities: Set<Capability>

    /// Capabilities from a list.
    public init(_ capabilities: [Capability]) {
        self.capabilities = Set(capabilities)
    }

    /// Whether the model has `capability`.
    public func contains(_ capability: Capability) -> Bool {
        capabilities.contains(capability)
    }
}

extension LanguageModel {
    /// Tool calling and guided generation: what a model gets unless it declares its own. A model
    /// that reasons declares `.reasoning` as well.
    public var capabilities: LanguageModelCapabilities {
        LanguageModelCapabilities([.toolCalling, .guidedGeneration])
    }
}

extension LanguageModelSession {
    /// Throws `unsupportedCapability` when `request` needs what the session's model cannot do:
    /// tools it may call, a response schema, or a reasoning level.
    package static func checkCapabilities(
        of request: LanguageModelExecutorGenerationRequest, tools: [any Tool], on executor: AnyLanguageModelExecutor
    ) throws {
        let capabilities = executor.capabilities()
        var needed: [(LanguageModelCapabilities.Capability, String)] = []
        if !tools.isEmpty && request.generationOptions.toolCallingMode != .disallowed {
            needed.append((.toolCalling, "the request offers tools"))
        }
        if let schema = request.schema { needed.append((.guidedGeneration, "the response must follow the schema '\(schema.schemaName)'")) }
        if let level = request.contextOptions.reasoningLevel { needed.append((.reasoning, "the request sets reasoning level \(level)")) }
        for (capability, why) in needed where !capabilities.contains(capability) {
            throw LanguageModelError.unsupportedCapability(.init(
                capability: capability,
                debugDescription: "\(why), but \(executor.modelName) does not support \(capability)"))
        }
    }
}
