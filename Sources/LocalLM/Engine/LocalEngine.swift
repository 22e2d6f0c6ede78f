import Foundation
import Logging
import Synchronization

/// A loaded local model: weights, tokenizer and chat template, immutable and shared by every
/// session that uses the model.
package protocol LocalEngine: Sendable {
    /// The context window in tokens.
    var contextSize: Int { get }
    /// Language codes from the file's metadata, if it lists any.
    var languages: [String]? { get }
    /// Number of tokens the transcript takes once rendered with the chat template.
    func tokenCount(of transcript: Transcript) throws -> Int
    /// Number of tokens of plain text.
    func tokenCount(of text: String) throws -> Int
    /// A new conversation: the per-session state (KV cache, sampler scratch).
    func makeConversation(logger: Logger) throws -> any LocalConversation
}

/// One session's state on a local engine. It renders each request's transcript, reuses the KV
/// cache for the longest common token prefix with what it already holds, and prefills the rest.
package protocol LocalConversation: Sendable {
    func respond(
        to request: LanguageModelExecutorGenerationRequest, streamingInto channel: LanguageModelExecutorGenerationChannel
    ) async throws
    func prewarm(transcript: Transcript) throws
}

/// The model file cannot run on this machine or with this build (architecture, quantization).
package struct UnsupportedModel: Error, CustomStringConvertible {
    package let description: String
    package init(_ description: String) { self.description = description }
}

/// Process-wide table of loaded models, so each file + configuration is loaded once.
package final class EngineRegistry: Sendable {
    package static let shared = EngineRegistry()

    /// Loads a model. The GGUF runtime sets this; tests may replace it.
    package let loader: Mutex<@Sendable (EngineKey) throws -> any LocalEngine> = Mutex(defaultEngineLoader)

    private final class Slot: Sendable {
        let result = Mutex<Result<any LocalEngine, any Error>?>(nil)
    }

    private let slots = Mutex<[EngineKey: Slot]>([:])

    private func slot(for key: EngineKey) -> Slot {
        slots.withLock { slots in
            if let slot = slots[key] { return slot }
            let slot = Slot()
            slots[key] = slot
            return slot
        }
    }

    /// The loaded engine, loading it on first use. Concurrent first users wait for one load.
    package func engine(for key: EngineKey) throws -> any LocalEngine {
        let slot = slot(for: key)
        let load = loader.withLock { $0 }
        return try slot.result.withLock { result in
            if let result { return try result.get() }
            let loaded = Result { try load(key) }
            result = loaded
            return try loaded.get()
        }
    }

    /// The engine if it is already loaded.
    package func loadedEngine(for key: EngineKey) -> (any LocalEngine)? {
        let slot = slots.withLock { $0[key] }
        return slot?.result.withLock { try? $0?.get() }
    }

    /// The error of a load that failed, if one did.
    package func loadFailure(for key: EngineKey) -> (any Error)? {
        let slot = slots.withLock { $0[key] }
        return slot?.result.withLock { result -> (any Error)? in
            if case .failure(let error) = result { return error }
            return nil
        }
    }
}
