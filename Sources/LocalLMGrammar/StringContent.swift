import LocalLMSync

/// How a token reads as JSON string content, for length-bounded strings (`maxLength`,
/// `minLength`). A bounded string's mask at some position is the mask of the same string without
/// the bound, kept to the tokens whose characters still fit: so each position of each bounded
/// string costs a filter of a shared entry instead of a walk of the vocabulary.
enum StringContent {
    /// Reads `bytes` from a character boundary: the characters begun before the first unescaped
    /// `"` (or the end) — a raw UTF-8 character, `\\x`, `\\uXXXX`, or a surrogate pair
    /// `\\uD8xx\\uDCxx` each count one, a character cut off by the token's end counts too — times
    /// two, plus one if that `"` is there. Exact for every byte string the content grammar
    /// accepts a prefix of; for others the count does not matter (the grammar refuses them).
    static func measure(_ bytes: [UInt8]) -> Int32 {
        let n = bytes.count
        var i = 0, count: Int32 = 0
        while i < n {
            let b = bytes[i]
            if b == 0x22 { return count &* 2 &+ 1 }
            if b == 0x5C {
                count &+= 1
                guard i + 1 < n, bytes[i + 1] == 0x75 else { i += 2; continue }  // \x
                let end = Swift.min(i + 6, n)
                // A high surrogate's pair (`\uDC00`…) is the same character, even cut off.
                if end == i + 6, isHighSurrogate(bytes[(i + 2)..<end]), end < n, bytes[end] == 0x5C,
                   end + 1 == n || bytes[end + 1] == 0x75 {
                    i = Swift.min(end + 6, n)
                } else {
                    i = end
                }
                continue
            }
            if b & 0xC0 != 0x80 { count &+= 1 }  // not a UTF-8 continuation byte: a new character
            i += 1
        }
        return count &* 2
    }

    /// `D8`…`DB` then two hex digits (the grammar's high-surrogate escapes).
    private static func isHighSurrogate(_ hex: ArraySlice<UInt8>) -> Bool {
        guard hex.count == 4 else { return false }
        let a = hex[hex.startIndex], b = hex[hex.startIndex + 1]
        return (a == 0x44 || a == 0x64) && (b == 0x38 || b == 0x39 || (0x41...0x42).contains(b) || (0x61...0x62).contains(b))
    }
}

/// Token bitsets by string-content measure, per vocabulary: tokens of at most k characters, and
/// tokens that close a string after fewer than k. Built once per k and shared by every grammar.
final class StringContentSets: Sendable {
    private let atMost = SanitizableMutex<[Int32: [UInt64]]>([:])
    private let closingBelow = SanitizableMutex<[Int32: [UInt64]]>([:])

    /// Tokens that begin at most `k` characters (whether or not they close the string).
    func atMost(_ k: Int32, _ tokens: TokenTable) -> [UInt64] {
        Self.cached(atMost, k, tokens) { $0 >> 1 <= k }
    }

    /// Tokens that close the string after fewer than `k` characters.
    func closingBelow(_ k: Int32, _ tokens: TokenTable) -> [UInt64] {
        Self.cached(closingBelow, k, tokens) { $0 & 1 == 1 && $0 >> 1 < k }
    }

    /// The set for `k` in `table`, built (tokens whose `stringContent` `keep` takes) the first time.
    private static func cached(_ table: borrowing SanitizableMutex<[Int32: [UInt64]]>, _ k: Int32, _ tokens: TokenTable,
                               _ keep: (Int32) -> Bool) -> [UInt64] {
        if let s = table.withLock({ $0[k] }) { return s }
        var words = [UInt64](repeating: 0, count: tokens.maskWordCount)
        for (t, v) in tokens.stringContent.enumerated() where keep(v) { words[t >> 6] |= 1 << UInt64(t & 63) }
        table.withLock { $0[k] = words }
        return words
    }
}

extension MaskEntry {
    /// `base` (the entry of the same string content without a bound) kept to the tokens that fit
    /// a bounded position: at most `maxCount` characters (-1: any), and a closing quote only after
    /// at least `minClosing`. Tokens dropped from the uncertain list keep the trie-order prefix
    /// rule: a kept token's common prefix with the previous kept one is the least of those between.
    init(fitting base: MaskEntry, maxCount: Int32, minClosing: Int32, tokens: TokenTable) {
        let content = tokens.stringContent
        func fits(_ t: Int32) -> Bool {
            let v = content[Int(t)]
            if maxCount >= 0 && v >> 1 > maxCount { return false }
            return !(v & 1 == 1 && v >> 1 < minClosing)
        }
        if base.acceptedWords.isEmpty {
            acceptedWords = []
            acceptedList = base.acceptedList.filter(fits)
        } else {
            var words = base.acceptedWords
            if maxCount >= 0 {
                let keep = tokens.stringContentSets.atMost(maxCount, tokens)
                for w in words.indices { words[w] &= keep[w] }
            }
            if minClosing > 0 {
                let drop = tokens.stringContentSets.closingBelow(minClosing, tokens)
                for w in words.indices { words[w] &= ~drop[w] }
            }
            acceptedWords = words
            acceptedList = []
        }
        var uncertain: [Int32] = [], prefix: [Int32] = []
        var sincePrevious = Int32.max
        for (k, t) in base.uncertain.enumerated() {
            sincePrevious = Swift.min(sincePrevious, base.uncertainPrefix[k])
            guard fits(t) else { continue }
            uncertain.append(t)
            prefix.append(uncertain.count == 1 ? 0 : sincePrevious)
            sincePrevious = .max
        }
        self.uncertain = uncertain
        uncertainPrefix = prefix
    }
}
