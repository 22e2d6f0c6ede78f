import LocalLMJSON

/// One message of a chat, as chat templates take them (`messages`): what the engine renders. The API
/// layer converts its transcript into these; the engine knows nothing of transcripts.
package struct ChatMessage: Sendable, Equatable {
    package enum Role: String, Sendable {
        case system, user, assistant, tool
    }

    package var role: Role
    package var content: String
    /// Tool calls of an assistant message.
    package var toolCalls: [ChatToolCall]
    /// For a tool message: the call it answers, and the tool's name.
    package var toolCallID: String?
    package var name: String?
    /// For an assistant message: the reasoning the model wrote before it (`reasoning_content`, which
    /// reasoning templates render or drop as they choose).
    package var reasoningContent: String?
    /// For a system message, in templates that take the tool list there as text (Phi-4-mini's
    /// `message['tools']`): the functions as one JSON list.
    package var toolList: String?

    package init(
        role: Role, content: String, toolCalls: [ChatToolCall] = [], toolCallID: String? = nil, name: String? = nil,
        reasoningContent: String? = nil, toolList: String? = nil
    ) {
        self.role = role
        self.content = content
        self.toolCalls = toolCalls
        self.toolCallID = toolCallID
        self.name = name
        self.reasoningContent = reasoningContent
        self.toolList = toolList
    }
}

/// A tool call: one the model made, or one in the history.
package struct ChatToolCall: Sendable, Equatable {
    package var id: String
    package var name: String
    /// A JSON object.
    package var arguments: JSONValue

    package init(id: String, name: String, arguments: JSONValue) {
        self.id = id
        self.name = name
        self.arguments = arguments
    }
}

/// A tool offered to the model: its name, what it does, and the JSON Schema of its arguments.
package struct ChatTool: Sendable, Equatable {
    package var name: String
    package var description: String
    /// The arguments' schema the call grammar enforces.
    package var parameters: JSONValue
    /// The arguments' schema the prompt shows (`parameters` unless the caller says otherwise): the
    /// API layer shows a plain JSON Schema, as a caller writes one for a chat template, and keeps
    /// its encoding details (`x-order`, `additionalProperties`, `$defs`) for the grammar.
    package var shownParameters: JSONValue

    package init(name: String, description: String, parameters: JSONValue, shownParameters: JSONValue? = nil) {
        self.name = name
        self.description = description
        self.parameters = parameters
        self.shownParameters = shownParameters ?? parameters
    }

    /// The OpenAI-style definition templates iterate over (`tools`), as `{"type": "function", …}`,
    /// with the schema the prompt shows.
    package var definition: JSONValue {
        .object([
            ("type", .string("function")),
            ("function", function),
        ])
    }

    /// The function itself (name, description, the schema the prompt shows), as the list in a
    /// system message's `tools` holds it (Phi-4-mini).
    package var function: JSONValue {
        .object([("name", .string(name)), ("description", .string(description)), ("parameters", shownParameters)])
    }
}

/// Whether and how the model may call tools in one request.
package enum ToolCallMode: Sendable, Equatable {
    /// The model chooses between text and calls.
    case allowed
    /// The first thing the model writes is a call.
    case required
    /// No call can be made; call openers are masked.
    case disallowed
}
