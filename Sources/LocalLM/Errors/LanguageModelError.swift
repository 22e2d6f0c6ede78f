import Foundation

/// A failure that may occur while generating a response with any language model (the 2026 API).
///
/// Executors (`LanguageModelExecutor`) throw these; the session converts them to
/// `LanguageModelSession.GenerationError` before they reach `respond`'s caller:
///
/// | LanguageModelError             | GenerationError              |
/// |--------------------------------|------------------------------|
/// | `contextSizeExceeded`          | `exceededContextWindowSize`  |
/// | `rateLimited`                  | `rateLimited`                |
/// | `refusal`                      | `refusal`                    |
/// | `guardrailViolation`           | `guardrailViolation`         |
/// | `unsupportedLanguageOrLocale`  | `unsupportedLanguageOrLocale`|
/// | `unsupportedGenerationGuide`   | `unsupportedGuide`           |
/// | `decodingFailure`              | `decodingFailure`            |
/// | `assetsUnavailable`            | `assetsUnavailable`          |
///
/// `unsupportedCapability` has no 2025 counterpart and reaches the caller as it is.
public enum LanguageModelError: Error, LocalizedError {
    /// The session's transcript exceeded the model's context size.
    case contextSizeExceeded(ContextSizeExceeded)
    /// The session has been rate limited.
    case rateLimited(RateLimited)
    /// The model refused to answer.
    case refusal(Refusal)
    /// The model's safety guardrails were triggered.
    case guardrailViolation(GuardrailViolation)
    /// The model was prompted in a language it does not support.
    case unsupportedLanguageOrLocale(UnsupportedLanguageOrLocale)
    /// An unsupported generation guide was used.
    case unsupportedGenerationGuide(UnsupportedGenerationGuide)
    /// The model's output could not be decoded into the requested type.
    case decodingFailure(DecodingFailure)
    /// The model's assets could not be loaded.
    case assetsUnavailable(AssetsUnavailable)
    /// The request needs a capability the model does not have (tools, a schema, reasoning).
    case unsupportedCapability(UnsupportedCapability)

    /// Information about a capability a request needed and the model lacks.
    public struct UnsupportedCapability: Sendable {
        /// The capability that the model doesn't support.
        public var capability: LanguageModelCapabilities.Capability
        public var debugDescription: String
        public var metadata: [String: any Sendable]

        public init(capability: LanguageModelCapabilities.Capability, debugDescription: String, metadata: [String: any Sendable] = [:]) {
            self.capability = capability
            self.debugDescription = debugDescription
            self.metadata = metadata
        }
    }

    /// Information about exceeding the context window size.
    public struct ContextSizeExceeded: Sendable {
        /// The model's maximum context size, in tokens.
        public var contextSize: Int
        /// The number of tokens the request needed.
        public var tokenCount: Int
        public var debugDescription: String
        public var metadata: [String: any Sendable]

        public init(contextSize: Int, tokenCount: Int, debugDescription: String, metadata: [String: any Sendable] = [:]) {
            self.contextSize = contextSize
            self.tokenCount = tokenCount
            self.debugDescription = debugDescription
            self.metadata = metadata
        }
    }

    /// Information about a rate limiting event.
    public struct RateLimited: Sendable {
        public var debugDescription: String
        public var metadata: [String: any Sendable]

        public init(debugDescription: String, metadata: [String: any Sendable] = [:]) {
            self.debugDescription = debugDescription
            self.metadata = metadata
        }
    }

    /// Information about a model refusal.
    public struct Refusal: Sendable {
        /// The model's explanation, when it gave one.
        public var explanation: String
        public var debugDescription: String
        public var metadata: [String: any Sendable]

        public init(explanation: String, debugDescription: String, metadata: [String: any Sendable] = [:]) {
            self.explanation = explanation
            self.debugDescription = debugDescription
            self.metadata = metadata
        }
    }

    /// Information about a guardrail violation.
    public struct GuardrailViolation: Sendable {
        public var debugDescription: String
        public var metadata: [String: any Sendable]

        public init(debugDescription: String, metadata: [String: any Sendable] = [:]) {
            self.debugDescription = debugDescription
            self.metadata = metadata
        }
    }

    /// Information about an unsupported language or locale.
    public struct UnsupportedLanguageOrLocale: Sendable {
        public var debugDescription: String
        public var metadata: [String: any Sendable]

        public init(debugDescription: String, metadata: [String: any Sendable] = [:]) {
            self.debugDescription = debugDescription
            self.metadata = metadata
        }
    }

    /// Information about an unsupported generation guide.
    public struct UnsupportedGenerationGuide: Sendable {
        /// The schema that holds the guide.
        public var schemaName: String?
        public var debugDescription: String
        public var metadata: [String: any Sendable]

        public init(schemaName: String?, debugDescription: String, metadata: [String: any Sendable] = [:]) {
            self.schemaName = schemaName
            self.debugDescription = debugDescription
            self.metadata = metadata
        }
    }

    /// Information about output that could not be decoded.
    public struct DecodingFailure: Sendable {
        public var debugDescription: String
        public var metadata: [String: any Sendable]

        public init(debugDescription: String, metadata: [String: any Sendable] = [:]) {
            self.debugDescription = debugDescription
            self.metadata = metadata
        }
    }

    /// Information about model assets that could not be loaded.
    public struct AssetsUnavailable: Sendable {
        public var debugDescription: String
        public var metadata: [String: any Sendable]

        public init(debugDescription: String, metadata: [String: any Sendable] = [:]) {
            self.debugDescription = debugDescription
            self.metadata = metadata
        }
    }

    public var errorDescription: String? {
        if case .unsupportedCapability(let info) = self { return "The model lacks a capability the request needs: \(info.debugDescription)" }
        return generationError.errorDescription
    }
}

extension LanguageModelError {
    /// The 2025 error this maps to (see the table on `LanguageModelError`).
    package var generationError: LanguageModelSession.GenerationError {
        typealias GE = LanguageModelSession.GenerationError
        switch self {
        case .contextSizeExceeded(let info):
            return .exceededContextWindowSize(GE.Context(debugDescription: info.debugDescription, underlyingError: underlyingError))
        case .rateLimited(let info):
            return .rateLimited(GE.Context(debugDescription: info.debugDescription, underlyingError: underlyingError))
        case .refusal(let info):
            return .refusal(GE.Refusal(transcriptEntries: []), GE.Context(debugDescription: info.debugDescription, underlyingError: underlyingError))
        case .guardrailViolation(let info):
            return .guardrailViolation(GE.Context(debugDescription: info.debugDescription, underlyingError: underlyingError))
        case .unsupportedLanguageOrLocale(let info):
            return .unsupportedLanguageOrLocale(GE.Context(debugDescription: info.debugDescription, underlyingError: underlyingError))
        case .unsupportedGenerationGuide(let info):
            return .unsupportedGuide(GE.Context(debugDescription: info.debugDescription, underlyingError: underlyingError))
        case .decodingFailure(let info):
            return .decodingFailure(GE.Context(debugDescription: info.debugDescription, underlyingError: underlyingError))
        case .assetsUnavailable(let info):
            return .assetsUnavailable(GE.Context(debugDescription: info.debugDescription, underlyingError: underlyingError))
        case .unsupportedCapability(let info):
            // Not reached from `respond` (the session throws this error as it is); for code that
            // asks anyway, the nearest 2025 error.
            return .assetsUnavailable(GE.Context(debugDescription: info.debugDescription, underlyingError: underlyingError))
        }
    }
}
