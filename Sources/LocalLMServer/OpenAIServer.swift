import Foundation
import Hummingbird
import LocalLM
import LocalLMJSON
import LocalLMOpenAIWire
import NIOCore

/// A model the server answers to by name.
package struct ServedModel: Sendable {
    package var name: String
    package var model: SystemLanguageModel

    package init(name: String, model: SystemLanguageModel) {
        self.name = name
        self.model = model
    }
}

/// `locallm serve`: an OpenAI-compatible HTTP server over the local models.
///
/// Every request runs through a model's executor, the same entry point sessions use, so there is one
/// generation loop; a pool of sequences per model bounds memory and concurrency. Bad requests get
/// OpenAI's error object with a 4xx status; nothing a client sends stops the server.
package struct OpenAIServer: Sendable {
    package struct Configuration: Sendable {
        /// The address to listen on; loopback unless the operator says otherwise.
        package var host = "127.0.0.1"
        /// 0 picks a free port (tests read it from `onRunning`).
        package var port = 8080
        /// When set, `/v1/*` requires `Authorization: Bearer <apiKey>`.
        package var apiKey: String?
        /// Larger bodies are refused with 413 before they are parsed.
        package var maximumBodyBytes = 4 << 20
        /// Sequences (KV caches) per model: the requests one model runs at once; more wait.
        package var sequencesPerModel = 4

        package init() {}
    }

    private struct Entry: Sendable {
        let model: SystemLanguageModel
        let pool: SequencePool
    }

    private let configuration: Configuration
    private let models: [String: Entry]
    private let modelNames: [String]
    private let created = Int(Date().timeIntervalSince1970)

    package init(models: [ServedModel], configuration: Configuration) throws {
        var table: [String: Entry] = [:]
        for served in models {
            guard table[served.name] == nil else { throw ServerSetupError(message: "the model name '\(served.name)' is given twice") }
            table[served.name] = Entry(model: served.model, pool: try SequencePool(model: served.model, count: configuration.sequencesPerModel))
        }
        guard !table.isEmpty else { throw ServerSetupError(message: "no model to serve") }
        self.models = table
        self.modelNames = models.map(\.name)
        self.configuration = configuration
    }

    /// Serves until cancelled, or until SIGINT/SIGTERM when `handlingSignals`.
    package func run(handlingSignals: Bool = true, onRunning: @escaping @Sendable (Int) async -> Void = { _ in }) async throws {
        let router = Router()
        router.get("/health") { _, _ in
            // Idle sequences per model: all of them once every request has ended, however it ended.
            var idle: [String: Int] = [:]
            for (name, entry) in self.models { idle[name] = await entry.pool.idleCount }
            return Self.json(status: 200, Health(status: "ok", sequences: self.configuration.sequencesPerModel, idle: idle))
        }
        router.get("/v1/models") { request, _ in
            if let rejection = self.authorize(request) { return Self.error(rejection) }
            return Self.json(status: 200, ModelList(data: self.modelNames.map { .init(id: $0, created: self.created, ownedBy: "locallm") }))
        }
        router.post("/v1/chat/completions") { request, _ in
            try await self.chatCompletions(request)
        }
        let port = configuration.port
        let app = Application(
            router: router,
            configuration: .init(address: .hostname(configuration.host, port: port), serverName: "locallm"),
            onServerRunning: { channel in await onRunning(channel.localAddress?.port ?? port) })
        try await app.runService(gracefulShutdownSignals: handlingSignals ? [.sigterm, .sigint] : [])
    }

    // MARK: Chat completions

    private func chatCompletions(_ request: Request) async throws -> Response {
        if let rejection = authorize(request) { return Self.error(rejection) }
        do {
            // (Hummingbird's consumeWithCancellationOnInboundClose would also cancel a non-streamed
            // request whose client hangs up, but closed fresh connections before answering here; a
            // streamed request is cancelled when a write to its gone client fails.)
            return try await chatCompletions(body: request.body)
        } catch let rejection as RequestRejection {
            return Self.error(rejection)
        } catch is CancellationError {
            return Self.error(RequestRejection(status: 400, message: "the client closed the connection"))
        }
    }

    private func chatCompletions(body: RequestBody) async throws -> Response {
        let buffer: ByteBuffer
        do {
            buffer = try await body.collect(upTo: configuration.maximumBodyBytes)
        } catch {
            throw RequestRejection(
                status: 413, message: "the request body is larger than \(configuration.maximumBodyBytes) bytes", code: "request_too_large")
        }
        let wire: ChatCompletionRequest
        do {
            wire = try ChatCompletionRequest.decode(body: Array(buffer.readableBytesView))
        } catch {
            throw RequestRejection(status: 400, message: error.message, param: error.param, code: error.code)
        }
        guard let entry = models[wire.model] else {
            throw RequestRejection(
                status: 404, message: "the model '\(wire.model)' does not exist; this server has \(modelNames.joined(separator: ", "))",
                param: "model", code: "model_not_found")
        }
        let mapped = try ChatRequestMapping.map(wire)
        let run = GenerationRun(mapped.request, model: entry.model, pool: entry.pool, freshCache: mapped.reproducible)
        do {
            try await run.awaitStart()
        } catch {
            run.cancel()
            throw Self.rejection(for: error)
        }
        let reply = Reply(
            id: "chatcmpl-" + UUID().uuidString.replacingOccurrences(of: "-", with: "").prefix(24).lowercased(),
            created: Int(Date().timeIntervalSince1970), model: wire.model, mapped: mapped, entry: entry)
        if wire.stream == true {
            return stream(run, reply, usageChunk: wire.streamOptions?.includeUsage == true)
        }
        return try await complete(run, reply)
    }

    private struct Health: Encodable {
        let status: String
        let sequences: Int
        let idle: [String: Int]
    }

    private struct Reply: Sendable {
        let id: String
        let created: Int
        let model: String
        let mapped: MappedChatRequest
        let entry: Entry
    }

    /// The output of one run as it accumulates.
    private struct Output {
        var scanner: StopScanner
        var text = ""
        var calls: [Transcript.ToolCall] = []
        var usage: Usage?
        var textEvents = 0

        /// Usage, counted here when the run was stopped early (a stop sequence) and sent none.
        func finalUsage(_ reply: Reply) async -> Usage {
            if let usage { return usage }
            let prompt = (try? await reply.entry.model.tokenCount(for: reply.mapped.request.transcript)) ?? 0
            return Usage(promptTokens: prompt, completionTokens: textEvents)
        }

        func finishReason(_ reply: Reply) -> String {
            if !calls.isEmpty { return "tool_calls" }
            if scanner.stopped { return "stop" }
            if let maximum = reply.mapped.maximumTokens, let usage, usage.completionTokens >= maximum { return "length" }
            return "stop"
        }
    }

    private func complete(_ run: GenerationRun, _ reply: Reply) async throws -> Response {
        defer { run.cancel() }
        var output = Output(scanner: StopScanner(reply.mapped.stops))
        do {
            loop: while let event = try await run.next() {
                switch event {
                case .started: break
                case .text(let delta):
                    output.textEvents += 1
                    output.text += output.scanner.feed(delta)
                    if output.scanner.stopped { break loop }
                case .toolCall(let call): output.calls.append(call)
                case .usage(let prompt, let cached, let completion):
                    output.usage = Usage(promptTokens: prompt, completionTokens: completion, cachedTokens: cached)
                }
            }
        } catch {
            throw Self.rejection(for: error)
        }
        output.text += output.scanner.flush()
        let usage = await output.finalUsage(reply)
        let message = ChatCompletionMessage(
            role: "assistant", content: output.calls.isEmpty || !output.text.isEmpty ? output.text : nil,
            toolCalls: output.calls.isEmpty ? nil : output.calls.map(\.wire))
        return Self.json(status: 200, ChatCompletion(
            id: reply.id, created: reply.created, model: reply.model,
            choices: [.init(index: 0, message: message, finishReason: output.finishReason(reply))], usage: usage))
    }

    private func stream(_ run: GenerationRun, _ reply: Reply, usageChunk: Bool) -> Response {
        Response(
            status: .ok, headers: [.contentType: "text/event-stream", .cacheControl: "no-cache"],
            body: ResponseBody { writer in
                // However this ends (done, stop sequence, client gone), the sequence goes back to the pool.
                defer { run.cancel() }
                func chunk(_ delta: ChatCompletionChunk.Delta, finish: String? = nil, usage: Usage? = nil) -> ByteBuffer {
                    Self.event(ChatCompletionChunk(
                        id: reply.id, created: reply.created, model: reply.model,
                        choices: [.init(index: 0, delta: delta, finishReason: finish)], usage: usage))
                }
                try await writer.write(chunk(.init(role: "assistant", content: "")))
                var output = Output(scanner: StopScanner(reply.mapped.stops))
                do {
                    loop: while let event = try await run.next() {
                        switch event {
                        case .started: break
                        case .text(let delta):
                            output.textEvents += 1
                            let text = output.scanner.feed(delta)
                            if !text.isEmpty { try await writer.write(chunk(.init(content: text))) }
                            if output.scanner.stopped { break loop }
                        case .toolCall(let call):
                            let wire = call.wire
                            try await writer.write(chunk(.init(toolCalls: [.init(
                                index: output.calls.count, id: wire.id, name: wire.function.name, arguments: wire.function.arguments)])))
                            output.calls.append(call)
                        case .usage(let prompt, let cached, let completion):
                            output.usage = Usage(promptTokens: prompt, completionTokens: completion, cachedTokens: cached)
                        }
                    }
                } catch let error where !(error is CancellationError) {
                    // The status line is gone; the error goes out as an event, as OpenAI's servers do.
                    try await writer.write(Self.event(Self.rejection(for: error).body))
                    try await writer.write(ByteBuffer(string: "data: [DONE]\n\n"))
                    try await writer.finish(nil)
                    return
                }
                let tail = output.scanner.flush()
                if !tail.isEmpty { try await writer.write(chunk(.init(content: tail))) }
                let usage = await output.finalUsage(reply)
                try await writer.write(chunk(.init(), finish: output.finishReason(reply), usage: usageChunk ? nil : usage))
                if usageChunk {
                    try await writer.write(Self.event(ChatCompletionChunk(
                        id: reply.id, created: reply.created, model: reply.model, choices: [], usage: usage)))
                }
                try await writer.write(ByteBuffer(string: "data: [DONE]\n\n"))
                try await writer.finish(nil)
            })
    }

    // MARK: Errors, auth, encoding

    /// Executor failures as HTTP statuses: what the request asked for that cannot be done is the
    /// client's (4xx); a model that fails is the server's (5xx).
    static func rejection(for error: any Error) -> RequestRejection {
        switch error {
        case let rejection as RequestRejection:
            return rejection
        case let error as LanguageModelError:
            switch error {
            case .contextSizeExceeded(let info):
                return RequestRejection(status: 400, message: info.debugDescription, param: "messages", code: "context_length_exceeded")
            case .unsupportedGenerationGuide(let info):
                return RequestRejection(
                    status: 400, message: "the schema cannot be enforced: \(info.debugDescription)", param: "response_format",
                    code: "invalid_schema")
            case .assetsUnavailable(let info):
                return RequestRejection(status: 503, message: info.debugDescription, type: "server_error", code: "model_unavailable")
            case .unsupportedCapability(let info):
                return RequestRejection(status: 400, message: info.debugDescription, code: "unsupported_capability")
            case .decodingFailure(let info):
                return RequestRejection(status: 500, message: info.debugDescription, type: "server_error")
            default:
                return RequestRejection(status: 500, message: "\(error)", type: "server_error")
            }
        case is CancellationError:
            return RequestRejection(status: 400, message: "the request was cancelled")
        default:
            return RequestRejection(status: 500, message: "\(error)", type: "server_error")
        }
    }

    private func authorize(_ request: Request) -> RequestRejection? {
        guard let key = configuration.apiKey else { return nil }
        let given = Array((request.headers[.authorization] ?? "").utf8)
        guard Self.constantTimeEqual(given, Array("Bearer \(key)".utf8)) else {
            return RequestRejection(
                status: 401, message: "a valid API key is required (Authorization: Bearer …)", type: "authentication_error",
                code: "invalid_api_key")
        }
        return nil
    }

    /// Compares without stopping at the first difference, so the time taken does not tell an
    /// attacker how much of a guessed key was right; it depends on the expected key's length only.
    static func constantTimeEqual(_ given: [UInt8], _ expected: [UInt8]) -> Bool {
        var difference = given.count ^ expected.count
        for index in expected.indices {
            difference |= Int((index < given.count ? given[index] : 0) ^ expected[index])
        }
        return difference == 0
    }

    private static func error(_ rejection: RequestRejection) -> Response {
        json(status: rejection.status, rejection.body)
    }

    private static func json(status: Int, _ value: some Encodable) -> Response {
        let data = (try? JSONEncoder().encode(value)) ?? Data(#"{"error":{"message":"cannot encode the response"}}"#.utf8)
        return Response(
            status: .init(code: status), headers: [.contentType: "application/json"],
            body: .init(byteBuffer: ByteBuffer(bytes: data)))
    }

    private static func event(_ value: some Encodable) -> ByteBuffer {
        let data = (try? JSONEncoder().encode(value)) ?? Data("{}".utf8)
        var buffer = ByteBuffer(string: "data: ")
        buffer.writeBytes(data)
        buffer.writeString("\n\n")
        return buffer
    }
}

/// A configuration the server cannot start with.
package struct ServerSetupError: Error, CustomStringConvertible {
    package let message: String
    package var description: String { message }
}

/// One request's generation: a task that takes a sequence from the pool, runs the executor and
/// streams its events; cancelling it (or dropping it) ends generation and frees the sequence.
/// The iterator is read by one task at a time (the handler, then the response body's writer).
final class GenerationRun: @unchecked Sendable {
    private var iterator: AsyncThrowingStream<CompletionEvent, any Error>.Iterator
    private var pending: CompletionEvent?
    private let task: Task<Void, Never>

    init(_ request: LanguageModelExecutorGenerationRequest, model: SystemLanguageModel, pool: SequencePool, freshCache: Bool) {
        let (stream, continuation) = AsyncThrowingStream<CompletionEvent, any Error>.makeStream()
        let task = Task {
            let executor: SystemLanguageModel.Executor
            do {
                executor = try await pool.acquire()
            } catch {
                continuation.finish(throwing: error)
                return
            }
            let channel = LanguageModelExecutorGenerationChannel { event in
                if let mapped = CompletionEvent(event) { continuation.yield(mapped) }
            }
            do {
                if freshCache { await executor.discardCachedPrefix() }
                try await executor.respond(to: request, model: model, streamingInto: channel)
                continuation.finish()
            } catch {
                continuation.finish(throwing: error)
            }
            await pool.release(executor)
        }
        self.task = task
        continuation.onTermination = { _ in task.cancel() }
        iterator = stream.makeAsyncIterator()
    }

    /// Waits until the prompt is in (or fails: a prompt over the context, a schema the grammar
    /// cannot enforce), so those failures still get their 4xx status.
    func awaitStart() async throws {
        pending = try await iterator.next()
    }

    func next() async throws -> CompletionEvent? {
        if let event = pending {
            pending = nil
            return event
        }
        return try await iterator.next()
    }

    func cancel() {
        task.cancel()
    }

    deinit {
        task.cancel()
    }
}
