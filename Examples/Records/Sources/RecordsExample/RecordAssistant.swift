import LocalLM

extension SessionPropertyValues {
    /// Tool calls the record assistant has made in its session.
    @SessionPropertyEntry
    var recordToolCalls: Int = 0
}

/// The record assistant's session setup: both tools; one tool call is required, then the model
/// answers from what the tool returned without calling more (Apple's documented DynamicProfile
/// pattern, which keeps a small model from answering from memory).
public struct RecordAssistantProfile: LanguageModelSession.DynamicProfile, Sendable {
    public static let instructions = """
        You answer questions about a record collection. Use a tool to look the records up, then answer \
        in one or two sentences using only what the tool returned. If the tool found nothing, say so.
        """

    @LanguageModelSession.SessionProperty(\.recordToolCalls)
    var recordToolCalls

    let store: RecordStore

    public init(store: RecordStore) { self.store = store }

    public var body: some LanguageModelSession.DynamicProfile {
        LanguageModelSession.Profile {
            Self.instructions
            LookUpArtistTool(store: store)
            SuggestByGenreTool(store: store)
        }
        .toolCallingMode(recordToolCalls < 1 ? .required : .disallowed)
        .onToolCall {
            recordToolCalls += 1
        }
    }
}
