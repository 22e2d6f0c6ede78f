import LocalLMJSON
import LocalLMJinja

/// Renders chat messages into the text the model reads, with the model's chat template
/// (`tokenizer.chat_template`, ChatML when the GGUF has none). Immutable; shared by conversations.
///
/// A template that mentions `tools` renders the tool definitions, calls and tool messages itself
/// (Qwen2.5's does). One that does not (SmolLM2's plain ChatML) gets the Hermes convention as text:
/// the tool list in the system message, calls as `<tool_call>` blocks in assistant messages, and
/// the outputs of one round as `<tool_response>` blocks of one user message. Phi-4-mini's takes the
/// tool list only as a string on the system message (`message['tools']`), and renders calls and
/// outputs as plain messages: calls go in as text, outputs as `tool` messages.
package struct ChatRenderer: Sendable {
    package let template: ChatTemplate
    package let bosToken: String
    package let eosToken: String
    /// Whether the template renders `tools` itself, or tools go in as text in `format`.
    package let templateTakesTools: Bool
    /// Whether the template renders assistant messages' `tool_calls` (LFM2's takes `tools` and
    /// renders only `content`: calls then go in as text in `format`).
    package let templateRendersCalls: Bool
    /// Whether the template takes the tool list as a JSON string on the system message
    /// (`message['tools']`, Phi-4-mini) rather than as `tools`.
    package let templateTakesSystemToolList: Bool
    /// How this model's family writes tool calls.
    package let format: ToolCallFormat
    /// How the model reasons, when its template has a reasoning mode.
    package let reasoning: ReasoningFormat?
    /// Whether the template renders a system message. One that refuses it or drops it (Gemma 2's
    /// raises "System role not supported") gets the system text at the start of the next user
    /// message instead, as llama.cpp's templating (minja's system-role polyfill) does.
    package let supportsSystemRole: Bool

    package init(template: ChatTemplate, bosToken: String = "", eosToken: String = "") {
        self.template = template
        self.bosToken = bosToken
        self.eosToken = eosToken
        templateTakesTools = template.source.contains("tools")
        templateRendersCalls = template.source.contains("tool_calls")
        templateTakesSystemToolList = template.source.contains("message['tools']") || template.source.contains("message.tools")
        format = ToolCallFormat(templateSource: template.source)
        reasoning = ReasoningFormat(templateSource: template.source)
        // minja's probe: a system message with a needle, then a user message.
        let needle = "<System Needle>"
        let probe = try? template.render(
            messages: [Self.jinja(message: ChatMessage(role: .system, content: needle)), Self.jinja(message: ChatMessage(role: .user, content: "Hey"))],
            tools: nil, addGenerationPrompt: false, bosToken: bosToken, eosToken: eosToken, extra: [:])
        supportsSystemRole = probe?.contains(needle) ?? false
    }

    package init(_ model: ModelChatTemplate) {
        self.init(template: model.template, bosToken: model.bosToken, eosToken: model.eosToken)
    }

    /// The prompt for `messages`, with `tools` offered (none: the template's tool-less form), ending
    /// with the assistant's generation prompt when `addGenerationPrompt`. `enableThinking` sets the
    /// template's thinking switch (`enable_thinking`); `nil` leaves it undefined, the template's default.
    package func render(
        _ messages: [ChatMessage], tools: [ChatTool] = [], addGenerationPrompt: Bool = true, enableThinking: Bool? = nil
    ) throws(EngineError) -> String {
        let rendered =
            templateTakesSystemToolList ? systemToolListMessages(messages, tools: tools)
            : !templateTakesTools ? textMessages(messages, tools: tools)
            : templateRendersCalls ? messages
            : messages.map { $0.toolCalls.isEmpty ? $0 : callsAsText($0) }
        let shown = supportsSystemRole ? rendered : Self.systemTextInUserMessages(rendered)
        let templateTools: [JinjaValue]? =
            templateTakesTools && !templateTakesSystemToolList && !tools.isEmpty ? tools.map { JinjaValue(json: $0.definition) } : nil
        do {
            return try template.render(
                messages: shown.map(Self.jinja(message:)), tools: templateTools, addGenerationPrompt: addGenerationPrompt,
                bosToken: bosToken, eosToken: eosToken, extra: enableThinking.map { ["enable_thinking": .bool($0)] } ?? [:])
        } catch {
            throw .template(error)
        }
    }

    /// The messages with tools, calls and outputs written as text in `format`.
    package func textMessages(_ messages: [ChatMessage], tools: [ChatTool]) -> [ChatMessage] {
        var out: [ChatMessage] = []
        var pendingOutputs: [String] = []
        func flush() {
            guard !pendingOutputs.isEmpty else { return }
            out.append(ChatMessage(role: .user, content: pendingOutputs.joined(separator: "\n")))
            pendingOutputs = []
        }
        var toolsPlaced = tools.isEmpty
        for message in messages {
            if message.role != .tool { flush() }
            switch message.role {
            case .system where !toolsPlaced:
                let block = format.systemBlock(for: tools)
                out.append(ChatMessage(role: .system, content: message.content.isEmpty ? block : message.content + "\n\n" + block))
                toolsPlaced = true
            case .assistant where !message.toolCalls.isEmpty:
                out.append(callsAsText(message))
            case .tool:
                pendingOutputs.append(format.render(output: message.content))
            default:
                out.append(message)
            }
        }
        flush()
        if !toolsPlaced {
            let block = format.systemBlock(for: tools)
            if format.family == .generic, let first = out.firstIndex(where: { $0.role == .user }) {
                // Templates that know no tools and no ChatML (Gemma) may have no system role either
                // (Gemma 2 refuses one; Gemma 3 folds it into the first user turn): the tool text
                // opens the first user message.
                out[first].content = block + "\n\n" + out[first].content
            } else {
                out.insert(ChatMessage(role: .system, content: block), at: 0)
            }
        }
        return out
    }

    /// The system message Microsoft's Phi-4-mini model card gives for a tool list when the
    /// conversation has none.
    package static let defaultToolSystemPrompt = "You are a helpful assistant with some tools."

    /// The messages for a template that takes the tool list on the system message: the functions as
    /// one JSON list there (a system message with the model card's text first, when there is none),
    /// calls as text in the family's form, outputs as `tool` messages.
    package func systemToolListMessages(_ messages: [ChatMessage], tools: [ChatTool]) -> [ChatMessage] {
        let list = tools.isEmpty ? nil : Self.pythonJSON(.array(tools.map(\.function)))
        var out = messages.map { message -> ChatMessage in
            guard message.role == .system else { return message.toolCalls.isEmpty ? message : callsAsText(message) }
            var system = message
            system.toolList = list
            return system
        }
        if let list, !out.contains(where: { $0.role == .system }) {
            out.insert(ChatMessage(role: .system, content: Self.defaultToolSystemPrompt, toolList: list), at: 0)
        }
        return out
    }

    /// The messages without system messages, for templates that do not render them (minja's
    /// polyfill, so the prompt is llama.cpp's): system texts, joined by a newline, open the next
    /// user message (then a newline); before any other message, or at the end, they become a user
    /// message of their own.
    package static func systemTextInUserMessages(_ messages: [ChatMessage]) -> [ChatMessage] {
        var out: [ChatMessage] = []
        var pending = ""
        for var message in messages {
            switch message.role {
            case .system:
                if !pending.isEmpty { pending += "\n" }
                pending += message.content
                continue
            case .user where !pending.isEmpty:
                message.content = pending + (message.content.isEmpty ? "" : "\n" + message.content)
                pending = ""
            default:
                if !pending.isEmpty { out.append(ChatMessage(role: .user, content: pending)) }
                pending = ""
            }
            out.append(message)
        }
        if !pending.isEmpty { out.append(ChatMessage(role: .user, content: pending)) }
        return out
    }

    /// An assistant message whose calls are written into its text, in the family's form.
    private func callsAsText(_ message: ChatMessage) -> ChatMessage {
        let calls = format.render(calls: message.toolCalls)
        return ChatMessage(
            role: .assistant, content: message.content.isEmpty ? calls : message.content + "\n" + calls,
            reasoningContent: message.reasoningContent)
    }

    private static func jinja(message: ChatMessage) -> JinjaValue {
        var pairs: [(String, JinjaValue)] = [("role", .string(message.role.rawValue)), ("content", .string(message.content))]
        if !message.toolCalls.isEmpty {
            let calls = message.toolCalls.map { call in
                JinjaValue(json: .object([
                    ("id", .string(call.id)), ("type", .string("function")),
                    ("function", .object([("name", .string(call.name)), ("arguments", call.arguments)])),
                ]))
            }
            pairs.append(("tool_calls", .array(calls)))
        }
        if let id = message.toolCallID { pairs.append(("tool_call_id", .string(id))) }
        if let name = message.name { pairs.append(("name", .string(name))) }
        if let reasoning = message.reasoningContent { pairs.append(("reasoning_content", .string(reasoning))) }
        if let list = message.toolList { pairs.append(("tools", .string(list))) }
        return .object(JinjaObject(pairs))
    }

    /// JSON as Python's `json.dumps` writes it (`", "` and `": "`), as templates' `tojson` does.
    package static func pythonJSON(_ value: JSONValue) -> String {
        (try? JinjaValue(json: value).json()) ?? value.compactText
    }
}
