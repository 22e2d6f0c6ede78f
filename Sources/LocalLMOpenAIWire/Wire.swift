import LocalLMJSON

// The OpenAI chat-completions wire format, as the server (`locallm serve`) reads it and the remote
// backend (LocalLMOpenAI) writes it: https://platform.openai.com/docs/api-reference/chat.
// Only the fields LocalLM acts on are typed; the server rejects any other request field by name
// (`ChatCompletionRequest.knownFields`) rather than ignoring it silently.

/// `POST /v1/chat/completions` body.
public struct ChatCompletionRequest: Codable, Sendable {
    public var model: String
    public var messages: [ChatCompletionMessage]
    public var stream: Bool?
    public var streamOptions: StreamOptions?
    public var temperature: Double?
    public var topP: Double?
    public var seed: Int?
    /// The response budget (`max_tokens`; `max_completion_tokens` is its newer name).
    public var maxTokens: Int?
    public var maxCompletionTokens: Int?
    public var stop: StopSequences?
    public var tools: [ChatCompletionTool]?
    public var toolChoice: ToolChoice?
    public var parallelToolCalls: Bool?
    public var responseFormat: ResponseFormat?
    /// Number of choices; only 1 is served.
    public var n: Int?
    public var user: String?

    public init(model: String, messages: [ChatCompletionMessage]) {
        self.model = model
        self.messages = messages
    }

    enum CodingKeys: String, CodingKey, CaseIterable {
        case model, messages, stream, temperature, seed, stop, tools, n, user
        case streamOptions = "stream_options"
        case topP = "top_p"
        case maxTokens = "max_tokens"
        case maxCompletionTokens = "max_completion_tokens"
        case toolChoice = "tool_choice"
        case parallelToolCalls = "parallel_tool_calls"
        case responseFormat = "response_format"
    }

    /// Every request field this type reads.
    public static let knownFields: Set<String> = Set(CodingKeys.allCases.map(\.rawValue))

    /// JSON decoders do not keep object member order, but a schema's property order is the order the
    /// model writes them in; this puts back the schemas exactly as the body (parsed in order) has them.
    public mutating func restoreSchemaOrder(from body: JSONValue) {
        if let tools = body["tools"]?.arrayValue, self.tools?.count == tools.count {
            for (index, tool) in tools.enumerated() {
                if let parameters = tool["function"]?["parameters"] { self.tools?[index].function.parameters = parameters }
            }
        }
        if let schema = body["response_format"]?["json_schema"]?["schema"] {
            responseFormat?.jsonSchema?.schema = schema
        }
        if let schema = body["response_format"]?["schema"] {
            responseFormat?.schema = schema
        }
    }
}

/// `stream_options`.
public struct StreamOptions: Codable, Sendable {
    public var includeUsage: Bool?

    public init(includeUsage: Bool?) {
        self.includeUsage = includeUsage
    }

    enum CodingKeys: String, CodingKey {
        case includeUsage = "include_usage"
    }
}

/// `stop`: one string or several.
public struct StopSequences: Codable, Sendable, Equatable {
    public var values: [String]

    public init(_ values: [String]) {
        self.values = values
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if let one = try? container.decode(String.self) {
            values = [one]
        } else {
            values = try container.decode([String].self)
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(values)
    }
}

/// One message of the conversation.
public struct ChatCompletionMessage: Codable, Sendable, Equatable {
    /// `system`, `developer`, `user`, `assistant` or `tool`.
    public var role: String
    /// The text; `nil` for an assistant message that only calls tools. Array-of-parts content is
    /// read as the concatenation of its text parts.
    public var content: String?
    public var toolCalls: [ToolCall]?
    /// For `tool` messages: the call this answers.
    public var toolCallID: String?
    public var name: String?
    /// A refusal, when the model declined (OpenAI's structured outputs).
    public var refusal: String?

    public init(role: String, content: String?, toolCalls: [ToolCall]? = nil, toolCallID: String? = nil, name: String? = nil) {
        self.role = role
        self.content = content
        self.toolCalls = toolCalls
        self.toolCallID = toolCallID
        self.name = name
    }

    enum CodingKeys: String, CodingKey {
        case role, content, name, refusal
        case toolCalls = "tool_calls"
        case toolCallID = "tool_call_id"
    }

    private struct ContentPart: Codable {
        var type: String
        var text: String?
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        role = try container.decode(String.self, forKey: .role)
        if try !container.contains(.content) || container.decodeNil(forKey: .content) {
            content = nil
        } else if let text = try? container.decode(String.self, forKey: .content) {
            content = text
        } else {
            guard (try? container.nestedUnkeyedContainer(forKey: .content)) != nil else {
                throw DecodingError.dataCorruptedError(
                    forKey: .content, in: container, debugDescription: "must be a string or an array of content parts")
            }
            let parts = try container.decode([ContentPart].self, forKey: .content)
            if let other = parts.first(where: { $0.type != "text" }) {
                throw DecodingError.dataCorruptedError(
                    forKey: .content, in: container, debugDescription: "content parts of type '\(other.type)' are not supported")
            }
            content = parts.compactMap(\.text).joined()
        }
        toolCalls = try container.decodeIfPresent([ToolCall].self, forKey: .toolCalls)
        toolCallID = try container.decodeIfPresent(String.self, forKey: .toolCallID)
        name = try container.decodeIfPresent(String.self, forKey: .name)
        refusal = try container.decodeIfPresent(String.self, forKey: .refusal)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(role, forKey: .role)
        // An assistant message with tool calls carries `"content": null`, as OpenAI writes it.
        if let content { try container.encode(content, forKey: .content) } else { try container.encodeNil(forKey: .content) }
        try container.encodeIfPresent(toolCalls, forKey: .toolCalls)
        try container.encodeIfPresent(toolCallID, forKey: .toolCallID)
        try container.encodeIfPresent(name, forKey: .name)
        try container.encodeIfPresent(refusal, forKey: .refusal)
    }
}

/// A function call the model made. `arguments` is JSON text, as on the wire.
public struct ToolCall: Codable, Sendable, Equatable {
    public var id: String
    public var type: String
    public var function: FunctionCall

    public init(id: String, name: String, arguments: String) {
        self.id = id
        self.type = "function"
        self.function = FunctionCall(name: name, arguments: arguments)
    }

    public struct FunctionCall: Codable, Sendable, Equatable {
        public var name: String
        public var arguments: String

        public init(name: String, arguments: String) {
            self.name = name
            self.arguments = arguments
        }
    }
}

/// A tool offered to the model.
public struct ChatCompletionTool: Codable, Sendable {
    public var type: String
    public var function: Function

    public init(name: String, description: String?, parameters: JSONValue?) {
        type = "function"
        function = Function(name: name, description: description, parameters: parameters)
    }

    public struct Function: Codable, Sendable {
        public var name: String
        public var description: String?
        /// JSON Schema of the arguments.
        public var parameters: JSONValue?
        public var strict: Bool?

        public init(name: String, description: String?, parameters: JSONValue?) {
            self.name = name
            self.description = description
            self.parameters = parameters
        }

        enum CodingKeys: String, CodingKey {
            case name, description, parameters, strict
        }

        public init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            name = try container.decode(String.self, forKey: .name)
            description = try container.decodeIfPresent(String.self, forKey: .description)
            parameters = try container.decodeIfPresent(CodableJSON.self, forKey: .parameters)?.value
            strict = try container.decodeIfPresent(Bool.self, forKey: .strict)
        }

        public func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(name, forKey: .name)
            try container.encodeIfPresent(description, forKey: .description)
            try container.encodeIfPresent(parameters.map(CodableJSON.init), forKey: .parameters)
            try container.encodeIfPresent(strict, forKey: .strict)
        }
    }
}

/// `tool_choice`: `"none"`, `"auto"`, `"required"`, or `{"type":"function","function":{"name":…}}`.
public enum ToolChoice: Codable, Sendable, Equatable {
    case none, auto, required
    case function(String)

    private struct Named: Codable {
        struct Function: Codable { var name: String }
        var type: String
        var function: Function
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if let word = try? container.decode(String.self) {
            switch word {
            case "none": self = .none
            case "auto": self = .auto
            case "required": self = .required
            default:
                throw DecodingError.dataCorruptedError(
                    in: container, debugDescription: "tool_choice must be 'none', 'auto', 'required' or a function, not '\(word)'")
            }
        } else {
            self = .function(try container.decode(Named.self).function.name)
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .none: try container.encode("none")
        case .auto: try container.encode("auto")
        case .required: try container.encode("required")
        case .function(let name): try container.encode(Named(type: "function", function: .init(name: name)))
        }
    }
}

/// `response_format`: `{"type":"text"}`, `{"type":"json_object"}` or
/// `{"type":"json_schema","json_schema":{"name":…,"schema":{…},"strict":true}}`; llama-cpp-python's
/// server instead takes `{"type":"json_object","schema":{…}}` (`schema`).
public struct ResponseFormat: Codable, Sendable {
    public var type: String
    public var jsonSchema: JSONSchemaFormat?
    /// llama-cpp-python's spelling of a schema, beside `type: json_object`.
    public var schema: JSONValue?

    public init(type: String, jsonSchema: JSONSchemaFormat? = nil, schema: JSONValue? = nil) {
        self.type = type
        self.jsonSchema = jsonSchema
        self.schema = schema
    }

    enum CodingKeys: String, CodingKey {
        case type, schema
        case jsonSchema = "json_schema"
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        type = try container.decode(String.self, forKey: .type)
        jsonSchema = try container.decodeIfPresent(JSONSchemaFormat.self, forKey: .jsonSchema)
        schema = try container.decodeIfPresent(CodableJSON.self, forKey: .schema)?.value
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(type, forKey: .type)
        try container.encodeIfPresent(jsonSchema, forKey: .jsonSchema)
        try container.encodeIfPresent(schema.map(CodableJSON.init), forKey: .schema)
    }

    public struct JSONSchemaFormat: Codable, Sendable {
        public var name: String
        public var schema: JSONValue?
        public var strict: Bool?
        public var description: String?

        public init(name: String, schema: JSONValue?, strict: Bool? = true) {
            self.name = name
            self.schema = schema
            self.strict = strict
        }

        enum CodingKeys: String, CodingKey {
            case name, schema, strict, description
        }

        public init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            name = try container.decode(String.self, forKey: .name)
            schema = try container.decodeIfPresent(CodableJSON.self, forKey: .schema)?.value
            strict = try container.decodeIfPresent(Bool.self, forKey: .strict)
            description = try container.decodeIfPresent(String.self, forKey: .description)
        }

        public func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(name, forKey: .name)
            try container.encodeIfPresent(schema.map(CodableJSON.init), forKey: .schema)
            try container.encodeIfPresent(strict, forKey: .strict)
            try container.encodeIfPresent(description, forKey: .description)
        }
    }
}

/// Token counts of one request.
public struct Usage: Codable, Sendable, Equatable {
    public var promptTokens: Int
    public var completionTokens: Int
    public var totalTokens: Int
    public var promptTokensDetails: PromptTokensDetails?

    public init(promptTokens: Int, completionTokens: Int, cachedTokens: Int? = nil) {
        self.promptTokens = promptTokens
        self.completionTokens = completionTokens
        self.totalTokens = promptTokens + completionTokens
        self.promptTokensDetails = cachedTokens.map { PromptTokensDetails(cachedTokens: $0) }
    }

    enum CodingKeys: String, CodingKey {
        case promptTokens = "prompt_tokens"
        case completionTokens = "completion_tokens"
        case totalTokens = "total_tokens"
        case promptTokensDetails = "prompt_tokens_details"
    }

    public struct PromptTokensDetails: Codable, Sendable, Equatable {
        public var cachedTokens: Int?

        public init(cachedTokens: Int?) {
            self.cachedTokens = cachedTokens
        }

        enum CodingKeys: String, CodingKey {
            case cachedTokens = "cached_tokens"
        }
    }
}

/// A whole (non-streamed) response.
public struct ChatCompletion: Codable, Sendable {
    public var id: String
    public var object: String
    public var created: Int
    public var model: String
    public var choices: [Choice]
    public var usage: Usage?

    public init(id: String, created: Int, model: String, choices: [Choice], usage: Usage?) {
        self.id = id
        self.object = "chat.completion"
        self.created = created
        self.model = model
        self.choices = choices
        self.usage = usage
    }

    public struct Choice: Codable, Sendable {
        public var index: Int
        public var message: ChatCompletionMessage
        /// `stop`, `length`, `tool_calls`, `content_filter`.
        public var finishReason: String?

        public init(index: Int, message: ChatCompletionMessage, finishReason: String?) {
            self.index = index
            self.message = message
            self.finishReason = finishReason
        }

        enum CodingKeys: String, CodingKey {
            case index, message
            case finishReason = "finish_reason"
        }
    }
}

/// One server-sent event of a streamed response (`data: {…}`).
public struct ChatCompletionChunk: Codable, Sendable {
    public var id: String
    public var object: String
    public var created: Int
    public var model: String
    public var choices: [Choice]
    public var usage: Usage?

    public init(id: String, created: Int, model: String, choices: [Choice], usage: Usage? = nil) {
        self.id = id
        self.object = "chat.completion.chunk"
        self.created = created
        self.model = model
        self.choices = choices
        self.usage = usage
    }

    public struct Choice: Codable, Sendable {
        public var index: Int
        public var delta: Delta
        public var finishReason: String?

        public init(index: Int, delta: Delta, finishReason: String?) {
            self.index = index
            self.delta = delta
            self.finishReason = finishReason
        }

        enum CodingKeys: String, CodingKey {
            case index, delta
            case finishReason = "finish_reason"
        }

        public func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(index, forKey: .index)
            try container.encode(delta, forKey: .delta)
            // OpenAI writes `"finish_reason": null` until the last chunk.
            if let finishReason { try container.encode(finishReason, forKey: .finishReason) } else {
                try container.encodeNil(forKey: .finishReason)
            }
        }
    }

    public struct Delta: Codable, Sendable {
        public var role: String?
        public var content: String?
        public var toolCalls: [ToolCallDelta]?
        public var refusal: String?

        public init(role: String? = nil, content: String? = nil, toolCalls: [ToolCallDelta]? = nil) {
            self.role = role
            self.content = content
            self.toolCalls = toolCalls
        }

        enum CodingKeys: String, CodingKey {
            case role, content, refusal
            case toolCalls = "tool_calls"
        }
    }

    /// A piece of a tool call: the first piece of call `index` carries its id and name, later pieces
    /// append to its arguments.
    public struct ToolCallDelta: Codable, Sendable {
        public var index: Int
        public var id: String?
        public var type: String?
        public var function: Function?

        public init(index: Int, id: String?, name: String?, arguments: String?) {
            self.index = index
            self.id = id
            self.type = id == nil ? nil : "function"
            self.function = Function(name: name, arguments: arguments)
        }

        public struct Function: Codable, Sendable {
            public var name: String?
            public var arguments: String?
        }
    }
}

/// `GET /v1/models`.
public struct ModelList: Codable, Sendable {
    public var object: String
    public var data: [Model]

    public init(data: [Model]) {
        self.object = "list"
        self.data = data
    }

    public struct Model: Codable, Sendable {
        public var id: String
        public var object: String
        public var created: Int
        public var ownedBy: String

        public init(id: String, created: Int, ownedBy: String) {
            self.id = id
            self.object = "model"
            self.created = created
            self.ownedBy = ownedBy
        }

        enum CodingKeys: String, CodingKey {
            case id, object, created
            case ownedBy = "owned_by"
        }
    }
}

/// The body of every error response: `{"error":{"message":…,"type":…,"param":…,"code":…}}`.
public struct ErrorResponse: Codable, Sendable, Error {
    public var error: Detail

    public init(message: String, type: String, param: String? = nil, code: String? = nil) {
        error = Detail(message: message, type: type, param: param, code: code)
    }

    public struct Detail: Codable, Sendable {
        public var message: String
        /// `invalid_request_error`, `authentication_error`, `not_found_error`, `rate_limit_error`, `server_error`.
        public var type: String?
        public var param: String?
        /// e.g. `context_length_exceeded`, `model_not_found`, `invalid_api_key`.
        public var code: String?

        public init(message: String, type: String?, param: String?, code: String?) {
            self.message = message
            self.type = type
            self.param = param
            self.code = code
        }

        enum CodingKeys: String, CodingKey {
            case message, type, param, code
        }

        public init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            message = try container.decode(String.self, forKey: .message)
            type = try container.decodeIfPresent(String.self, forKey: .type)
            param = try container.decodeIfPresent(String.self, forKey: .param)
            // Some servers send a number here (llama.cpp's HTTP status); keep it as text.
            if let text = try? container.decodeIfPresent(String.self, forKey: .code) {
                code = text
            } else if let number = try? container.decodeIfPresent(Int.self, forKey: .code) {
                code = String(number)
            } else {
                code = nil
            }
        }

        public func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(message, forKey: .message)
            try container.encodeIfPresent(type, forKey: .type)
            // OpenAI always writes these two, null when absent; clients read them.
            if let param { try container.encode(param, forKey: .param) } else { try container.encodeNil(forKey: .param) }
            if let code { try container.encode(code, forKey: .code) } else { try container.encodeNil(forKey: .code) }
        }
    }
}
