/// Per-call state of BPE: the pre-tokenizer's split, then merges inside each word by lowest rank,
/// leftmost first (llama.cpp's `llm_tokenizer_bpe_session`). Byte-level BPE starts each word from
/// its bytes; SentencePiece-style BPE (Gemma 4) writes spaces as ▁ first and starts from UTF-8
/// characters.
struct BytePairSession {
    let vocabulary: Vocabulary
    let merges: BPEMerges
    let preTokenizer: PreTokenizer
    var text = CodePointBuffer()
    /// The fragment with spaces written ▁, when the vocabulary escapes whitespace: [bytes].
    var escaped: [UInt8] = []
    var wordEnds: [Int32] = []
    var splitScratch: [Int32] = []
    // Symbols of the current word: [m] each.
    var symbol: [Int32] = []
    var start: [Int32] = []
    var length: [Int32] = []
    var prev: [Int32] = []
    var next: [Int32] = []
    var heap = BigramHeap()
    /// Words already tokenized in this call: word bytes → ids. Text repeats words a lot.
    var cache: [WordKey: [Int32]] = [:]

    init(vocabulary: Vocabulary) {
        self.vocabulary = vocabulary
        // A BPE vocabulary always has merges and a pre-tokenizer (Vocabulary.init guarantees it).
        self.merges = vocabulary.merges ?? BPEMerges(texts: [], merges: [])
        self.preTokenizer = vocabulary.preTokenizer ?? PreTokenizer.gpt2Fallback
    }

    mutating func encode(_ bytes: UnsafeBufferPointer<UInt8>, into output: inout [Int32]) {
        guard vocabulary.escapesWhitespace else {
            encodeEscaped(bytes, into: &output)
            return
        }
        // llama.cpp replaces spaces in the raw bytes, before decoding UTF-8.
        var buffer = escaped
        escaped = []
        buffer.removeAll(keepingCapacity: true)
        for b in bytes {
            if b == 0x20 { buffer += [0xE2, 0x96, 0x81] } else { buffer.append(b) }
        }
        buffer.withUnsafeBufferPointer { encodeEscaped($0, into: &output) }
        escaped = buffer
    }

    private mutating func encodeEscaped(_ bytes: UnsafeBufferPointer<UInt8>, into output: inout [Int32]) {
        text.load(bytes)
        text.cps.withUnsafeBufferPointer { cps in
            text.flags.withUnsafeBufferPointer { flags in
                preTokenizer.split(ScanInput(cps: cps, flags: flags), into: &wordEnds, scratch: &splitScratch)
            }
        }
        let offsets = text.offsets
        let ends = wordEnds
        if text.usesReencoded {
            let buffer = text.reencoded
            buffer.withUnsafeBufferPointer { all in
                encodeWords(all, offsets: offsets, ends: ends, into: &output)
            }
        } else {
            encodeWords(bytes, offsets: offsets, ends: ends, into: &output)
        }
    }

    private mutating func encodeWords(_ all: UnsafeBufferPointer<UInt8>, offsets: [Int32], ends: [Int32], into output: inout [Int32]) {
        var wordStart = 0
        for end in ends {
            let from = Int(offsets[wordStart])
            let to = Int(offsets[Int(end)])
            wordStart = Int(end)
            if to > from {
                encodeWord(UnsafeBufferPointer(rebasing: all[from..<to]), into: &output)
            }
        }
    }

    mutating func encodeWord(_ word: UnsafeBufferPointer<UInt8>, into output: inout [Int32]) {
        if vocabulary.ignoreMerges, let id = merges.rawToToken.lookup(word) {
            output.append(id)
            return
        }
        if preTokenizer.looksUpNewlineRunsWhole, word.allSatisfy({ $0 == 0x0A }), let id = merges.rawToToken.lookup(word) {
            output.append(id)
            return
        }
        if word.count == 1 && merges.byteEncoded {
            let id = merges.byteToken[Int(word[0])]
            if id >= 0 { output.append(id) }
            return
        }
        let key = WordKey(word)
        if let ids = cache[key] {
            output.append(contentsOf: ids)
            return
        }
        let before = output.count
        merge(word, into: &output)
        if cache.count < 1 << 16 {
            cache[key] = Array(output[before...])
        }
    }

    private mutating func merge(_ word: UnsafeBufferPointer<UInt8>, into output: inout [Int32]) {
        let m = word.count
        symbol.removeAll(keepingCapacity: true)
        start.removeAll(keepingCapacity: true)
        length.removeAll(keepingCapacity: true)
        prev.removeAll(keepingCapacity: true)
        next.removeAll(keepingCapacity: true)
        if merges.byteEncoded {
            for i in 0..<m {
                symbol.append(merges.byteSymbol[Int(word[i])])
                start.append(Int32(i))
                length.append(1)
                prev.append(Int32(i - 1))
                next.append(i + 1 < m ? Int32(i + 1) : -1)
            }
        } else {
            // UTF-8 characters by lead byte, clipped at the end; one absent from every merge is -1.
            var offset = 0
            var index: Int32 = 0
            while offset < m {
                let n = min(utf8Length(lead: word[offset]), m - offset)
                symbol.append(n == 1
                    ? merges.byteSymbol[Int(word[offset])]
                    : merges.characterSymbol.lookup(UnsafeBufferPointer(rebasing: word[offset..<offset + n])) ?? -1)
                start.append(Int32(offset))
                length.append(Int32(n))
                prev.append(index - 1)
                offset += n
                next.append(offset < m ? index + 1 : -1)
                index += 1
            }
        }
        heap.removeAll()
        for i in 1..<symbol.count { pushBigram(Int32(i - 1), Int32(i)) }
        while let top = heap.pop() {
            let l = Int(top.left)
            let r = Int(top.right)
            // Stale if either side changed since the bigram was pushed (llama.cpp compares texts).
            if length[l] == 0 || length[r] == 0 || symbol[l] != top.leftSymbol || symbol[r] != top.rightSymbol || next[l] != top.right {
                continue
            }
            symbol[l] = top.merged
            length[l] += length[r]
            length[r] = 0
            next[l] = next[r]
            if next[r] >= 0 { prev[Int(next[r])] = Int32(l) }
            if prev[l] >= 0 { pushBigram(prev[l], Int32(l)) }
            if next[l] >= 0 { pushBigram(Int32(l), next[l]) }
        }
        var i: Int32 = 0
        while i >= 0 {
            let s = Int(i)
            let piece = Int(start[s])..<Int(start[s] + length[s])
            let token = symbol[s] >= 0
                ? merges.symbolToken[Int(symbol[s])]
                : merges.rawToToken.lookup(UnsafeBufferPointer(rebasing: word[piece])) ?? -1
            if token >= 0 {
                output.append(token)
            } else {
                // Byte-level BPE falls back to each byte's own token, SentencePiece-style BPE to `<0xNN>`.
                let fallback = merges.byteEncoded ? merges.byteToken : vocabulary.byteTokens
                for k in piece {
                    let id = fallback[Int(word[k])]
                    if id >= 0 { output.append(id) }
                }
            }
            i = next[s]
        }
    }

    @inline(__always)
    private mutating func pushBigram(_ left: Int32, _ right: Int32) {
        let a = symbol[Int(left)]
        let b = symbol[Int(right)]
        let key = UInt64(UInt32(bitPattern: a)) << 32 | UInt64(UInt32(bitPattern: b))
        guard let value = merges.pairs[key] else { return }
        heap.push(Bigram(rank: Int32(truncatingIfNeeded: value >> 32), left: left, right: right,
                         leftSymbol: a, rightSymbol: b, merged: Int32(truncatingIfNeeded: value & 0xFFFF_FFFF)))
    }
}

struct Bigram {
    var rank: Int32
    var left: Int32
    var right: Int32
    var leftSymbol: Int32
    var rightSymbol: Int32
    var merged: Int32

    /// Lower rank first, then leftmost.
    @inline(__always)
    func before(_ other: Bigram) -> Bool {
        rank != other.rank ? rank < other.rank : left < other.left
    }
}

/// A binary min-heap of bigrams (no allocation once warmed up).
struct BigramHeap {
    private var items: [Bigram] = []

    mutating func removeAll() { items.removeAll(keepingCapacity: true) }

    mutating func push(_ item: Bigram) {
        items.append(item)
        var i = items.count - 1
        while i > 0 {
            let parent = (i - 1) >> 1
            if items[i].before(items[parent]) {
                items.swapAt(i, parent)
                i = parent
            } else {
                break
            }
        }
    }

    mutating func pop() -> Bigram? {
        guard let first = items.first else { return nil }
        let last = items.removeLast()
        if !items.isEmpty {
            items[0] = last
            var i = 0
            let n = items.count
            while true {
                let l = 2 * i + 1
                let r = l + 1
                var best = i
                if l < n && items[l].before(items[best]) { best = l }
                if r < n && items[r].before(items[best]) { best = r }
                if best == i { break }
                items.swapAt(i, best)
                i = best
            }
        }
        return first
    }
}

/// A word's bytes as a dictionary key.
struct WordKey: Hashable {
    let bytes: [UInt8]
    init(_ word: UnsafeBufferPointer<UInt8>) { bytes = Array(word) }
}

extension PreTokenizer {
    /// Only used if a BPE vocabulary somehow lacks its pre-tokenizer.
    static let gpt2Fallback: PreTokenizer = {
        // "gpt-2" is always known; the force-try-free fallback keeps this non-throwing.
        (try? PreTokenizer(name: "gpt-2")) ?? PreTokenizer(patterns: [.gpt2])
    }()

    init(patterns: [SplitPattern]) {
        self.name = "gpt-2"
        self.patterns = patterns
    }
}
