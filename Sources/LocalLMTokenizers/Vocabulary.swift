/// A model's vocabulary: token texts, scores and attributes, BPE merges, special tokens and the rules
/// for adding them, all as llama.cpp's `llama_vocab` reads them from `tokenizer.*` metadata.
///
/// Immutable and `Sendable`: one instance is shared by every session and every `Tokenizer` call.
/// Build it from a model file with `init(gguf:)` or from values in memory with `init(_:)`.
public struct Vocabulary: Sendable {
    public enum Kind: String, Sendable {
        /// `tokenizer.ggml.model = gpt2`: byte-level BPE over pre-tokenized words.
        case bytePairEncoding = "gpt2"
        /// `tokenizer.ggml.model = llama`: SentencePiece merges by score, with byte fallback.
        case sentencePiece = "llama"
        /// `tokenizer.ggml.model = gemma4`: BPE merges by rank over UTF-8 characters, with spaces
        /// written ▁ and `<0xNN>` byte fallback (llama.cpp: a BPE vocabulary whose pre-tokenizer is
        /// always `gemma4`, whatever `tokenizer.ggml.pre` says).
        case gemma4 = "gemma4"
    }

    /// The raw `tokenizer.*` values a vocabulary is built from; every field mirrors one GGUF key.
    public struct Configuration: Sendable {
        /// `tokenizer.ggml.model`.
        public var model: String
        /// `tokenizer.ggml.pre` (`gpt2` only; absent means `default`).
        public var preTokenizer: String?
        /// `tokenizer.ggml.tokens`, as stored (`gpt2` texts are GPT-2 byte-encoded, `llama` and `gemma4` texts use ▁).
        public var tokens: [[UInt8]]
        /// `tokenizer.ggml.scores`.
        public var scores: [Float]?
        /// `tokenizer.ggml.token_type`.
        public var tokenTypes: [Int32]?
        /// `tokenizer.ggml.merges`, each "left right".
        public var merges: [[UInt8]]?
        public var bosID: Int32?
        public var eosID: Int32?
        public var eotID: Int32?
        public var eomID: Int32?
        public var unknownID: Int32?
        public var separatorID: Int32?
        public var paddingID: Int32?
        /// `tokenizer.ggml.add_bos_token`, `add_eos_token`, `add_space_prefix`.
        public var addBOS: Bool?
        public var addEOS: Bool?
        public var addSpacePrefix: Bool?
        /// `general.name`: llama.cpp strips whitespace right of Phi-3's special tokens by this name.
        public var modelName: String?

        public init(model: String, tokens: [[UInt8]]) {
            self.model = model
            self.tokens = tokens
        }
    }

    public let kind: Kind
    /// `tokenizer.ggml.pre` as given (`default` when absent; `gemma4` for Gemma 4); empty for SentencePiece.
    public let preTokenizerName: String
    let preTokenizer: PreTokenizer?
    /// Token texts as stored in the model file.
    let texts: [[UInt8]]
    public let scores: [Float]
    public let attributes: [TokenAttributes]
    /// The bytes each token detokenizes to, special tokens included (llama.cpp's piece cache).
    let pieces: [[UInt8]]
    /// Stored text → id.
    let textToID: ByteStringTable
    /// BPE: merge ranks and the token of each raw byte string.
    let merges: BPEMerges?
    /// Byte fallback: byte → `<0xNN>` token (SentencePiece: or the byte's own text), or -1.
    /// All -1 for byte-level BPE, whose fallback is the byte's own token.
    let byteTokens: [Int32]

    public let bos: Int32?
    public let eos: Int32?
    public let eot: Int32?
    public let eom: Int32?
    public let unknown: Int32?
    public let separator: Int32?
    public let padding: Int32?
    /// Whether `encode(addSpecial: true)` puts BOS first / EOS last.
    public let addBOS: Bool
    public let addEOS: Bool
    /// SentencePiece: a space is put before text that starts the input or follows a special token.
    public let addSpacePrefix: Bool
    let ignoreMerges: Bool
    /// Spaces are written ▁ in token texts (SentencePiece, and BPE with llama.cpp's `escape_whitespaces`).
    let escapesWhitespace: Bool
    /// Tokens that end generation (llama.cpp's `special_eog_ids`).
    public let endOfGenerationIDs: Set<Int32>
    /// Control, user-defined and unknown tokens, longest text first: split out of text before BPE/SPM.
    let specialTokens: [Int32]

    public var count: Int { texts.count }

    /// Whether `id` ends generation: EOS, EOT, EOM and the tokens llama.cpp recognises by text
    /// (`<|im_end|>`, `<end_of_turn>`, `<|endoftext|>`, …).
    public func isEndOfGeneration(_ id: Int32) -> Bool { endOfGenerationIDs.contains(id) }

    /// The bytes token `id` detokenizes to (special tokens give their text); empty for an id out of range.
    public func tokenBytes(_ id: Int32) -> [UInt8] {
        id >= 0 && Int(id) < pieces.count ? pieces[Int(id)] : []
    }

    /// Every token's bytes, indexed by id (for grammar masks and the runtime's output).
    public var allTokenBytes: [[UInt8]] { pieces }

    /// The token's text as stored in the model file.
    public func tokenText(_ id: Int32) -> [UInt8] {
        id >= 0 && Int(id) < texts.count ? texts[Int(id)] : []
    }

    /// The id whose stored text is `text`, if any.
    public func tokenID(forText text: [UInt8]) -> Int32? { textToID.lookup(text) }

    public func attributes(of id: Int32) -> TokenAttributes {
        id >= 0 && Int(id) < attributes.count ? attributes[Int(id)] : []
    }
}
