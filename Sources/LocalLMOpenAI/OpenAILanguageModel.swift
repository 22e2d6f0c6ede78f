import AsyncHTTPClient
import Foundation
import LocalLM
import LocalLMJSON
import LocalLMOpenAIWire
import NIOCore

/// A language model served by any OpenAI-compatible endpoint: vLLM, SGLang, llama.cpp's server,
/// Ollama, `locallm serve`, or OpenAI itself.
///
/// ```swift
/// let model = OpenAILanguageModel(baseURL: "http://127.0.0.1:8080/v1", model: "qwen")
/// let session = LanguageModelSession(model: model, tools: [WeatherTool()])
/// ```
///
/// Sessions run on it unchanged: text streams as snapshots (server-sent events), tools are offered
/// as `tools` and the remote's `tool_calls` come back to the session, which runs them and sends
/// their output as `tool` messages; a response schema (`@Generable`) is sent as
/// `response_format: json_schema`. HTTP goes through AsyncHTTPClient (URLSession is unreliable on
/// Linux under concurrency). Failures are `LanguageModelError`s with the HTTP failure,
/// `OpenAIEndpointError`, reachable as `underlyingError` (Docs/scale-out.md lists the mapping).
public struct OpenAILanguageModel: LanguageModel, Hashable {
    /// The API root, e.g. `http://127.0.0.1:8080/v1`; requests go to `<baseURL>/chat/completions`.
    public var baseURL: String
    /// The `model` field of every request.
    public var model: String
    /// Sent as `Authorization: Bearer <apiKey>` when set.
    public var apiKey: String?
    /// The longest a whole request (including its stream) may take.
    public var timeout: Duration
    /// How the endpoint spells what the API leaves to servers.
    public var dialect: Dialect

    public init(
        baseURL: String, model: String, apiKey: String? = nil, timeout: Duration = .seconds(600), dialect: Dialect = .openAI
    ) {
        self.baseURL = baseURL
        self.model = model
        self.apiKey = apiKey
        self.timeout = timeout
        self.dialect = dialect
    }

    /// Where OpenAI-compatible servers differ.
    public struct Dialect: Sendable, Hashable {
        /// How a response schema is sent.
        public enum SchemaStyle: Sendable, Hashable {
            /// `{"type":"json_schema","json_schema":{"name":…,"schema":…,"strict":true}}`: OpenAI, vLLM,
            /// SGLang, llama.cpp's C++ server, Ollama, `locallm serve`.
            case jsonSchema
            /// `{"type":"json_object","schema":…}`: llama-cpp-python's server, which rejects `json_schema`.
            case jsonObjectWithSchema
        }

        public var schemaStyle: SchemaStyle
        /// Whether an assistant message that only calls tools is sent with `"content": ""` instead of
        /// OpenAI's `"content": null` (llama-cpp-python's server refuses null there: HTTP 500, "Input
        /// should be a valid string").
        public var emptyContentWithToolCalls: Bool

        public init(schemaStyle: SchemaStyle, emptyContentWithToolCalls: Bool = false) {
            self.schemaStyle = schemaStyle
            self.emptyContentWithToolCalls = emptyContentWithToolCalls
        }

        /// OpenAI's own spelling, which most servers follow.
        public static let openAI = Dialect(schemaStyle: .jsonSchema)
        /// llama-cpp-python's server (`python -m llama_cpp.server`).
        public static let llamaCppPython = Dialect(schemaStyle: .jsonObjectWithSchema, emptyContentWithToolCalls: true)
    }

    public var executorConfiguration: Executor.Configuration { Executor.Configuration(model: self) }

    /// Runs requests against the endpoint. It holds no conversation state: every request sends the
    /// whole transcript, as the chat-completions API expects.
    public struct Executor: LanguageModelExecutor {
        public typealias Model = OpenAILanguageModel

        public struct Configuration: Sendable, Hashable {
            let model: OpenAILanguageModel
        }

        private let configuration: Configuration

        public init(configuration: Configuration) throws {
            guard URL(string: configuration.model.baseURL)?.scheme != nil else {
                throw LanguageModelError.assetsUnavailable(.init(
                    debugDescription: "'\(configuration.model.baseURL)' is not a URL (expected e.g. http://127.0.0.1:8080/v1)"))
            }
            self.configuration = configuration
        }

        public func respond(
            to request: LanguageModelExecutorGenerationRequest, model: OpenAILanguageModel,
            streamingInto channel: LanguageModelExecutorGenerationChannel
        ) async throws {
            let body = try OpenAIRequestMapping.chatRequest(for: request, model: model.model, dialect: model.dialect)
            try await OpenAIStreamClient(model: model).stream(body, into: channel, schemaName: request.schema.map { _ in
                OpenAIRequestMapping.schemaName(request)
            })
        }
    }
}

/// What went wrong talking to an OpenAI-compatible endpoint: the `underlyingError` of the
/// `LanguageModelError` a session sees.
public struct OpenAIEndpointError: Error, Sendable, CustomStringConvertible {
    public enum Kind: Sendable, Equatable {
        /// The server answered with this HTTP status and, when it sent one, an OpenAI error object.
        case http(status: Int)
        /// The connection failed or broke (the transport error is `transportError`).
        case transport
        /// The server's answer was not the chat-completions format.
        case malformedResponse
    }

    public var kind: Kind
    /// The server's error object, if it sent one.
    public var error: ErrorResponse.Detail?
    /// The raw body or event that could not be read, or the transport error's description.
    public var detail: String
    public var transportError: (any Error & Sendable)?

    public var description: String {
        switch kind {
        case .http(let status):
            return "HTTP \(status): " + (error.map { $0.message + ($0.code.map { " (\($0))" } ?? "") } ?? detail)
        case .transport: return "cannot reach the endpoint: \(detail)"
        case .malformedResponse: return "the endpoint's response is not the chat-completions format: \(detail)"
        }
    }
}

/// One streamed request: POST, read the server-sent events, forward them to the session's channel.
struct OpenAIStreamClient {
    let model: OpenAILanguageModel
    /// Error bodies are small; a larger one is cut here (it is only for the message).
    static let maximumErrorBody = 64 * 1024
    /// One SSE line may hold a chunk of tool-call arguments; anything this long is not a chunk.
    static let maximumLine = 16 * 1024 * 1024

    func stream(
        _ body: ChatCompletionRequest, into channel: LanguageModelExecutorGenerationChannel, schemaName: String?
    ) async throws {
        var url = model.baseURL
        while url.hasSuffix("/") { url.removeLast() }
        var request = HTTPClientRequest(url: url + "/chat/completions")
        request.method = .POST
        request.headers.add(name: "Content-Type", value: "application/json")
        request.headers.add(name: "Accept", value: "text/event-stream")
        if let key = model.apiKey { request.headers.add(name: "Authorization", value: "Bearer \(key)") }
        let encoded = try JSONEncoder().encode(body)
        request.body = .bytes(ByteBuffer(bytes: encoded))

        let response: HTTPClientResponse
        do {
            let seconds = model.timeout.components.seconds
            response = try await HTTPClient.shared.execute(request, timeout: .seconds(max(1, seconds)))
        } catch {
            if Task.isCancelled { throw CancellationError() }
            throw OpenAIErrorMapping.transport(error)
        }
        guard response.status == .ok else {
            let errorBody = (try? await response.body.collect(upTo: Self.maximumErrorBody)).map { String(buffer: $0) } ?? ""
            throw OpenAIErrorMapping.http(status: Int(response.status.code), body: errorBody, schemaName: schemaName)
        }

        var assembler = StreamAssembler()
        var lines = SSELineSplitter()
        do {
            reading: for try await buffer in response.body {
                try Task.checkCancellation()
                for line in try lines.append(buffer) {
                    guard line.hasPrefix("data:") else { continue }  // comments, `event:`, blank separators
                    let payload = line.dropFirst(5).trimmingCharacters(in: .whitespaces)
                    if payload == "[DONE]" { break reading }
                    for event in try assembler.read(payload) { await channel.send(event) }
                }
            }
        } catch let error as LanguageModelError {
            throw error
        } catch is CancellationError {
            throw CancellationError()
        } catch {
            if Task.isCancelled { throw CancellationError() }
            throw OpenAIErrorMapping.transport(error)
        }
        for event in try assembler.finish() { await channel.send(event) }
    }
}

/// Splits a byte stream into lines (`\n` or `\r\n`), keeping a partial line for the next buffer.
struct SSELineSplitter {
    private var pending: [UInt8] = []

    mutating func append(_ buffer: ByteBuffer) throws -> [String] {
        var lines: [String] = []
        for byte in buffer.readableBytesView {
            if byte == UInt8(ascii: "\n") {
                if pending.last == UInt8(ascii: "\r") { pending.removeLast() }
                lines.append(String(decoding: pending, as: UTF8.self))
                pending.removeAll(keepingCapacity: true)
            } else {
                pending.append(byte)
                guard pending.count <= OpenAIStreamClient.maximumLine else {
                    throw OpenAIErrorMapping.malformed("an event line longer than \(OpenAIStreamClient.maximumLine) bytes")
                }
            }
        }
        return lines
    }
}

/// Turns chat-completion chunks into the session's events: text as it comes, tool calls once their
/// arguments are complete, usage at the end.
struct StreamAssembler {
    private var calls: [Int: (id: String, name: String, arguments: String)] = [:]
    private var usage: Usage?
    private var sentMetadata = false
    private var refusal = ""
    private var finishReason: String?

    mutating func read(_ payload: String) throws -> [LanguageModelExecutorGenerationChannel.Event] {
        let data = Data(payload.utf8)
        if let failure = try? JSONDecoder().decode(ErrorResponse.self, from: data) {
            // An error after the stream started (llama.cpp and vLLM send one as an event).
            throw OpenAIErrorMapping.error(status: 500, detail: failure.error, body: payload, schemaName: nil)
        }
        let chunk: ChatCompletionChunk
        do {
            chunk = try JSONDecoder().decode(ChatCompletionChunk.self, from: data)
        } catch {
            throw OpenAIErrorMapping.malformed("\(error): \(payload.prefix(200))")
        }
        var events: [LanguageModelExecutorGenerationChannel.Event] = []
        if !sentMetadata {
            sentMetadata = true
            events.append(.response(action: .updateMetadata(["modelID": chunk.model])))
        }
        if let usage = chunk.usage { self.usage = usage }
        for choice in chunk.choices where choice.index == 0 {
            if let text = choice.delta.content, !text.isEmpty {
                events.append(.response(action: .appendText(text, tokenCount: 1)))
            }
            if let text = choice.delta.refusal { refusal += text }
            for piece in choice.delta.toolCalls ?? [] {
                var call = calls[piece.index] ?? (id: "", name: "", arguments: "")
                if let id = piece.id { call.id = id }
                // OpenAI sends the name in a call's first piece; llama-cpp-python repeats it in every one.
                if let name = piece.function?.name, call.name.isEmpty { call.name = name }
                if let arguments = piece.function?.arguments { call.arguments += arguments }
                calls[piece.index] = call
            }
            if let reason = choice.finishReason { finishReason = reason }
        }
        return events
    }

    func finish() throws -> [LanguageModelExecutorGenerationChannel.Event] {
        if !refusal.isEmpty {
            throw LanguageModelError.refusal(.init(explanation: refusal, debugDescription: "the model refused: \(refusal)"))
        }
        if finishReason == "content_filter" {
            throw LanguageModelError.guardrailViolation(.init(debugDescription: "the endpoint filtered the response (finish_reason content_filter)"))
        }
        var events: [LanguageModelExecutorGenerationChannel.Event] = []
        for index in calls.keys.sorted() {
            guard let call = calls[index] else { continue }
            let arguments: GeneratedContent
            do {
                arguments = try GeneratedContent(json: call.arguments.isEmpty ? "{}" : call.arguments)
            } catch {
                throw LanguageModelError.decodingFailure(.init(
                    debugDescription: "the arguments of the call to '\(call.name)' are not JSON: \(call.arguments)",
                    metadata: [LanguageModelError.underlyingErrorKey: OpenAIEndpointError(
                        kind: .malformedResponse, error: nil, detail: call.arguments, transportError: nil)]))
            }
            events.append(.toolCalls(action: .append(
                Transcript.ToolCall(id: call.id.isEmpty ? UUID().uuidString : call.id, toolName: call.name, arguments: arguments),
                tokenCount: 0)))
        }
        if let usage {
            events.append(.response(action: .updateUsage(
                input: .init(totalTokenCount: usage.promptTokens, cachedTokenCount: usage.promptTokensDetails?.cachedTokens ?? 0),
                output: .init(totalTokenCount: usage.completionTokens, reasoningTokenCount: 0))))
        }
        return events
    }
}
