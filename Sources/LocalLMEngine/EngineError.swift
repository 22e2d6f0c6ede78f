import LocalLMGrammar
import LocalLMRuntime

/// Why the engine could not load a model or finish a generation. The API layer maps each case to a
/// documented `LanguageModelError` / `LanguageModelSession.GenerationError`, keeping this value as
/// the underlying error.
package enum EngineError: Error, Sendable, CustomStringConvertible {
    /// The model file cannot run with this runtime (architecture, quantization, missing tensor).
    case unsupportedModel(file: String, RuntimeError)
    /// The prompt (plus the response budget) or the response does not fit in the context window.
    case contextFull(contextSize: Int, tokenCount: Int, detail: String)
    /// The runtime failed while evaluating tokens.
    case runtime(RuntimeError)
    /// The grammar allowed no token (or refused every token the sampler chose).
    case noAllowedToken
    /// A schema or tool-call grammar could not be compiled.
    case grammar(GrammarError)
    /// The model's chat template failed to render the conversation (a `JinjaError`, or the
    /// renderer's own error naming it).
    case template(any Error & Sendable)
    /// The model opened a tool call whose JSON is not `{"name": …, "arguments": …}`.
    case malformedToolCall(String)
    /// The model opened a tool call and the token budget or the context ran out before it closed;
    /// `partial` is the call's text so far.
    case incompleteToolCall(partial: String, detail: String)

    package var description: String {
        switch self {
        case .unsupportedModel(let file, let error): "\(file): \(error)"
        case .contextFull(_, _, let detail): detail
        case .runtime(let error): "runtime: \(error)"
        case .noAllowedToken: "no token satisfies the grammar"
        case .grammar(let error): "grammar: \(error)"
        case .template(let error): "chat template: \(error)"
        case .malformedToolCall(let text): "malformed tool call \(text)"
        case .incompleteToolCall(let partial, let detail): "\(detail): \(partial)"
        }
    }
}
