import LocalLMTokenizers

extension TransformerModel {
    /// The model's own tokenizer, from the same mapped file.
    public func makeTokenizer() throws -> Tokenizer {
        Tokenizer(vocabulary: try Vocabulary(gguf: file))
    }
}
