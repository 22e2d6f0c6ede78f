/// Turns generated token ids into text one token at a time, yielding only whole UTF-8 characters:
/// a character split across tokens (byte-fallback `<0xNN>` tokens, or BPE byte pieces) is held back
/// until its last byte arrives, so no U+FFFD appears mid-stream. One value per sequence.
public struct StreamingDetokenizer: Sendable {
    public let tokenizer: Tokenizer
    /// Whether control tokens (e.g. `<|im_end|>`) produce their text.
    public var special: Bool
    /// Whether to drop the SentencePiece prefix space of the first token (as `Tokenizer.decode` does).
    /// Off by default: generated text continues a prompt, so its leading space is real.
    public var stripsLeadingSpace: Bool
    private var pending: [UInt8] = []
    private var isFirst = true

    public init(tokenizer: Tokenizer, special: Bool = false, stripsLeadingSpace: Bool = false) {
        self.tokenizer = tokenizer
        self.special = special
        self.stripsLeadingSpace = stripsLeadingSpace
    }

    /// Adds one token; returns the text that is now complete (possibly empty). `asText` gives a
    /// control token its text even when ``special`` is off (a marker a grammar reads as text).
    public mutating func append(_ id: Int32, asText: Bool = false) -> String {
        var piece = tokenizer.tokenBytes(id, special: special || asText)
        if isFirst {
            isFirst = false
            if stripsLeadingSpace && tokenizer.vocabulary.addSpacePrefix && piece.first == 0x20 { piece.removeFirst() }
        }
        pending += piece
        let complete = StreamingDetokenizer.completePrefixLength(pending)
        guard complete > 0 else { return "" }
        let text = String(decoding: pending[..<complete], as: UTF8.self)
        pending.removeFirst(complete)
        return text
    }

    /// Flushes what is left; an unfinished character becomes U+FFFD.
    public mutating func finish() -> String {
        defer { pending.removeAll() }
        return pending.isEmpty ? "" : String(decoding: pending, as: UTF8.self)
    }

    /// The length of the longest prefix that does not end inside a possibly unfinished character.
    /// Invalid bytes count as complete (they will decode to U+FFFD, nothing can fix them).
    static func completePrefixLength(_ bytes: [UInt8]) -> Int {
        let n = bytes.count
        // Look back at most 3 bytes for the lead byte of a trailing sequence.
        var i = n - 1
        var continuation = 0
        while i >= 0 && continuation < 3 && bytes[i] & 0xC0 == 0x80 {
            continuation += 1
            i -= 1
        }
        guard i >= 0 else { return n }
        let lead = bytes[i]
        let needed: Int
        if lead & 0xE0 == 0xC0 { needed = 2 } else if lead & 0xF0 == 0xE0 { needed = 3 } else if lead & 0xF8 == 0xF0 { needed = 4 } else { return n }
        return continuation + 1 < needed ? i : n
    }
}
