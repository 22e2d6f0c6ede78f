import Foundation
import LocalLM
import LocalLMJSON
import LocalLMOpenAIWire

// The one place where the OpenAI wire format meets LocalLM: a chat-completions request becomes a
// transcript + options + schema for an executor (the same `LanguageModelExecutor.respond` sessions
// call, so requests go through the engine's one generation loop), and the executor's channel events
// become the pieces of a completion. Everything the engine does (chat template, Hermes tool calls,
// grammar) stays behind the public executor API.

/// A request the server can run, with what the wire asked of the output that the executor does not do.
struct MappedChatRequest {
    var request: LanguageModelExecutorGenerationRequest
    /// `stop`: the output ends before the first of these.
    var stops: [String]
    /// The response budget, for `finish_reason: length`.
    var maximumTokens: Int?
    /// The request gave a `seed`: it asks for an answer it can get again, so its prompt is evaluated
    /// from an empty cache. (A prefix reused from another request was computed in other passes —
    /// decode steps, a prefill batch of another size — whose sums round differently in the last bits,
    /// which can tip a sampled or greedy token; a fresh prefill is always the same computation.)
    var reproducible: Bool
}

/// A 4xx the server answers with the OpenAI error object.
struct RequestRejection: Error {
    var status: Int
    var message: String
    var type: String = "invalid_request_error"
    var param: String?
    var code: String?

    var body: ErrorResponse { ErrorResponse(message: message, type: type, param: param, code: code) }
}

enum ChatRequestMapping {
    static func map(_ body: ChatCompletionRequest) throws -> MappedChatRequest {
        func reject(_ message: String, param: String?, code: String? = nil) -> RequestRejection {
            RequestRejection(status: 400, message: message, param: param, code: code)
        }
        if let n = body.n, n != 1 { throw reject("only n = 1 is supported, not \(n)", param: "n") }
        if let t = body.temperature, !(0...2).contains(t) { throw reject("temperature must be in 0...2, not \(t)", param: "temperature") }
        if let p = body.topP, !(p > 0 && p <= 1) { throw reject("top_p must be in (0, 1], not \(p)", param: "top_p") }
        let maximumTokens = body.maxCompletionTokens ?? body.maxTokens
        if let m = maximumTokens, m < 1 { throw reject("max_tokens must be at least 1, not \(m)", param: "max_tokens") }
        let stops = body.stop?.values ?? []
        if stops.count > 4 { throw reject("at most 4 stop sequences are supported, not \(stops.count)", param: "stop") }
        if stops.contains(where: \.isEmpty) { throw reject("a stop sequence must not be empty", param: "stop") }

        // Tools, and which of them the model may call.
        var definitions: [Transcript.ToolDefinition] = []
        for (index, tool) in (body.tools ?? []).enumerated() {
            guard tool.type == "function" else {
                throw reject("tools[\(index)].type must be 'function', not '\(tool.type)'", param: "tools[\(index)].type")
            }
            let parameters = tool.function.parameters ?? .object([("type", .string("object")), ("properties", .object([]))])
            definitions.append(Transcript.ToolDefinition(
                name: tool.function.name, description: tool.function.description ?? "",
                parameters: try schema(parameters, param: "tools[\(index)].function.parameters")))
        }
        var toolMode: GenerationOptions.ToolCallingMode? = definitions.isEmpty ? nil : .allowed
        switch body.toolChoice {
        case nil, .auto?: break
        case .none?: toolMode = .disallowed
        case .required?:
            guard !definitions.isEmpty else { throw reject("tool_choice 'required' needs tools", param: "tool_choice") }
            toolMode = .required
        case .function(let name)?:
            // A named function: the only tool offered, and a call is required.
            guard let named = definitions.first(where: { $0.name == name }) else {
                throw reject("tool_choice names '\(name)', which is not in tools", param: "tool_choice")
            }
            definitions = [named]
            toolMode = .required
        }

        // The conversation.
        guard !body.messages.isEmpty else { throw reject("messages must not be empty", param: "messages") }
        var instructions: [String] = []
        var entries: [Transcript.Entry] = []
        var callNames: [String: String] = [:]
        for (index, message) in body.messages.enumerated() {
            let text = message.content ?? ""
            switch message.role {
            case "system", "developer":
                instructions.append(text)
            case "user":
                entries.append(.prompt(Transcript.Prompt(segments: [.text(.init(content: text))])))
            case "assistant":
                if !text.isEmpty || message.toolCalls == nil {
                    entries.append(.response(Transcript.Response(assetIDs: [], segments: [.text(.init(content: text))])))
                }
                if let calls = message.toolCalls, !calls.isEmpty {
                    entries.append(.toolCalls(Transcript.ToolCalls(try calls.enumerated().map { callIndex, call in
                        let arguments: GeneratedContent
                        do {
                            arguments = try GeneratedContent(json: call.function.arguments.isEmpty ? "{}" : call.function.arguments)
                        } catch {
                            throw reject(
                                "messages[\(index)].tool_calls[\(callIndex)].function.arguments is not JSON: \(error)",
                                param: "messages[\(index)].tool_calls[\(callIndex)].function.arguments")
                        }
                        callNames[call.id] = call.function.name
                        return Transcript.ToolCall(id: call.id, toolName: call.function.name, arguments: arguments)
                    })))
                }
            case "tool":
                guard let id = message.toolCallID else {
                    throw reject("messages[\(index)] (role 'tool') needs tool_call_id", param: "messages[\(index)].tool_call_id")
                }
                let name = message.name ?? callNames[id] ?? ""
                entries.append(.toolOutput(Transcript.ToolOutput(id: id, toolName: name, segments: [.text(.init(content: text))])))
            default:
                throw reject("messages[\(index)].role '\(message.role)' is not one of system, developer, user, assistant, tool",
                             param: "messages[\(index)].role")
            }
        }
        switch entries.last {
        case .prompt?, .toolOutput?: break
        default: throw reject("the last message must be from the user or a tool", param: "messages")
        }
        if !instructions.isEmpty || !definitions.isEmpty {
            let segments: [Transcript.Segment] = instructions.isEmpty ? [] : [.text(.init(content: instructions.joined(separator: "\n\n")))]
            entries.insert(.instructions(Transcript.Instructions(segments: segments, toolDefinitions: definitions)), at: 0)
        }

        // The response's shape.
        var responseSchema: GenerationSchema?
        switch body.responseFormat?.type {
        case nil, "text"?: break
        case "json_object"? where body.responseFormat?.schema != nil:
            // llama-cpp-python's spelling of a schema.
            responseSchema = try schema(body.responseFormat?.schema ?? .null, param: "response_format.schema")
        case "json_object"?:
            responseSchema = GenerationSchema(verbatimJSONSchema: GeneratedContent(kind: .structure(
                properties: ["type": GeneratedContent(kind: .string("object"))], orderedKeys: ["type"])))
        case "json_schema"?:
            guard let document = body.responseFormat?.jsonSchema?.schema else {
                throw reject("response_format json_schema needs json_schema.schema", param: "response_format.json_schema.schema")
            }
            responseSchema = try schema(document, param: "response_format.json_schema.schema")
        case let other?:
            throw reject("response_format.type must be text, json_object or json_schema, not '\(other)'", param: "response_format.type")
        }

        // Sampling: temperature 0 is greedy; a top_p or a seed picks nucleus sampling (LocalLM's
        // defaults, temperature 0.7 and top_p 0.9, fill what the request leaves out).
        let sampling: GenerationOptions.SamplingMode? =
            if body.temperature == 0 {
                .greedy
            } else if body.topP != nil || body.seed != nil {
                .random(
                    probabilityThreshold: body.topP ?? GenerationOptions.defaultProbabilityThreshold,
                    seed: body.seed.map { UInt64(bitPattern: Int64($0)) })
            } else {
                nil
            }
        let options = GenerationOptions(
            samplingMode: sampling, temperature: body.temperature, maximumResponseTokens: maximumTokens, toolCallingMode: toolMode)
        return MappedChatRequest(
            request: LanguageModelExecutorGenerationRequest(
                transcript: Transcript(entries: entries), generationOptions: options, schema: responseSchema),
            stops: stops, maximumTokens: maximumTokens, reproducible: body.seed != nil)
    }

    /// A client's JSON Schema, taken verbatim: the grammar compiler reports what it cannot enforce
    /// when the request runs (a 400 then).
    private static func schema(_ document: JSONValue, param: String) throws -> GenerationSchema {
        guard case .object = document else {
            throw RequestRejection(status: 400, message: "\(param) must be a JSON object", param: param, code: "invalid_schema")
        }
        do {
            return GenerationSchema(verbatimJSONSchema: try GeneratedContent(json: document.compactText))
        } catch {
            throw RequestRejection(status: 400, message: "\(param): \(error)", param: param, code: "invalid_schema")
        }
    }
}

/// What an executor streamed, as the pieces of a completion.
enum CompletionEvent: Sendable {
    /// The prompt fit and generation started (the executor's first event).
    case started
    case text(String)
    case toolCall(Transcript.ToolCall)
    case usage(prompt: Int, cached: Int, completion: Int)

    init?(_ event: LanguageModelExecutorGenerationChannel.Event) {
        switch event.kind {
        case .response(_, let action):
            switch action.kind {
            case .appendText(let text, _, _): self = .text(text)
            case .updateUsage(let input, let output):
                self = .usage(prompt: input.totalTokenCount, cached: input.cachedTokenCount, completion: output.totalTokenCount)
            case .updateMetadata: self = .started
            }
        case .toolCalls(_, let action):
            switch action.kind {
            case .append(let call, _): self = .toolCall(call)
            }
        case .reasoning:
            return nil
        }
    }
}

extension Transcript.ToolCall {
    /// The call as the wire writes it: arguments as JSON text.
    var wire: LocalLMOpenAIWire.ToolCall {
        LocalLMOpenAIWire.ToolCall(id: "call_" + id.replacingOccurrences(of: "-", with: "").prefix(24).lowercased(), name: toolName, arguments: arguments.jsonString)
    }
}

/// The `stop` sequences: text passes through until one appears; text that might be the start of
/// one is held back until it is known not to be.
struct StopScanner {
    let stops: [String]
    private(set) var stopped = false
    private var text = ""
    private var emitted = 0  // characters of `text` already passed on

    init(_ stops: [String]) {
        self.stops = stops
    }

    /// Takes a delta; returns what may be sent now.
    mutating func feed(_ delta: String) -> String {
        guard !stopped else { return "" }
        text += delta
        guard !stops.isEmpty else {
            emitted = text.count
            return delta
        }
        let pending = text.dropFirst(emitted)
        // A stop may straddle earlier text still held back, so search the pending part and the held tail.
        if let cut = stops.compactMap({ pending.range(of: $0)?.lowerBound }).min() {
            stopped = true
            let out = String(pending[..<cut])
            emitted += out.count
            return out
        }
        var hold = 0
        for stop in stops {
            for length in stride(from: min(stop.count - 1, pending.count), to: 0, by: -1)
            where stop.hasPrefix(pending.suffix(length)) {
                hold = max(hold, length)
                break
            }
        }
        let out = String(pending.dropLast(hold))
        emitted += out.count
        return out
    }

    /// At the end of the output: what was held back, unless a stop sequence ended it.
    mutating func flush() -> String {
        guard !stopped else { return "" }
        let out = String(text.dropFirst(emitted))
        emitted = text.count
        return out
    }
}
