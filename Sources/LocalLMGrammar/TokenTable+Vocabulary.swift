import LocalLMTokenizers

extension TokenTable {
    /// The grammar's view of a tokenizer vocabulary: each token's detokenized bytes, its
    /// end-of-generation ids, and as special the control, unknown and unused tokens.
    /// User-defined tokens (added tokens such as `<tool_call>` in some models) stay ordinary text,
    /// so a grammar can match them by their bytes.
    public convenience init(vocabulary: Vocabulary) {
        var bytes: [[UInt8]] = []
        bytes.reserveCapacity(vocabulary.count)
        var special = Set<Int>()
        for id in 0..<vocabulary.count {
            bytes.append(vocabulary.tokenBytes(Int32(id)))
            let a = vocabulary.attributes(of: Int32(id))
            if !a.isDisjoint(with: [.control, .unknown, .unused]) { special.insert(id) }
        }
        self.init(tokenBytes: bytes, endOfGeneration: Set(vocabulary.endOfGenerationIDs.map(Int.init)), special: special)
    }
}
