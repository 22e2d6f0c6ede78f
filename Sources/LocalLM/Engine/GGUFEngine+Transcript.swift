import LocalLMEngine

extension GGUFEngine {
    /// Renders transcripts with this model's chat template.
    var renderer: PromptRenderer {
        PromptRenderer(template: chatTemplate.template, bosToken: chatTemplate.bosToken, eosToken: chatTemplate.eosToken)
    }

    /// Number of tokens the transcript takes once rendered with the chat template.
    func tokenCount(of transcript: Transcript) throws -> Int {
        promptTokens(rendered: try renderer.render(transcript, addGenerationPrompt: false)).count
    }
}
