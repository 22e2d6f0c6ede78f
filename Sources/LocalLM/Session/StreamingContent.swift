import LocalLMJSON
import LocalLMSync

/// The content of a response in progress, for streaming snapshots: the text itself, or (with a
/// schema) the JSON parsed as far as it goes. One per executor call; the text only grows, and each
/// update parses only what was added (LocalLMJSON's `JSONStreamParser`).
package final class StreamingContent: Sendable {
    private let structured: Bool
    /// The parser and how many UTF-8 bytes of the text it has read.
    private let state = SanitizableMutex((parser: JSONStreamParser<GeneratedContent.JSONBuilder>(), fed: 0))

    package init(structured: Bool) {
        self.structured = structured
    }

    /// The snapshot for the response text so far.
    package func update(_ text: String) -> GeneratedContent {
        guard structured else { return GeneratedContent(text) }
        return state.withLock { state in
            let count = text.utf8.count
            if count < state.fed { state = (JSONStreamParser(), 0) }  // not a continuation: start over
            state.parser.append(String(decoding: text.utf8.dropFirst(state.fed), as: UTF8.self))
            state.fed = count
            return state.parser.snapshot ?? GeneratedContent(kind: .null)
        }
    }

    /// The parser's work so far (bytes scanned), for tests.
    package var bytesScanned: Int { state.withLock { $0.parser.bytesScanned } }
}
