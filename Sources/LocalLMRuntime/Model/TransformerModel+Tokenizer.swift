import LocalLMTokenizers

extension TransformerModel {
    /// The model's own tokenizer, from the same mapped file.
    public func makeTokenizer() throws(VocabularyError) -> Tokenizer {
        Tokenizer(vocabulary: try Vocabulary(gguf: file))
    }
}
