import Foundation

extension LanguageModelSession {
    /// The answer to one request.
    public struct Response<Content: Generable> {
        /// The response, as the requested type.
        public let content: Content
        /// The response as generated content (a string for text responses).
        public let rawContent: GeneratedContent
        /// The transcript entries this request added: its prompt, any tool calls and outputs,
        /// and the response.
        public let transcriptEntries: ArraySlice<Transcript.Entry>
        /// Token counts of the request, summed over its tool-calling rounds.
        public let usage: Usage

        package init(content: Content, rawContent: GeneratedContent, transcriptEntries: ArraySlice<Transcript.Entry>, usage: Usage) {
            self.content = content
            self.rawContent = rawContent
            self.transcriptEntries = transcriptEntries
            self.usage = usage
        }
    }
}

extension LanguageModelSession.Response: Sendable where Content: Sendable {}
