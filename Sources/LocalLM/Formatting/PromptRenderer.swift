import Foundation
import LocalLMJinja
import LocalLMTokenizers

/// Renders transcripts into the text the model reads, with the model's chat template
/// (`tokenizer.chat_template`, ChatML when the GGUF has none). Immutable; shared by sessions.
package struct PromptRenderer: Sendable {
    package let template: ChatTemplate
    package let bosToken: String
    package let eosToken: String
    /// Whether the template renders `tools` itself, or tools go in as Hermes text.
    package let toolStyle: ToolPromptStyle

    package init(template: ChatTemplate, bosToken: String = "", eosToken: String = "") {
        self.template = template
        self.bosToken = bosToken
        self.eosToken = eosToken
        // A template that mentions `tools` renders tool definitions, calls and tool messages;
        // SmolLM2's plain ChatML does not, so it gets the Hermes fallback.
        toolStyle = template.source.contains("tools") ? .template : .hermes
    }

    /// A failure to render, with the template's own message.
    package struct RenderError: Error, CustomStringConvertible {
        package let description: String
    }

    /// The prompt text for a transcript, ending with the assistant's generation prompt.
    package func render(
        _ transcript: Transcript, responseSchema: GenerationSchema? = nil, includeSchemaInPrompt: Bool = false,
        addGenerationPrompt: Bool = true
    ) throws -> String {
        let messages = ChatMessages.make(
            from: transcript, style: toolStyle, responseSchema: responseSchema, includeSchemaInPrompt: includeSchemaInPrompt)
        var tools: [JinjaValue]?
        if toolStyle == .template {
            let definitions = transcript.lazy.compactMap { entry -> [Transcript.ToolDefinition]? in
                if case .instructions(let instructions) = entry { return instructions.toolDefinitions }
                return nil
            }.first ?? []
            if !definitions.isEmpty { tools = try definitions.map(Self.jinja(tool:)) }
        }
        do {
            return try template.render(
                messages: try messages.map(Self.jinja(message:)), tools: tools, addGenerationPrompt: addGenerationPrompt,
                bosToken: bosToken, eosToken: eosToken)
        } catch {
            throw RenderError(description: "the chat template failed: \(error)")
        }
    }

    private static func jinja(json content: GeneratedContent) throws -> JinjaValue {
        do {
            return try JinjaValue(jsonString: content.jsonString)
        } catch {
            throw RenderError(description: "cannot pass \(content.jsonString) to the template: \(error)")
        }
    }

    private static func jinja(tool: Transcript.ToolDefinition) throws -> JinjaValue {
        try jinja(json: GeneratedContent(properties: [
            "type": "function",
            "function": GeneratedContent(properties: [
                "name": tool.name, "description": tool.description, "parameters": tool.parameters.jsonSchema,
            ]),
        ]))
    }

    private static func jinja(message: ChatMessage) throws -> JinjaValue {
        var pairs: [(String, JinjaValue)] = [("role", .string(message.role.rawValue)), ("content", .string(message.content))]
        if !message.toolCalls.isEmpty {
            let calls = try message.toolCalls.map { call in
                try jinja(json: GeneratedContent(properties: [
                    "id": call.id, "type": "function",
                    "function": GeneratedContent(properties: ["name": call.toolName, "arguments": call.arguments]),
                ]))
            }
            pairs.append(("tool_calls", .array(calls)))
        }
        if let id = message.toolCallID { pairs.append(("tool_call_id", .string(id))) }
        if let name = message.name { pairs.append(("name", .string(name))) }
        return .object(JinjaObject(pairs))
    }
}
