import LocalLMGGUF

/// A model's chat template as its GGUF file gives it: `tokenizer.chat_template` (or the
/// documented ChatML fallback when the file has none, as Gemma 3 270M base), and the BOS/EOS
/// token texts the template expects in `bos_token`/`eos_token`.
public struct ModelChatTemplate: Sendable {
    public let template: ChatTemplate
    /// True when the GGUF had no `tokenizer.chat_template` and `ChatTemplate.chatML` is used.
    public let isFallback: Bool
    /// Text of `tokenizer.ggml.bos_token_id` ("" when the model has none).
    public let bosToken: String
    /// Text of `tokenizer.ggml.eos_token_id` ("" when the model has none).
    public let eosToken: String

    public init(template: ChatTemplate, isFallback: Bool, bosToken: String, eosToken: String) {
        self.template = template
        self.isFallback = isFallback
        self.bosToken = bosToken
        self.eosToken = eosToken
    }

    /// Reads the template and special-token texts from GGUF metadata. Throws `GGUFError` for
    /// malformed metadata and `JinjaError` when the embedded template does not parse.
    public init(gguf: GGUFFile) throws {
        let metadata = gguf.metadata
        let tokens = try metadata.array("tokenizer.ggml.tokens")?.strings() ?? []
        func text(_ key: String) throws -> String {
            guard let id = try metadata.int(key), tokens.indices.contains(id) else { return "" }
            return tokens[id]
        }
        if let source = try metadata.string("tokenizer.chat_template") {
            self.init(template: try ChatTemplate(source: source), isFallback: false,
                      bosToken: try text("tokenizer.ggml.bos_token_id"), eosToken: try text("tokenizer.ggml.eos_token_id"))
        } else {
            self.init(template: ChatTemplate.chatML, isFallback: true,
                      bosToken: try text("tokenizer.ggml.bos_token_id"), eosToken: try text("tokenizer.ggml.eos_token_id"))
        }
    }

    /// Renders `context`, adding `bos_token`/`eos_token` from the model unless the context sets them.
    public func render(context: [String: JinjaValue], options: JinjaRenderOptions = JinjaRenderOptions()) throws(JinjaError) -> String {
        var context = context
        if context["bos_token"] == nil { context["bos_token"] = .string(bosToken) }
        if context["eos_token"] == nil { context["eos_token"] = .string(eosToken) }
        return try template.render(context: context, options: options)
    }
}
