/// The merge table of a BPE vocabulary.
///
/// Byte-level BPE (GPT-2 style) stores token texts and merges in GPT-2's printable byte encoding;
/// the table is built over the raw bytes instead (the encoding is one code point per byte, so merging
/// either gives the same pieces). SentencePiece-style BPE (Gemma 4) stores raw UTF-8 with ▁ for
/// spaces, and its words start as UTF-8 characters rather than bytes.
///
/// Every string that takes part in a merge gets a small integer "symbol" id; a merge is then the
/// pair of symbol ids → (rank, merged symbol), one hash lookup with no string building.
struct BPEMerges: Sendable {
    /// Whether texts and merges are GPT-2 byte-encoded (words then start as single bytes).
    let byteEncoded: Bool
    /// Raw byte → symbol id of that one-byte string.
    let byteSymbol: [Int32]
    /// Not byte-encoded: UTF-8 characters of two to four bytes that take part in a merge → symbol id.
    /// A character that is absent never merges.
    let characterSymbol: ByteStringTable
    /// `left << 32 | right` → `rank << 32 | merged`; the first merge listed wins, as in llama.cpp.
    let pairs: [UInt64: UInt64]
    /// Symbol id → token id whose raw bytes equal the symbol's, or -1.
    let symbolToken: [Int32]
    /// Raw bytes → token id: BPE tokens whose stored text is fully GPT-2 byte-encoded, or, when not
    /// byte-encoded, every token by its stored text.
    let rawToToken: ByteStringTable
    /// Raw byte → token id of that single byte, or -1.
    let byteToken: [Int32]

    /// - Parameter textTable: stored text → id, reused as `rawToToken` when not byte-encoded.
    init(texts: [[UInt8]], merges: [[UInt8]], byteEncoded: Bool = true, textTable: ByteStringTable? = nil) {
        let rawToToken: ByteStringTable
        if byteEncoded {
            // Raw bytes of every token whose text decodes; the others (never produced by merging) are skipped.
            var rawKeys: [[UInt8]] = []
            var rawValues: [Int32] = []
            for (id, text) in texts.enumerated() {
                if let raw = GPT2ByteEncoding.decode(text) {
                    rawKeys.append(raw)
                    rawValues.append(Int32(id))
                }
            }
            rawToToken = ByteStringTable(keys: rawKeys, values: rawValues)
        } else {
            rawToToken = textTable ?? ByteStringTable(keys: texts, values: texts.indices.map { Int32($0) })
        }
        func rawSide(_ text: [UInt8]) -> [UInt8]? {
            byteEncoded ? GPT2ByteEncoding.decode(text) : text
        }

        var symbolIDs: [[UInt8]: Int32] = [:]
        var symbolBytes: [[UInt8]] = []
        func intern(_ bytes: [UInt8]) -> Int32 {
            if let id = symbolIDs[bytes] { return id }
            let id = Int32(symbolBytes.count)
            symbolIDs[bytes] = id
            symbolBytes.append(bytes)
            return id
        }
        var byteSymbol = [Int32](repeating: 0, count: 256)
        for b in 0..<256 { byteSymbol[b] = intern([UInt8(b)]) }

        var pairs: [UInt64: UInt64] = [:]
        pairs.reserveCapacity(merges.count)
        for (rank, line) in merges.enumerated() {
            // llama.cpp splits at the first space after the first byte.
            guard line.count > 1, let space = line[1...].firstIndex(of: 0x20) else { continue }
            guard let left = rawSide(Array(line[..<space])),
                  let right = rawSide(Array(line[(space + 1)...])),
                  !left.isEmpty, !right.isEmpty else { continue }
            let l = intern(left)
            let r = intern(right)
            let key = UInt64(UInt32(bitPattern: l)) << 32 | UInt64(UInt32(bitPattern: r))
            if pairs[key] != nil { continue }
            let merged = intern(left + right)
            pairs[key] = UInt64(rank) << 32 | UInt64(UInt32(bitPattern: merged))
        }
        var symbolToken = [Int32](repeating: -1, count: symbolBytes.count)
        for (id, bytes) in symbolBytes.enumerated() {
            symbolToken[id] = rawToToken.lookup(bytes) ?? -1
        }
        var characterKeys: [[UInt8]] = []
        var characterValues: [Int32] = []
        if !byteEncoded {
            for (id, bytes) in symbolBytes.enumerated() where bytes.count > 1 && utf8Length(lead: bytes[0]) == bytes.count {
                characterKeys.append(bytes)
                characterValues.append(Int32(id))
            }
        }
        self.byteEncoded = byteEncoded
        self.byteSymbol = byteSymbol
        self.characterSymbol = ByteStringTable(keys: characterKeys, values: characterValues)
        self.pairs = pairs
        self.symbolToken = symbolToken
        self.rawToToken = rawToToken
        self.byteToken = (0..<256).map { symbolToken[Int(byteSymbol[$0])] }
    }
}

/// The length of the UTF-8 sequence a byte leads, by its high nibble (llama.cpp's `unicode_len_utf8`;
/// a continuation byte counts as 1).
@inline(__always)
func utf8Length(lead: UInt8) -> Int {
    switch lead >> 4 {
    case 0xC, 0xD: 2
    case 0xE: 3
    case 0xF: 4
    default: 1
    }
}

/// GPT-2's reversible map from bytes to printable code points (llama.cpp `unicode_byte_to_utf8`).
enum GPT2ByteEncoding {
    /// Byte → code point.
    static let byteToCodePoint: [UInt32] = {
        var map = [UInt32](repeating: 0, count: 256)
        var printable = [Bool](repeating: false, count: 256)
        for b in 0x21...0x7E { printable[b] = true }
        for b in 0xA1...0xAC { printable[b] = true }
        for b in 0xAE...0xFF { printable[b] = true }
        var next: UInt32 = 256
        for b in 0..<256 {
            if printable[b] {
                map[b] = UInt32(b)
            } else {
                map[b] = next
                next += 1
            }
        }
        return map
    }()

    /// Code point (< 324) → byte, or -1.
    static let codePointToByte: [Int16] = {
        var map = [Int16](repeating: -1, count: 324)
        for (b, cp) in byteToCodePoint.enumerated() { map[Int(cp)] = Int16(b) }
        return map
    }()

    /// Raw bytes of an encoded token text, or nil if some code point is not in the map
    /// (or the text is not valid UTF-8).
    static func decode(_ text: [UInt8]) -> [UInt8]? {
        var out: [UInt8] = []
        out.reserveCapacity(text.count)
        var ok = true
        UTF8.decode(text) { scalar in
            guard let scalar, scalar.value < 324, case let b = codePointToByte[Int(scalar.value)], b >= 0 else {
                ok = false
                return false
            }
            out.append(UInt8(b))
            return true
        }
        return ok ? out : nil
    }
}

extension UTF8 {
    /// Calls `body` with each scalar of `bytes` (nil for an invalid sequence) until it returns false.
    static func decode(_ bytes: [UInt8], _ body: (Unicode.Scalar?) -> Bool) {
        var iterator = bytes.makeIterator()
        var decoder = UTF8()
        while true {
            switch decoder.decode(&iterator) {
            case .scalarValue(let s): if !body(s) { return }
            case .error: if !body(nil) { return }
            case .emptyInput: return
            }
        }
    }
}
