import LocalLMGGUF

extension Vocabulary {
    /// Reads `tokenizer.ggml.*` (and `general.name`) from a model file.
    public init(gguf file: GGUFFile) throws(VocabularyError) {
        try self.init(Vocabulary.configuration(from: file.metadata))
    }

    static func configuration(from metadata: GGUFMetadata) throws(VocabularyError) -> Configuration {
        func read<T>(_ key: String, _ body: () throws(GGUFError) -> T) throws(VocabularyError) -> T {
            do {
                return try body()
            } catch {
                throw .metadata(key: key, message: error.description)
            }
        }
        func id(_ key: String) throws(VocabularyError) -> Int32? {
            guard let value = try read(key, { () throws(GGUFError) in try metadata.int(key) }) else { return nil }
            // Ids that do not fit are treated as absent, as llama.cpp ignores out-of-range ids.
            return Int32(exactly: value)
        }
        func flag(_ key: String) throws(VocabularyError) -> Bool? {
            try read(key, { () throws(GGUFError) in try metadata.bool(key) })
        }

        let prefix = "tokenizer.ggml."
        guard let model = try read(prefix + "model", { () throws(GGUFError) in try metadata.string(prefix + "model") }) else {
            throw .missingKey(prefix + "model")
        }
        guard let tokenArray = try read(prefix + "tokens", { () throws(GGUFError) in try metadata.array(prefix + "tokens") }) else {
            throw .missingKey(prefix + "tokens")
        }
        var config = Configuration(model: model, tokens: try read(prefix + "tokens") { () throws(GGUFError) in try tokenArray.stringBytes() })
        config.preTokenizer = try read(prefix + "pre") { () throws(GGUFError) in try metadata.string(prefix + "pre") }
        if let scores = try read(prefix + "scores", { () throws(GGUFError) in try metadata.array(prefix + "scores") }) {
            // llama.cpp accepts FLOAT32 or INT32 scores.
            config.scores = try read(prefix + "scores") { () throws(GGUFError) in
                scores.elementType.isInteger ? try scores.ints().map { Float($0) } : try scores.floats()
            }
        }
        if let types = try read(prefix + "token_type", { () throws(GGUFError) in try metadata.array(prefix + "token_type") }) {
            config.tokenTypes = try read(prefix + "token_type") { () throws(GGUFError) in
                try types.ints().map { Int32(clamping: $0) }
            }
        }
        if let merges = try read(prefix + "merges", { () throws(GGUFError) in try metadata.array(prefix + "merges") }) {
            config.merges = try read(prefix + "merges") { () throws(GGUFError) in try merges.stringBytes() }
        }
        config.bosID = try id(prefix + "bos_token_id")
        config.eosID = try id(prefix + "eos_token_id")
        config.eotID = try id(prefix + "eot_token_id")
        config.eomID = try id(prefix + "eom_token_id")
        config.unknownID = try id(prefix + "unknown_token_id")
        config.separatorID = try id(prefix + "seperator_token_id")
        config.paddingID = try id(prefix + "padding_token_id")
        config.addBOS = try flag(prefix + "add_bos_token")
        config.addEOS = try flag(prefix + "add_eos_token")
        config.addSpacePrefix = try flag(prefix + "add_space_prefix")
        config.modelName = try read("general.name") { () throws(GGUFError) in try metadata.string("general.name") }
        return config
    }
}
