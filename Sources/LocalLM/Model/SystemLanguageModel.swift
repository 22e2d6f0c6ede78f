import Foundation
import LocalLMEngine

/// A language model that runs on this machine: a GGUF file executed by LocalLM's own runtime.
///
/// `SystemLanguageModel.default` is the model named by the `LOCALLM_MODEL` environment variable,
/// else `~/.cache/locallm/models/SmolLM2-135M-Instruct.Q4_1.gguf` (what `scripts/fetch-models.sh`
/// fetches). Any other GGUF loads with `SystemLanguageModel(contentsOf:configuration:)`.
///
/// Weights load lazily, once, on the first request (or `prewarm`), and every session and every
/// `SystemLanguageModel` value that names the same file and configuration shares them; each
/// session keeps only its own KV cache.
public final class SystemLanguageModel: LanguageModel, Sendable {
    /// How a GGUF model is run.
    public struct Configuration: Sendable, Hashable {
        /// Context window in tokens; `nil` uses the model's training context, capped at 4096.
        public var contextSize: Int?
        /// Worker threads for matrix products; `nil` uses every core.
        public var threads: Int?
        /// Element type of the KV cache.
        public var kvCacheType: KVCacheType

        public init(contextSize: Int? = nil, threads: Int? = nil, kvCacheType: KVCacheType = .f16) {
            self.contextSize = contextSize
            self.threads = threads
            self.kvCacheType = kvCacheType
        }
    }

    /// Element type of the KV cache.
    public enum KVCacheType: String, Sendable, Hashable, CaseIterable {
        case f32, f16
    }

    /// The file this model loads.
    public let url: URL
    /// How the model runs.
    public let configuration: Configuration
    /// The use case the model was created for. Local models treat every use case alike.
    public let useCase: UseCase
    /// The guardrails the model was created with. Local models have none to apply.
    public let guardrails: Guardrails

    /// The default model (see the type's documentation).
    public static let `default` = SystemLanguageModel(useCase: .general, guardrails: .default)

    /// The path `default` uses when `LOCALLM_MODEL` is not set.
    public static var defaultModelURL: URL {
        if let path = ProcessInfo.processInfo.environment["LOCALLM_MODEL"], !path.isEmpty {
            return URL(fileURLWithPath: (path as NSString).expandingTildeInPath)
        }
        return FileManager.default.homeDirectoryForCurrentUser
            .appendingPathComponent(".cache/locallm/models/SmolLM2-135M-Instruct.Q4_1.gguf")
    }

    /// The default model for a use case.
    public convenience init(useCase: UseCase = .general, guardrails: Guardrails = .default) {
        self.init(url: Self.defaultModelURL, configuration: Configuration(), useCase: useCase, guardrails: guardrails)
    }

    /// A GGUF model file, run with a configuration. Nothing is read until the model is used.
    public convenience init(contentsOf url: URL, configuration: Configuration = Configuration()) {
        self.init(url: url, configuration: configuration, useCase: .general, guardrails: .default)
    }

    private init(url: URL, configuration: Configuration, useCase: UseCase, guardrails: Guardrails) {
        self.url = url.standardizedFileURL
        self.configuration = configuration
        self.useCase = useCase
        self.guardrails = guardrails
    }

    /// The identifier transcripts record in `Transcript.Response.assetIDs`: the file name.
    package var assetID: String { url.lastPathComponent }

    /// What identifies shared weights: the file and how it runs.
    package var engineKey: EngineKey { EngineKey(path: url.path, configuration: configuration) }

    // MARK: LanguageModel

    public var executorConfiguration: Executor.Configuration { Executor.Configuration(engineKey: engineKey) }
}

/// Identifies one loaded model in the process-wide registry.
package struct EngineKey: Sendable, Hashable {
    package let path: String
    package let configuration: SystemLanguageModel.Configuration
}

extension SystemLanguageModel {
    /// What the model is for. Local models treat every use case alike.
    public struct UseCase: Sendable, Equatable {
        private let name: String

        /// General prompting.
        public static let general = UseCase(name: "general")
        /// Tagging and extracting content.
        public static let contentTagging = UseCase(name: "contentTagging")
    }

    /// Guardrails on input and output. Local models apply none; the type exists for source compatibility.
    public struct Guardrails: Sendable {
        private let name: String

        /// The default guardrails.
        public static let `default` = Guardrails(name: "default")
        /// Guardrails that allow transforming potentially unsafe text.
        public static let permissiveContentTransformations = Guardrails(name: "permissiveContentTransformations")
    }

    /// Whether the model can be used.
    public enum Availability: Equatable, Sendable {
        /// The model is ready.
        case available
        /// The model cannot be used, for a reason.
        case unavailable(UnavailableReason)

        /// Why the model is unavailable.
        public enum UnavailableReason: Equatable, Sendable {
            /// This machine cannot run the model (for example an unsupported architecture).
            case deviceNotEligible
            /// Kept for source compatibility; never reported by LocalLM.
            case appleIntelligenceNotEnabled
            /// The model file is missing, unreadable, or not a GGUF file.
            case modelNotReady
        }
    }

    /// Whether the model file is there and looks like a GGUF file. Cheap: reads four bytes.
    public var availability: Availability {
        if let failure = EngineRegistry.shared.loadFailure(for: engineKey) {
            if case EngineError.unsupportedModel? = failure as? EngineError { return .unavailable(.deviceNotEligible) }
            return .unavailable(.modelNotReady)
        }
        guard let handle = FileHandle(forReadingAtPath: url.path) else { return .unavailable(.modelNotReady) }
        defer { try? handle.close() }
        let magic = (try? handle.read(upToCount: 4)) ?? Data()
        return magic == Data("GGUF".utf8) ? .available : .unavailable(.modelNotReady)
    }

    /// Tool calling and guided generation, and reasoning when the chat template has a reasoning
    /// mode (`<think>` markers; Qwen3's, for one). Reading the template loads the model, as the
    /// first request would; a model that fails to load claims everything, so its requests fail
    /// with the load error rather than a capability error.
    public var capabilities: LanguageModelCapabilities {
        guard let engine = try? EngineRegistry.shared.engine(for: engineKey) else {
            return LanguageModelCapabilities([.toolCalling, .guidedGeneration, .reasoning])
        }
        return LanguageModelCapabilities(
            engine.renderer.reasoning == nil ? [.toolCalling, .guidedGeneration] : [.toolCalling, .guidedGeneration, .reasoning])
    }

    /// Whether `availability` is `.available`.
    public var isAvailable: Bool { availability == .available }

    /// The languages the model supports. GGUF files rarely say; LocalLM reports English unless
    /// the file lists `general.languages`.
    public var supportedLanguages: Set<Locale.Language> {
        let codes = EngineRegistry.shared.loadedEngine(for: engineKey)?.languages ?? ["en"]
        return Set(codes.map { Locale.Language(identifier: $0) })
    }

    /// Whether the model supports a locale's language.
    public func supportsLocale(_ locale: Locale = Locale.current) -> Bool {
        guard let code = locale.language.languageCode?.identifier else { return false }
        return supportedLanguages.contains { $0.languageCode?.identifier == code }
    }
}
