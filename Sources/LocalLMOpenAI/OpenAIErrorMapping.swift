import Foundation
import LocalLM
import LocalLMOpenAIWire

/// HTTP failures as the documented `LanguageModelError` cases, the `OpenAIEndpointError` kept as
/// `underlyingError`:
///
/// | the endpoint answered | `LanguageModelError` |
/// |---|---|
/// | 429, or `rate_limit_exceeded` / `insufficient_quota` | `.rateLimited` |
/// | `context_length_exceeded`, or a 400 whose message speaks of the context window | `.contextSizeExceeded` |
/// | 400 about `response_format` or a schema | `.unsupportedGenerationGuide` |
/// | 401, 403 (bad or missing API key), 404 (unknown model), 5xx, no connection | `.assetsUnavailable` |
/// | any other 4xx, or a body that is not the chat-completions format | `.decodingFailure` |
/// | a `refusal` in the answer | `.refusal` |
enum OpenAIErrorMapping {
    static func http(status: Int, body: String, schemaName: String?) -> LanguageModelError {
        let detail = try? JSONDecoder().decode(ErrorResponse.self, from: Data(body.utf8)).error
        return error(status: status, detail: detail, body: body, schemaName: schemaName)
    }

    static func error(status: Int, detail: ErrorResponse.Detail?, body: String, schemaName: String?) -> LanguageModelError {
        let underlying = OpenAIEndpointError(kind: .http(status: status), error: detail, detail: String(body.prefix(2000)), transportError: nil)
        let metadata: [String: any Sendable] = [LanguageModelError.underlyingErrorKey: underlying]
        let message = underlying.description
        let code = detail?.code ?? ""
        let lowered = (detail?.message ?? body).lowercased()
        if status == 429 || code == "rate_limit_exceeded" || code == "insufficient_quota" {
            return .rateLimited(.init(debugDescription: message, metadata: metadata))
        }
        if code == "context_length_exceeded"
            || (status == 400 && (lowered.contains("context length") || lowered.contains("context window")
                || lowered.contains("maximum context") || lowered.contains("exceed context")))
        {
            let counts = tokenCounts(in: detail?.message ?? body)
            return .contextSizeExceeded(.init(
                contextSize: counts.contextSize, tokenCount: counts.tokenCount, debugDescription: message, metadata: metadata))
        }
        if status == 400 && (detail?.param == "response_format" || lowered.contains("schema")) {
            return .unsupportedGenerationGuide(.init(schemaName: schemaName, debugDescription: message, metadata: metadata))
        }
        if status == 401 || status == 403 || status == 404 || status >= 500 {
            return .assetsUnavailable(.init(debugDescription: message, metadata: metadata))
        }
        return .decodingFailure(.init(debugDescription: message, metadata: metadata))
    }

    static func transport(_ error: any Error) -> LanguageModelError {
        let underlying = OpenAIEndpointError(kind: .transport, error: nil, detail: "\(error)", transportError: error)
        return .assetsUnavailable(.init(
            debugDescription: underlying.description, metadata: [LanguageModelError.underlyingErrorKey: underlying]))
    }

    static func malformed(_ detail: String) -> LanguageModelError {
        let underlying = OpenAIEndpointError(kind: .malformedResponse, error: nil, detail: detail, transportError: nil)
        return .decodingFailure(.init(
            debugDescription: underlying.description, metadata: [LanguageModelError.underlyingErrorKey: underlying]))
    }

    /// The two numbers servers put in a context error ("… 5000 tokens … context of 4096"): the larger
    /// is the request, the smaller the window. 0 when the message has none.
    private static func tokenCounts(in message: String) -> (contextSize: Int, tokenCount: Int) {
        let numbers = message.split(whereSeparator: { !$0.isNumber }).compactMap { Int($0) }.filter { $0 > 0 }
        guard numbers.count >= 2 else { return (0, numbers.first ?? 0) }
        let pair = numbers.suffix(2)
        return (pair.min() ?? 0, pair.max() ?? 0)
    }
}
