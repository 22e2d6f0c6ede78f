import Foundation
import LocalLMGGUF
import LocalLMGrammar
import LocalLMJinja
import LocalLMRuntime
import LocalLMTokenizers

/// A GGUF model on LocalLM's runtime: weights, tokenizer, chat template, and the grammars compiled
/// for it. Immutable (the grammar cache is behind a lock) and shared by every conversation on the
/// model; each conversation keeps its own sequence (KV cache).
package final class GGUFEngine: Sendable {
    package let model: TransformerModel
    package let tokenizer: Tokenizer
    package let chatTemplate: ModelChatTemplate
    /// Renders chat messages with `chatTemplate`. Made once: it probes the template (its tool and
    /// call conventions, whether it has a system role) when it is made.
    package let renderer: ChatRenderer
    package let contextSize: Int
    /// Language codes from `general.languages`, if the file lists any.
    package let languages: [String]?
    package let cacheType: KVCacheStorage
    /// The file's name, reported as the response's model id.
    package let name: String
    /// The grammar's view of the vocabulary (one builder: `TokenTable(vocabulary:)`), made on first use.
    private let tokenTable: Locked<TokenTable?> = Locked(nil)
    /// Compiled grammars by key: tool sets and response schemas repeat across requests. Bounded:
    /// each holds its grammar, entry cache and stored masks, and keys come from requests.
    private let grammars = Locked(RecentlyUsed<GrammarTokenIndex>(capacity: GGUFEngine.maxCachedGrammars))
    package static let maxCachedGrammars = 64

    /// Loads `url`. `contextSize` nil: the model's training context, capped at 4096.
    package init(contentsOf url: URL, threads: Int?, contextSize: Int?, cacheType: KVCacheStorage) throws {
        let file = try GGUFFile(contentsOf: url)
        tokenizer = Tokenizer(vocabulary: try Vocabulary(gguf: file))
        chatTemplate = try ModelChatTemplate(gguf: file)
        renderer = ChatRenderer(chatTemplate)
        do {
            model = try TransformerModel(file: file, threadCount: threads)
        } catch {
            throw EngineError.unsupportedModel(file: url.lastPathComponent, error)
        }
        let trained = model.configuration.trainedContextLength
        self.contextSize = contextSize ?? min(trained > 0 ? trained : 4096, 4096)
        if case .array(let array)? = file.metadata["general.languages"], let codes = try? array.strings() {
            languages = codes
        } else {
            languages = nil
        }
        self.cacheType = cacheType
        name = url.lastPathComponent
    }

    /// The prompt's token ids for rendered text (see ``LocalLMTokenizers/Tokenizer/promptTokens(rendered:)``).
    package func promptTokens(rendered text: String) -> [Int] {
        tokenizer.promptTokens(rendered: text)
    }

    /// Number of tokens of plain text.
    package func tokenCount(of text: String) -> Int {
        tokenizer.encode(text, addSpecial: false, parseSpecial: false).count
    }

    /// A new sequence (KV cache) for one conversation.
    package func makeSequence() throws -> ModelSequence {
        try model.makeSequence(contextSize: contextSize, cacheType: cacheType)
    }

    /// The grammar's view of this vocabulary.
    package var grammarTokens: TokenTable {
        tokenTable.withLock { table in
            if let table { return table }
            let plain = TokenTable(vocabulary: tokenizer.vocabulary)
            // Tool-call markers are text to the call grammars even where the vocabulary marks them
            // as control tokens (`[TOOL_CALLS]`, `<|python_tag|>`): a format's grammar writes them.
            let markers = Set(ToolCallFormat.markers.map { Array($0.utf8) })
            let markerIDs = plain.special.filter { markers.contains(plain.tokenBytes[$0]) && !plain.endOfGeneration.contains($0) }
            let made =
                markerIDs.isEmpty
                ? plain
                : TokenTable(tokenBytes: plain.tokenBytes, endOfGeneration: plain.endOfGeneration, special: plain.special.subtracting(markerIDs))
            table = made
            return made
        }
    }

    /// The token index of a grammar, compiled once per key.
    package func grammarIndex(key: String, compile: () throws -> CompiledGrammar) throws -> GrammarTokenIndex {
        if let cached = grammars.withLock({ $0.value(for: key) }) { return cached }
        let index = GrammarTokenIndex(grammar: try compile(), tokens: grammarTokens)
        grammars.withLock { $0.insert(index, for: key) }
        return index
    }

    package func isEndOfGeneration(_ token: Int) -> Bool {
        tokenizer.vocabulary.isEndOfGeneration(Int32(token))
    }
}
