import LocalLMEngine
import LocalLMJSON

/// The API layer's one job towards chat rendering: a transcript becomes engine messages and tools
/// (JSON values); the engine's ``ChatRenderer`` and ``ToolCallFormat`` do the rest.
extension Transcript {
    /// The messages of this transcript. `responseSchema` (or a prompt's own response format) is
    /// described in the prompt when `includeSchemaInPrompt`.
    package func chatMessages(responseSchema: GenerationSchema? = nil, includeSchemaInPrompt: Bool = false) -> [ChatMessage] {
        var messages: [ChatMessage] = []
        // Reasoning goes with the assistant message that follows it (`reasoning_content`); the
        // template decides whether later turns show it (Qwen3's drops it before the last question).
        var reasoning: String?
        for entry in self {
            switch entry {
            case .instructions(let instructions):
                // Empty instructions leave the template its default system message (Qwen's); tool
                // text for templates that know no tools gets a system message of its own.
                let content = instructions.segments.renderedText
                if !content.isEmpty { messages.append(ChatMessage(role: .system, content: content)) }
            case .prompt(let prompt):
                var content = prompt.segments.renderedText
                if includeSchemaInPrompt, let schema = prompt.responseFormat?.schema ?? responseSchema {
                    content += "\n\nRespond with JSON that follows this JSON schema:\n" + schema.canonicalJSON
                }
                messages.append(ChatMessage(role: .user, content: content))
            case .toolCalls(let calls):
                messages.append(ChatMessage(role: .assistant, content: "", toolCalls: calls.map {
                    ChatToolCall(id: $0.id, name: $0.toolName, arguments: $0.arguments.jsonValue)
                }, reasoningContent: reasoning))
                reasoning = nil
            case .toolOutput(let output):
                messages.append(ChatMessage(role: .tool, content: output.segments.renderedText, toolCallID: output.id, name: output.toolName))
            case .response(let response):
                messages.append(ChatMessage(role: .assistant, content: response.segments.renderedText, reasoningContent: reasoning))
                reasoning = nil
            case .reasoning(let entry):
                reasoning = (reasoning.map { $0 + "\n" } ?? "") + entry.segments.renderedText
            }
        }
        return messages
    }

    /// The tools of the transcript's instructions, as the engine takes them.
    package var chatTools: [ChatTool] {
        for entry in self {
            if case .instructions(let instructions) = entry { return instructions.toolDefinitions.map(\.chatTool) }
        }
        return []
    }
}

extension Transcript.ToolDefinition {
    /// The tool as the engine takes it: the prompt shows the arguments' schema as a caller writes
    /// one for a chat template (`promptJSONSchema`); the grammar enforces the full schema.
    package var chatTool: ChatTool {
        ChatTool(name: name, description: description, parameters: parameters.jsonSchema.jsonValue,
                 shownParameters: parameters.promptJSONSchema.jsonValue)
    }
}

extension GeneratedContent {
    /// Content for a JSON value (a repeated key keeps its last value, in its first place).
    package init(jsonValue: JSONValue) {
        switch jsonValue {
        case .null: self.init(kind: .null)
        case .bool(let b): self.init(kind: .bool(b))
        case .number(let text): self.init(kind: .number(Double(text) ?? .nan))
        case .string(let s): self.init(kind: .string(s))
        case .array(let a): self.init(kind: .array(a.map(GeneratedContent.init(jsonValue:))))
        case .object(let members):
            var properties: [String: GeneratedContent] = [:]
            var keys: [String] = []
            for (key, value) in members {
                if properties[key] == nil { keys.append(key) }
                properties[key] = GeneratedContent(jsonValue: value)
            }
            self.init(kind: .structure(properties: properties, orderedKeys: keys))
        }
    }
}
