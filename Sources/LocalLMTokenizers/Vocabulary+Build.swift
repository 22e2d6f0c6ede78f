extension Vocabulary {
    /// Builds a vocabulary from `tokenizer.*` values, applying llama.cpp's defaults and its
    /// text-based fix-ups (end-of-turn detection, unused tokens, end-of-generation set).
    public init(_ config: Configuration) throws(VocabularyError) {
        let n = config.tokens.count
        guard n > 0 else { throw .invalidValue(key: "tokenizer.ggml.tokens", reason: "empty") }
        guard n < Int(Int32.max) else { throw .invalidValue(key: "tokenizer.ggml.tokens", reason: "too many tokens") }
        if let scores = config.scores, scores.count < n {
            throw .invalidValue(key: "tokenizer.ggml.scores", reason: "\(scores.count) scores for \(n) tokens")
        }
        if let types = config.tokenTypes, types.count < n {
            throw .invalidValue(key: "tokenizer.ggml.token_type", reason: "\(types.count) types for \(n) tokens")
        }

        var bos: Int32?
        var eos: Int32?
        var unknown: Int32?
        var addBOS = false
        var addSpacePrefix = false
        var preTokenizer: PreTokenizer?
        switch config.model {
        case "llama":
            kind = .sentencePiece
            bos = 1; eos = 2; unknown = 0
            addBOS = true
            addSpacePrefix = true
            preTokenizerName = ""
        case "gpt2", "gemma4":
            guard config.merges != nil else { throw .missingKey("tokenizer.ggml.merges") }
            let name: String
            if config.model == "gemma4" {
                // llama.cpp has no default special ids for Gemma 4 and ignores tokenizer.ggml.pre.
                kind = .gemma4
                name = "gemma4"
            } else {
                kind = .bytePairEncoding
                bos = 11; eos = 11
                name = config.preTokenizer.flatMap { $0.isEmpty ? nil : $0 } ?? "default"
            }
            let pre = try PreTokenizer(name: name)
            if let add = pre.addBOS { addBOS = add }
            if pre.clearBOS { bos = nil }
            preTokenizer = pre
            preTokenizerName = name
        default:
            throw .unsupportedModel(config.model)
        }
        self.preTokenizer = preTokenizer
        ignoreMerges = preTokenizer?.ignoreMerges ?? false
        escapesWhitespace = preTokenizer?.escapesWhitespace ?? true
        if let add = config.addSpacePrefix { addSpacePrefix = add }

        // Texts: llama.cpp renames empty tokens so that every text is a distinct key.
        var texts = config.tokens
        for i in texts.indices where texts[i].isEmpty {
            texts[i] = Array("[EMPTY_\(i)]".utf8)
        }
        self.texts = texts
        scores = config.scores.map { Array($0.prefix(n)) } ?? [Float](repeating: 0, count: n)
        var attributes: [TokenAttributes] = config.tokenTypes.map { $0.prefix(n).map(TokenAttributes.init(ggufTokenType:)) }
            ?? [TokenAttributes](repeating: .normal, count: n)
        textToID = ByteStringTable(keys: texts, values: (0..<Int32(n)).map { $0 })

        // Special ids: a default out of range is dropped; a metadata id out of range keeps the default.
        func resolve(_ defaultID: Int32?, _ given: Int32?) -> Int32? {
            var id = defaultID
            if let d = id, d < 0 || Int(d) >= n { id = nil }
            if let g = given, g >= 0, Int(g) < n { id = g }
            return id
        }
        bos = resolve(bos, config.bosID)
        eos = resolve(eos, config.eosID)
        unknown = resolve(unknown, config.unknownID)
        var eot = resolve(nil, config.eotID)
        var eom = resolve(nil, config.eomID)
        separator = resolve(nil, config.separatorID)
        padding = resolve(nil, config.paddingID)
        if let add = config.addBOS { addBOS = add }
        if preTokenizer?.forcesBOS == true { addBOS = true }
        addEOS = config.addEOS ?? false

        let textOf: (Int) -> String = { String(decoding: texts[$0], as: UTF8.self) }
        func markControl(_ id: Int32) {
            attributes[Int(id)].insert(.control)
        }
        // End-of-turn / end-of-message by text, as llama.cpp does when the metadata has none. llama.cpp
        // walks a hash map, so among several candidates its choice is unspecified; the first text of the
        // list below that the vocabulary has is chosen here. Every candidate is end-of-generation anyway.
        let eotTexts = ["<|eot_id|>", "<|im_end|>", "<|end|>", "<end_of_turn>", "<|endoftext|>", "<|end_of_text|>",
                        "<EOT>", "_<EOT>", "[EOT]", "<｜end▁of▁sentence｜>", "<end_of_utterance>"]
        if eot == nil {
            for text in eotTexts {
                if let id = textToID.lookup(Array(text.utf8)) { eot = id; markControl(id); break }
            }
        }
        if eom == nil, let id = textToID.lookup(Array("<|eom_id|>".utf8)) { eom = id; markControl(id) }
        // Fill-in-the-middle pad/repo/sep tokens are end-of-generation and control.
        var endOfGeneration = Set<Int32>()
        let fimGroups: [[String]] = [
            ["<|fim_pad|>", "<fim-pad>", "<fim_pad>", "<PAD>", "[PAD]"],
            ["<|fim_repo|>", "<|repo_name|>", "<fim-repo>", "<REPO>", "<reponame>"],
            ["<|file_sep|>"],
        ]
        for group in fimGroups {
            for text in group {
                if let id = textToID.lookup(Array(text.utf8)) { endOfGeneration.insert(id); markControl(id); break }
            }
        }
        let fimOthers: [[String]] = [
            ["<|fim_prefix|>", "<fim-prefix>", "<fim_prefix>", "<｜fim▁begin｜>", "<PRE>", "▁<PRE>", "<|code_prefix|>", "<|prefix|>"],
            ["<|fim_suffix|>", "<fim-suffix>", "<fim_suffix>", "<｜fim▁hole｜>", "<SUF>", "▁<SUF>", "<|code_suffix|>", "<|suffix|>"],
            ["<|fim_middle|>", "<fim-middle>", "<fim_middle>", "<｜fim▁end｜>", "<MID>", "▁<MID>", "<|code_middle|>", "<|middle|>"],
        ]
        for group in fimOthers {
            for text in group {
                if let id = textToID.lookup(Array(text.utf8)) { markControl(id); break }
            }
        }
        // Control tokens whose text says "unused" are unused.
        for i in 0..<n where attributes[i].contains(.control) && textOf(i).contains("unused") {
            attributes[i].insert(.unused)
        }
        let eogTexts = ["<|eot_id|>", "<|im_end|>", "<|end|>", "<|return|>", "<|call|>", "<|flush|>", "<|calls|>",
                        "<end_of_turn>", "<|endoftext|>", "</s>", "<|eom_id|>", "<EOT>", "_<EOT>", "[EOT]", "[EOS]",
                        "<|end_of_text|>", "<end_of_utterance>", "<eos>", "<turn|>", "<|tool_response>",
                        "<｜end▁of▁sentence｜>", "[e~["]
        for text in eogTexts {
            if let id = textToID.lookup(Array(text.utf8)) { endOfGeneration.insert(id); markControl(id) }
        }
        // gpt-oss: these are always rendered.
        for text in ["<|channel|>", "<|message|>", "<|start|>", "<|constrain|>"] {
            if let id = textToID.lookup(Array(text.utf8)) { attributes[Int(id)] = .userDefined }
        }
        for id in [eos, eot, eom].compactMap({ $0 }) { endOfGeneration.insert(id) }
        // o200k_harmony / solar-open: <|end|> is not end-of-generation when <|return|>+<|call|> or <|calls|>+<|flush|> exist.
        func eogHas(_ text: String) -> Int32? {
            endOfGeneration.first { texts[Int($0)] == Array(text.utf8) }
        }
        if let end = eogHas("<|end|>"),
           (eogHas("<|return|>") != nil && (eogHas("<|call|>") != nil || eogHas("<|calls|>") != nil))
            || ((eogHas("<|call|>") != nil || eogHas("<|calls|>") != nil) && eogHas("<|flush|>") != nil) {
            endOfGeneration.remove(end)
            attributes[Int(end)] = .userDefined
        }
        if let s = eogHas("</s>"), eogHas("<|tool_response>") != nil || eogHas("<|plamo:eos|>") != nil {
            endOfGeneration.remove(s)
            attributes[Int(s)] = .normal
        }

        // Special tokens, longest text first (a stable sort; llama.cpp's order among equal lengths is unspecified).
        let special = (0..<Int32(n)).filter { !attributes[Int($0)].isDisjoint(with: [.control, .userDefined, .unknown]) }
        let specialTokens = special.sorted { a, b in
            let la = texts[Int(a)].count, lb = texts[Int(b)].count
            return la != lb ? la > lb : a < b
        }
        // Phi-3: whitespace right of special tokens is stripped, except after <unk>, <s>, <|endoftext|>.
        if let name = config.modelName?.lowercased(), name.contains("phi-3") || name.contains("phi3") {
            for id in specialTokens { attributes[Int(id)].insert(.rightStrip) }
            if let id = textToID.lookup(Array("</s>".utf8)) { attributes[Int(id)].insert(.rightStrip) }
            for text in ["<unk>", "<s>", "<|endoftext|>"] {
                if let id = textToID.lookup(Array(text.utf8)) { attributes[Int(id)].remove(.rightStrip) }
            }
        }

        self.bos = bos
        self.eos = eos
        self.eot = eot
        self.eom = eom
        self.unknown = unknown
        self.addBOS = addBOS
        self.addSpacePrefix = addSpacePrefix
        self.endOfGenerationIDs = endOfGeneration
        self.specialTokens = specialTokens
        self.attributes = attributes

        let byteEncoded = preTokenizer?.byteEncoded ?? true
        if let preTokenizer {
            merges = BPEMerges(texts: texts, merges: config.merges ?? [], byteEncoded: preTokenizer.byteEncoded, textTable: textToID)
        } else {
            merges = nil
        }
        var byteTokens = [Int32](repeating: -1, count: 256)
        if kind == .sentencePiece || !byteEncoded {
            let hex = Array("0123456789ABCDEF".utf8)
            for b in 0..<256 {
                let name: [UInt8] = Array("<0x".utf8) + [hex[b >> 4], hex[b & 15]] + Array(">".utf8)
                if let id = textToID.lookup(name) {
                    byteTokens[b] = id
                } else if kind == .sentencePiece, let id = textToID.lookup([UInt8(b)]) {
                    // SentencePiece falls back to the byte's own text; llama.cpp's BPE does not.
                    byteTokens[b] = id
                }
            }
        }
        self.byteTokens = byteTokens
        pieces = Vocabulary.makePieces(escapesWhitespace: escapesWhitespace, texts: texts, attributes: attributes)
    }

    /// llama.cpp's `token_to_piece(special: true)` for every token.
    private static func makePieces(escapesWhitespace: Bool, texts: [[UInt8]], attributes: [TokenAttributes]) -> [[UInt8]] {
        let hexValue: (UInt8) -> UInt8? = { c in
            switch c {
            case 0x30...0x39: c - 0x30
            case 0x41...0x46: c - 0x41 + 10
            case 0x61...0x66: c - 0x61 + 10
            default: nil
            }
        }
        let space: [UInt8] = [0xE2, 0x96, 0x81]  // ▁
        return texts.indices.map { i in
            let text = texts[i]
            let attr = attributes[i]
            if !attr.isDisjoint(with: [.unknown, .control, .userDefined]) { return text }
            if attr.contains(.normal) {
                if escapesWhitespace {
                    var out: [UInt8] = []
                    out.reserveCapacity(text.count)
                    var j = 0
                    while j < text.count {
                        if j + 2 < text.count && text[j] == space[0] && text[j + 1] == space[1] && text[j + 2] == space[2] {
                            out.append(0x20)
                            j += 3
                        } else {
                            out.append(text[j])
                            j += 1
                        }
                    }
                    return out
                }
                return GPT2ByteEncoding.decodeForDisplay(text)
            }
            if attr.contains(.byte) {
                // "<0xNN>": llama.cpp reads the two characters after "<0x" with strtol.
                guard text.count >= 5, let hi = hexValue(text[3]) else { return [] }
                guard let lo = hexValue(text[4]) else { return [hi] }
                return [hi << 4 | lo]
            }
            return []
        }
    }
}

extension GPT2ByteEncoding {
    /// llama.cpp's `llama_decode_text`: bytes of each mapped code point; an unmapped one becomes
    /// `[UNK_BYTE_0x<hex of its UTF-8><whole text>]`.
    static func decodeForDisplay(_ text: [UInt8]) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(text.count)
        UTF8.decode(text) { scalar in
            let value = scalar?.value ?? 0xFFFD
            if value < 324, codePointToByte[Int(value)] >= 0 {
                out.append(UInt8(codePointToByte[Int(value)]))
            } else {
                let utf8 = Array(String(Unicode.Scalar(value) ?? "\u{FFFD}").utf8)
                let hex = utf8.map { b in
                    let digits = Array("0123456789abcdef".utf8)
                    return String(decoding: [digits[Int(b >> 4)], digits[Int(b & 15)]], as: UTF8.self)
                }.joined()
                out += Array("[UNK_BYTE_0x\(hex)".utf8) + text + Array("]".utf8)
            }
            return true
        }
        return out
    }
}
