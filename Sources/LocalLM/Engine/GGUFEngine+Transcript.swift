import LocalLMEngine

extension GGUFEngine {
    /// Number of tokens the transcript takes once rendered with the chat template.
    func tokenCount(of transcript: Transcript) throws -> Int {
        let text = try renderer.render(transcript.chatMessages(), tools: transcript.chatTools, addGenerationPrompt: false)
        return promptTokens(rendered: text).count
    }
}
