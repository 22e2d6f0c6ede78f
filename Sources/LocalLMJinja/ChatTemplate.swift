import Foundation

/// A model's chat template (`tokenizer.chat_template`), parsed once and rendered the way Hugging
/// Face's `apply_chat_template` renders it: jinja2 with `trim_blocks` and `lstrip_blocks`, the
/// immutable sandbox, `tojson` as `json.dumps(…, ensure_ascii=False)`, `raise_exception` and
/// `strftime_now`. Immutable and Sendable; render from any thread.
public struct ChatTemplate: Sendable {
    public let source: String
    let nodes: [JinjaNode]

    /// Parses `source`; a syntax error or an unknown filter outside an `if` is a `JinjaError`.
    public init(source: String) throws(JinjaError) {
        self.source = source
        self.nodes = try JinjaParser.parse(source)
    }

    /// The template used for a model whose GGUF has no `tokenizer.chat_template` (Gemma 3 270M
    /// base): ChatML, as Hugging Face's old default. Each message becomes
    /// `<|im_start|>{role}\n{content}<|im_end|>\n`, and `add_generation_prompt` appends
    /// `<|im_start|>assistant\n`. See Docs/chat-templates.md.
    public static let defaultSource = """
        {% for message in messages %}{{ '<|im_start|>' + message['role'] + '\\n' + message['content'] + '<|im_end|>' + '\\n' }}{% endfor %}{% if add_generation_prompt %}{{ '<|im_start|>assistant\\n' }}{% endif %}
        """

    /// The ChatML fallback (see `defaultSource`).
    public static var chatML: ChatTemplate {
        // The literal above is a valid template (tested); a failure here would be a bug in this file.
        (try? ChatTemplate(source: defaultSource)) ?? ChatTemplate(uncheckedNodes: [], source: defaultSource)
    }

    init(uncheckedNodes: [JinjaNode], source: String) {
        self.source = source
        self.nodes = uncheckedNodes
    }

    /// Renders with `context` as the whole set of template variables (plus the globals).
    public func render(context: [String: JinjaValue], options: JinjaRenderOptions = JinjaRenderOptions()) throws(JinjaError) -> String {
        let globals = JinjaFrame(parent: nil)
        globals.variables = JinjaGlobals.make(options: options)
        for (k, v) in context { globals.variables[k] = v }
        return try JinjaInterpreter(options: options).render(nodes, globals: globals)
    }

    /// Renders a JSON object (`{"messages": […], "add_generation_prompt": true, …}`) as the context.
    public func render(contextJSON: JinjaValue, options: JinjaRenderOptions = JinjaRenderOptions()) throws(JinjaError) -> String {
        guard case .object(let o) = contextJSON else {
            throw JinjaError(.type, "the template context must be a JSON object", line: 0)
        }
        var context: [String: JinjaValue] = [:]
        for (k, v) in o.pairs { context[k] = v }
        return try render(context: context, options: options)
    }

    /// Renders a conversation with the standard Hugging Face variables.
    public func render(
        messages: [JinjaValue],
        tools: [JinjaValue]? = nil,
        addGenerationPrompt: Bool,
        bosToken: String = "",
        eosToken: String = "",
        extra: [String: JinjaValue] = [:],
        options: JinjaRenderOptions = JinjaRenderOptions()
    ) throws(JinjaError) -> String {
        var context = extra
        context["messages"] = .array(messages)
        if let tools { context["tools"] = .array(tools) }
        context["add_generation_prompt"] = .bool(addGenerationPrompt)
        context["bos_token"] = .string(bosToken)
        context["eos_token"] = .string(eosToken)
        return try render(context: context, options: options)
    }
}
