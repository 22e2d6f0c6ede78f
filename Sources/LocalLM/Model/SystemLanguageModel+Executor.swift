import Foundation
import LocalLMEngine
import Logging

extension SystemLanguageModel {
    /// Runs requests on a local GGUF model. One executor per session: it owns the session's
    /// conversation (KV cache) on the shared, lazily loaded engine.
    public struct Executor: LanguageModelExecutor {
        public typealias Model = SystemLanguageModel

        /// Which loaded model the executor runs on.
        public struct Configuration: Sendable, Hashable {
            package let engineKey: EngineKey
        }

        private let engineKey: EngineKey
        private let conversation = Locked<GGUFConversation?>(nil)
        private let logger: Logger

        public init(configuration: Configuration) throws {
            engineKey = configuration.engineKey
            var logger = LogHandlerOverride.logger(label: "LocalLM.engine")
            logger[metadataKey: "model"] = "\(URL(fileURLWithPath: configuration.engineKey.path).lastPathComponent)"
            self.logger = logger
        }

        /// This session's conversation, loading the model on first use.
        private func currentConversation() throws -> GGUFConversation {
            if let existing = conversation.withLock({ $0 }) { return existing }
            let engine: GGUFEngine
            do {
                engine = try EngineRegistry.shared.engine(for: engineKey)
            } catch {
                throw LanguageModelError.assetsUnavailable(
                    LanguageModelError.AssetsUnavailable(debugDescription: "cannot load \(engineKey.path): \(error)"))
            }
            let made = GGUFConversation(engine: engine, logger: logger)
            return conversation.withLock { slot in
                if let slot { return slot }
                slot = made
                return made
            }
        }

        public func prewarm(model: SystemLanguageModel, transcript: Transcript) {
            let logger = self.logger
            // Prewarming is a hint: it loads weights and prefills the instructions off the caller's
            // task; a failure here shows up again, as an error, at the first request.
            guard let conversation = try? currentConversation() else { return }
            Task.detached(priority: .utility) {
                do {
                    try conversation.prewarm(transcript: transcript)
                } catch {
                    logger.debug("prewarm failed", metadata: ["error": "\(error)"])
                }
            }
        }

        /// Forgets the tokens cached from earlier requests, so the next request evaluates its whole
        /// prompt (the server does this for requests with a `seed`, to make them repeatable).
        package func discardCachedPrefix() async {
            guard let conversation = conversation.withLock({ $0 }) else { return }
            await conversation.discardCache()
        }

        public func respond(
            to request: LanguageModelExecutorGenerationRequest, model: SystemLanguageModel,
            streamingInto channel: LanguageModelExecutorGenerationChannel
        ) async throws {
            try await currentConversation().respond(to: request, streamingInto: channel)
        }
    }
}

extension SystemLanguageModel {
    private func loadedEngine() throws -> GGUFEngine {
        do {
            return try EngineRegistry.shared.engine(for: engineKey)
        } catch {
            throw LanguageModelSession.GenerationError.assetsUnavailable(
                .init(debugDescription: "cannot load \(url.path): \(error)"))
        }
    }

    /// The context window in tokens: the configured size, else the model's training context
    /// capped at 4096. Loads the model if needed; 0 when it cannot be loaded.
    public var contextSize: Int {
        (try? loadedEngine().contextSize) ?? 0
    }

    /// The number of tokens a prompt takes, as the chat template renders it.
    public func tokenCount(for prompt: Prompt) async throws -> Int {
        try loadedEngine().tokenCount(of: Transcript(entries: [.prompt(Transcript.Prompt(segments: prompt.segments))]))
    }

    /// The number of tokens instructions take, as the chat template renders them.
    public func tokenCount(for instructions: Instructions) async throws -> Int {
        try loadedEngine().tokenCount(
            of: Transcript(entries: [.instructions(Transcript.Instructions(segments: instructions.segments, toolDefinitions: []))]))
    }

    /// The number of tokens of plain text.
    public func tokenCount(for text: String) async throws -> Int {
        try loadedEngine().tokenCount(of: text)
    }

    /// The number of tokens transcript entries take, as the chat template renders them.
    public func tokenCount(for entries: some Sequence<Transcript.Entry>) async throws -> Int {
        try loadedEngine().tokenCount(of: Transcript(entries: entries))
    }

    /// The number of tokens the definitions of tools take in the instructions.
    public func tokenCount(for tools: [any Tool]) async throws -> Int {
        let engine = try loadedEngine()
        let withTools = Transcript(entries: [
            .instructions(Transcript.Instructions(segments: [], toolDefinitions: tools.map { Transcript.ToolDefinition(tool: $0) }))
        ])
        let without = Transcript(entries: [.instructions(Transcript.Instructions(segments: [], toolDefinitions: []))])
        return try engine.tokenCount(of: withTools) - engine.tokenCount(of: without)
    }

    /// The number of tokens a schema takes when described in a prompt.
    public func tokenCount(for schema: GenerationSchema) async throws -> Int {
        try loadedEngine().tokenCount(of: schema.canonicalJSON)
    }
}
