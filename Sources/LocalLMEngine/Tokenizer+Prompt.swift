import LocalLMTokenizers

extension Tokenizer {
    /// A rendered prompt's token ids, the one BOS rule of every caller (sessions, `locallm generate`):
    /// specials are parsed (the template writes them as text), and BOS is added when the vocabulary
    /// asks for it (`add_bos_token`) and the template did not already write it.
    package func promptTokens(rendered text: String) -> [Int] {
        var ids = encode(text, addSpecial: false, parseSpecial: true).map(Int.init)
        if vocabulary.addBOS, let bos = vocabulary.bos, ids.first != Int(bos) {
            ids.insert(Int(bos), at: 0)
        }
        return ids
    }
}
