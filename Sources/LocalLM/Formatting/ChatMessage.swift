/// One message of a chat, as chat templates take them (`messages` in Jinja templates).
package struct ChatMessage: Sendable, Equatable {
    package enum Role: String, Sendable {
        case system, user, assistant, tool
    }

    package var role: Role
    package var content: String
    /// Tool calls of an assistant message, for templates that render `tool_calls` themselves.
    package var toolCalls: [Transcript.ToolCall]
    /// For a tool message: the call it answers, and the tool's name.
    package var toolCallID: String?
    package var name: String?

    package init(role: Role, content: String, toolCalls: [Transcript.ToolCall] = [], toolCallID: String? = nil, name: String? = nil) {
        self.role = role
        self.content = content
        self.toolCalls = toolCalls
        self.toolCallID = toolCallID
        self.name = name
    }
}

/// How tools reach the model.
package enum ToolPromptStyle: Sendable, Equatable {
    /// The chat template takes `tools` and renders tool calls and tool messages itself.
    case template
    /// The template knows nothing of tools: Hermes-style text in a plain ChatML conversation,
    /// `<tools>` in the system message, `<tool_call>` blocks in assistant messages and
    /// `<tool_response>` blocks in user messages.
    case hermes
}

/// Turns a transcript into chat messages.
package enum ChatMessages {
    /// The messages for a transcript. Tool outputs of one round become one message in the Hermes
    /// style (as Hermes and Qwen templates group them) and one `tool` message each otherwise.
    package static func make(
        from transcript: Transcript, style: ToolPromptStyle, responseSchema: GenerationSchema? = nil,
        includeSchemaInPrompt: Bool = false
    ) -> [ChatMessage] {
        var messages: [ChatMessage] = []
        var pendingToolResponses: [String] = []

        func flushToolResponses() {
            guard !pendingToolResponses.isEmpty else { return }
            messages.append(ChatMessage(role: .user, content: pendingToolResponses.joined(separator: "\n")))
            pendingToolResponses = []
        }

        for entry in transcript {
            if case .toolOutput = entry {} else { flushToolResponses() }
            switch entry {
            case .instructions(let instructions):
                var content = instructions.segments.renderedText
                let tools = instructions.toolDefinitions
                if style == .hermes && !tools.isEmpty {
                    let block = HermesToolFormat.systemBlock(for: tools)
                    content = content.isEmpty ? block : content + "\n\n" + block
                }
                if !content.isEmpty { messages.append(ChatMessage(role: .system, content: content)) }
            case .prompt(let prompt):
                var content = prompt.segments.renderedText
                if includeSchemaInPrompt, let schema = prompt.responseFormat?.schema ?? responseSchema {
                    content += "\n\nRespond with JSON that follows this JSON schema:\n" + schema.canonicalJSON
                }
                messages.append(ChatMessage(role: .user, content: content))
            case .toolCalls(let calls):
                switch style {
                case .hermes:
                    messages.append(ChatMessage(role: .assistant, content: HermesToolFormat.render(calls: Array(calls))))
                case .template:
                    messages.append(ChatMessage(role: .assistant, content: "", toolCalls: Array(calls)))
                }
            case .toolOutput(let output):
                switch style {
                case .hermes:
                    pendingToolResponses.append(HermesToolFormat.render(output: output))
                case .template:
                    messages.append(
                        ChatMessage(role: .tool, content: output.segments.renderedText, toolCallID: output.id, name: output.toolName))
                }
            case .response(let response):
                messages.append(ChatMessage(role: .assistant, content: response.segments.renderedText))
            case .reasoning:
                // Reasoning stays out of later turns, as reasoning templates drop it too.
                continue
            }
        }
        flushToolResponses()
        return messages
    }
}
