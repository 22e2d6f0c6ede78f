import Foundation
import LocalLMGGUF
import LocalLMGrammar
import LocalLMJinja
import LocalLMRuntime
import LocalLMTokenizers
import Logging

/// A GGUF model on LocalLM's runtime: weights, tokenizer, chat template. Immutable, shared by
/// every session on the model (each makes its own `GGUFConversation`).
package final class GGUFEngine: LocalEngine {
    package let model: TransformerModel
    package let tokenizer: Tokenizer
    package let renderer: PromptRenderer
    package let contextSize: Int
    package let languages: [String]?
    package let cacheType: LocalLMRuntime.KVCacheStorage
    package let name: String
    /// Token bytes for grammar masks, made on first use.
    private let tokenTable: Locked<TokenTable?> = Locked(nil)
    /// Compiled grammars by schema text: tool sets and response schemas repeat across requests.
    private let grammars = Locked<[String: GrammarTokenIndex]>([:])

    package init(key: EngineKey) throws {
        let url = URL(fileURLWithPath: key.path)
        let file = try GGUFFile(contentsOf: url)
        let vocabulary = try Vocabulary(gguf: file)
        tokenizer = Tokenizer(vocabulary: vocabulary)
        let chat = try ModelChatTemplate(gguf: file)
        renderer = PromptRenderer(template: chat.template, bosToken: chat.bosToken, eosToken: chat.eosToken)
        do {
            model = try TransformerModel(file: file, threadCount: key.configuration.threads)
        } catch {
            throw UnsupportedModel("\(url.lastPathComponent): \(error)")
        }
        let trained = model.configuration.trainedContextLength
        contextSize = key.configuration.contextSize ?? min(trained > 0 ? trained : 4096, 4096)
        if case .array(let array)? = file.metadata["general.languages"], let codes = try? array.strings() {
            languages = codes
        } else {
            languages = nil
        }
        cacheType =
            switch key.configuration.kvCacheType {
            case .f32: .f32
            case .f16: .f16
            }
        name = url.lastPathComponent
    }

    /// The prompt's token ids: the rendered text, with BOS when the vocabulary asks for it and the
    /// template did not write it.
    package func tokens(for text: String) -> [Int] {
        var ids = tokenizer.encode(text, addSpecial: false, parseSpecial: true).map(Int.init)
        if tokenizer.vocabulary.addBOS, let bos = tokenizer.vocabulary.bos, ids.first != Int(bos) {
            ids.insert(Int(bos), at: 0)
        }
        return ids
    }

    package func tokenCount(of transcript: Transcript) throws -> Int {
        tokens(for: try renderer.render(transcript, addGenerationPrompt: false)).count
    }

    package func tokenCount(of text: String) throws -> Int {
        tokenizer.encode(text, addSpecial: false, parseSpecial: false).count
    }

    package func makeConversation(logger: Logger) throws -> any LocalConversation {
        GGUFConversation(engine: self, logger: logger)
    }

    /// The token index of a grammar, compiled once per schema text.
    package func grammarIndex(key: String, compile: () throws -> CompiledGrammar) throws -> GrammarTokenIndex {
        if let cached = grammars.withLock({ $0[key] }) { return cached }
        let table = tokenTable.withLock { table -> TokenTable in
            if let table { return table }
            let vocabulary = tokenizer.vocabulary
            var special = Set<Int>()
            var bytes: [[UInt8]] = []
            bytes.reserveCapacity(vocabulary.count)
            for id in 0..<vocabulary.count {
                let attributes = vocabulary.attributes(of: Int32(id))
                if attributes.contains(.control) || attributes.contains(.unused) || attributes.contains(.undefined) {
                    special.insert(id)
                    bytes.append([])
                } else {
                    bytes.append(tokenizer.tokenBytes(Int32(id), special: false))
                }
            }
            let made = TokenTable(
                tokenBytes: bytes, endOfGeneration: Set(vocabulary.endOfGenerationIDs.map(Int.init)), special: special)
            table = made
            return made
        }
        let index = GrammarTokenIndex(grammar: try compile(), tokens: table)
        grammars.withLock { $0[key] = index }
        return index
    }

    package func isEndOfGeneration(_ token: Int) -> Bool {
        tokenizer.vocabulary.isEndOfGeneration(Int32(token))
    }
}
