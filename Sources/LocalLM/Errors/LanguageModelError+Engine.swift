import LocalLMEngine

extension LanguageModelError {
    /// The key under which an error's info `metadata` holds the typed error that caused it (a
    /// `RuntimeError`, `GrammarError`, `JinjaError`, …); ``underlyingError`` reads it.
    public static let underlyingErrorKey = "underlyingError"

    /// The key under which a `decodingFailure`'s `metadata` holds the text of a tool call the model
    /// opened and did not close within the token budget (a `String`).
    public static let partialToolCallKey = "partialToolCall"

    /// The typed error from a lower layer that this error reports, if there is one: for example the
    /// `GrammarError` behind an `unsupportedGenerationGuide` or the `RuntimeError` behind a
    /// `decodingFailure`.
    public var underlyingError: (any Error & Sendable)? {
        let metadata: [String: any Sendable] =
            switch self {
            case .contextSizeExceeded(let info): info.metadata
            case .rateLimited(let info): info.metadata
            case .refusal(let info): info.metadata
            case .guardrailViolation(let info): info.metadata
            case .unsupportedLanguageOrLocale(let info): info.metadata
            case .unsupportedGenerationGuide(let info): info.metadata
            case .decodingFailure(let info): info.metadata
            case .assetsUnavailable(let info): info.metadata
            case .unsupportedCapability(let info): info.metadata
            }
        return metadata[Self.underlyingErrorKey] as? any Error & Sendable
    }

    /// The documented error for what the engine reports (Docs/errors.md):
    ///
    /// | EngineError          | LanguageModelError            | underlyingError     |
    /// |----------------------|-------------------------------|---------------------|
    /// | `contextFull`        | `contextSizeExceeded`         | the `EngineError`   |
    /// | `unsupportedModel`   | `assetsUnavailable`           | `RuntimeError`      |
    /// | `grammar`            | `unsupportedGenerationGuide`  | `GrammarError`      |
    /// | `template`           | `decodingFailure`             | the template's error|
    /// | `runtime`            | `decodingFailure`             | `RuntimeError`      |
    /// | `noAllowedToken`     | `decodingFailure`             | the `EngineError`   |
    /// | `malformedToolCall`  | `decodingFailure`             | the `EngineError`   |
    /// | `incompleteToolCall` | `decodingFailure` (metadata `partialToolCall`: the call's text) | the `EngineError` |
    package init(_ error: EngineError, schemaName: String? = nil) {
        let underlying: any Error & Sendable =
            switch error {
            case .unsupportedModel(_, let cause), .runtime(let cause): cause
            case .grammar(let cause): cause
            case .template(let cause): cause
            case .contextFull, .noAllowedToken, .malformedToolCall, .incompleteToolCall: error
            }
        var metadata: [String: any Sendable] = [Self.underlyingErrorKey: underlying]
        if case .incompleteToolCall(let partial, _) = error { metadata[Self.partialToolCallKey] = partial }
        switch error {
        case .contextFull(let contextSize, let tokenCount, let detail):
            self = .contextSizeExceeded(
                .init(contextSize: contextSize, tokenCount: tokenCount, debugDescription: detail, metadata: metadata))
        case .unsupportedModel:
            self = .assetsUnavailable(.init(debugDescription: error.description, metadata: metadata))
        case .grammar:
            self = .unsupportedGenerationGuide(
                .init(schemaName: schemaName, debugDescription: error.description, metadata: metadata))
        case .runtime, .noAllowedToken, .template, .malformedToolCall, .incompleteToolCall:
            self = .decodingFailure(.init(debugDescription: error.description, metadata: metadata))
        }
    }
}
