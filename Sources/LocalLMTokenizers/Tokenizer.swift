/// Text → token ids → text, exactly as llama.cpp's `llama_tokenize` / `llama_token_to_piece` for the
/// same model file.
///
/// `Sendable` and immutable: every call keeps its scratch (code points, symbols, heaps) on its own
/// stack, so one tokenizer serves any number of concurrent sessions.
public struct Tokenizer: Sendable {
    public let vocabulary: Vocabulary
    let specials: SpecialTokenSplitter

    public init(vocabulary: Vocabulary) {
        self.vocabulary = vocabulary
        self.specials = SpecialTokenSplitter(vocabulary: vocabulary)
    }

    /// Token ids of `text`.
    /// - Parameters:
    ///   - addSpecial: add BOS/EOS by the model's `add_bos_token`/`add_eos_token` rule.
    ///   - parseSpecial: match control tokens such as `<|im_start|>` as single tokens; when false they
    ///     are plain text. User-defined tokens are always matched.
    public func encode(_ text: String, addSpecial: Bool = false, parseSpecial: Bool = true) -> [Int32] {
        if let ids = text.utf8.withContiguousStorageIfAvailable({
            encode(bytes: $0, addSpecial: addSpecial, parseSpecial: parseSpecial)
        }) {
            return ids
        }
        let bytes = Array(text.utf8)
        return bytes.withUnsafeBufferPointer { encode(bytes: $0, addSpecial: addSpecial, parseSpecial: parseSpecial) }
    }

    /// Token ids of UTF-8 `bytes` (invalid sequences are read as U+FFFD, as llama.cpp does).
    public func encode(bytes: UnsafeBufferPointer<UInt8>, addSpecial: Bool, parseSpecial: Bool) -> [Int32] {
        var output: [Int32] = []
        output.reserveCapacity(bytes.count / 3 + 4)
        let v = vocabulary
        let fragments = specials.split(bytes, parseSpecial: parseSpecial)
        switch v.kind {
        case .sentencePiece:
            if addSpecial && v.addBOS, let bos = v.bos { output.append(bos) }
            var session = SentencePieceSession(vocabulary: v)
            var previousIsSpecial = true
            for fragment in fragments {
                switch fragment {
                case .text(let range):
                    session.encode(UnsafeBufferPointer(rebasing: bytes[range]), spacePrefix: v.addSpacePrefix && previousIsSpecial, into: &output)
                    previousIsSpecial = false
                case .token(let id):
                    output.append(id)
                    previousIsSpecial = true
                }
            }
            if addSpecial && v.addEOS, let eos = v.eos { output.append(eos) }
        case .bytePairEncoding, .gemma4:
            if addSpecial && v.addBOS, let bos = v.bos { output.append(bos) }
            var session = BytePairSession(vocabulary: v)
            for fragment in fragments {
                switch fragment {
                case .text(let range): session.encode(UnsafeBufferPointer(rebasing: bytes[range]), into: &output)
                case .token(let id): output.append(id)
                }
            }
            if addSpecial && v.addEOS, let eos = v.eos { output.append(eos) }
        }
        return output
    }

    /// The bytes token `id` detokenizes to; with `special` false, control and unknown tokens give nothing.
    public func tokenBytes(_ id: Int32, special: Bool = true) -> [UInt8] {
        if !special && !vocabulary.attributes(of: id).isDisjoint(with: [.control, .unknown]) { return [] }
        return vocabulary.tokenBytes(id)
    }

    /// The concatenated bytes of `ids`. When the vocabulary adds a space prefix (SentencePiece with
    /// `add_space_prefix`), one leading space of the first token is dropped, as `llama_detokenize`
    /// does, so that `decode(encode(s)) == s` for text that does not start with a special token.
    public func decodeBytes(_ ids: [Int32], special: Bool = true) -> [UInt8] {
        var out: [UInt8] = []
        for (i, id) in ids.enumerated() {
            let piece = tokenBytes(id, special: special)
            if i == 0 && vocabulary.addSpacePrefix && piece.first == 0x20 {
                out.append(contentsOf: piece.dropFirst())
            } else {
                out.append(contentsOf: piece)
            }
        }
        return out
    }

    /// `decodeBytes` as a String (invalid UTF-8 is replaced by U+FFFD).
    public func decode(_ ids: [Int32], special: Bool = true) -> String {
        String(decoding: decodeBytes(ids, special: special), as: UTF8.self)
    }
}
