import Foundation

extension LanguageModelSession {
    /// An error that may occur while generating a response. This is what `respond` and
    /// `streamResponse` throw (besides `ToolCallError` and `CancellationError`); see `Docs/errors.md`
    /// for how the 2026 `LanguageModelError` and `LanguageModelSession.Error` map onto it.
    public enum GenerationError: Swift.Error, LocalizedError {
        /// The context the error happened in.
        public struct Context: Sendable {
            /// A description of the error for developers.
            public let debugDescription: String
            /// The typed error from a lower layer behind this one, if any (a `GrammarError`,
            /// `RuntimeError`, `JinjaError`, `GeneratedContentError`, …).
            public let underlyingError: (any Swift.Error & Sendable)?

            public init(debugDescription: String, underlyingError: (any Swift.Error & Sendable)? = nil) {
                self.debugDescription = debugDescription
                self.underlyingError = underlyingError
            }
        }

        /// A refusal by the model, from which an explanation can be asked.
        public struct Refusal: Sendable {
            /// The transcript entries of the refused request.
            package let transcriptEntries: [Transcript.Entry]

            public init(transcriptEntries: [Transcript.Entry]) {
                self.transcriptEntries = transcriptEntries
            }

            /// The model's explanation of why it refused.
            public var explanation: Response<String> {
                get async throws {
                    let session = LanguageModelSession(transcript: Transcript(entries: transcriptEntries))
                    return try await session.respond(to: "Explain briefly why you could not answer.")
                }
            }

            /// The model's explanation of why it refused, streamed.
            public var explanationStream: ResponseStream<String> {
                let session = LanguageModelSession(transcript: Transcript(entries: transcriptEntries))
                return session.streamResponse(to: "Explain briefly why you could not answer.")
            }
        }

        /// The instructions, history, prompt and response budget do not fit in the model's context.
        case exceededContextWindowSize(Context)
        /// The model's assets (the GGUF file) are missing or cannot be loaded.
        case assetsUnavailable(Context)
        /// A guardrail flagged the prompt or the response. Local models have no guardrails, so
        /// LocalLM never throws this; it exists so code written for Apple's models compiles.
        case guardrailViolation(Context)
        /// A generation guide that the engine cannot enforce (for example an unsupported regex).
        case unsupportedGuide(Context)
        /// The model does not support the prompt's language or locale.
        case unsupportedLanguageOrLocale(Context)
        /// The model's output could not be decoded into the requested type.
        case decodingFailure(Context)
        /// The session was rate limited. Never thrown by the local engine.
        case rateLimited(Context)
        /// `respond` was called on a session that is already responding.
        case concurrentRequests(Context)
        /// The model refused to answer.
        case refusal(Refusal, Context)

        /// The context of the error.
        package var context: Context {
            switch self {
            case .exceededContextWindowSize(let context), .assetsUnavailable(let context),
                .guardrailViolation(let context), .unsupportedGuide(let context),
                .unsupportedLanguageOrLocale(let context), .decodingFailure(let context),
                .rateLimited(let context), .concurrentRequests(let context), .refusal(_, let context):
                context
            }
        }

        public var errorDescription: String? {
            let what: String
            switch self {
            case .exceededContextWindowSize: what = "The conversation does not fit in the model's context window"
            case .assetsUnavailable: what = "The model's assets are unavailable"
            case .guardrailViolation: what = "A guardrail was triggered by the prompt or the response"
            case .unsupportedGuide: what = "A generation guide is not supported"
            case .unsupportedLanguageOrLocale: what = "The language or locale is not supported by the model"
            case .decodingFailure: what = "The model's output could not be decoded"
            case .rateLimited: what = "The session was rate limited"
            case .concurrentRequests: what = "The session is already responding to another request"
            case .refusal: what = "The model refused to answer"
            }
            let detail = context.debugDescription
            return detail.isEmpty ? what + "." : "\(what): \(detail)"
        }

        public var failureReason: String? { context.debugDescription }

        public var recoverySuggestion: String? {
            switch self {
            case .exceededContextWindowSize:
                "Start a new session with a shorter history, shorten the prompt, or lower maximumResponseTokens."
            case .assetsUnavailable:
                "Check that the GGUF file exists (LOCALLM_MODEL, or run scripts/fetch-models.sh)."
            case .concurrentRequests:
                "Wait for the current request to finish (see isResponding) or use another session."
            case .unsupportedGuide:
                "Remove or simplify the guide."
            case .decodingFailure:
                "Retry the request, or simplify the generated type."
            default:
                nil
            }
        }
    }
}
