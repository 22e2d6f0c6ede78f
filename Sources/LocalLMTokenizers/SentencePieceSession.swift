/// Per-call state of SentencePiece BPE (llama.cpp's `llm_tokenizer_spm_session`): spaces become ▁,
/// the text is split into UTF-8 characters, and the adjacent pair whose merged text is the token
/// with the best score is merged first (leftmost on ties) until no pair is a token. What is left
/// and is not a token falls back to `<0xNN>` byte tokens.
struct SentencePieceSession {
    let vocabulary: Vocabulary
    /// The escaped fragment: [bytes].
    var text: [UInt8] = []
    var start: [Int32] = []
    var length: [Int32] = []
    var prev: [Int32] = []
    var next: [Int32] = []
    var heap = ScoredBigramHeap()

    init(vocabulary: Vocabulary) {
        self.vocabulary = vocabulary
    }

    mutating func encode(_ bytes: UnsafeBufferPointer<UInt8>, spacePrefix: Bool, into output: inout [Int32]) {
        text.removeAll(keepingCapacity: true)
        if spacePrefix { text += [0xE2, 0x96, 0x81] }
        for b in bytes {
            if b == 0x20 { text += [0xE2, 0x96, 0x81] } else { text.append(b) }
        }
        guard !text.isEmpty else { return }
        start.removeAll(keepingCapacity: true)
        length.removeAll(keepingCapacity: true)
        prev.removeAll(keepingCapacity: true)
        next.removeAll(keepingCapacity: true)
        // UTF-8 characters by lead byte (llama.cpp's unicode_len_utf8), clipped at the end.
        let lengthByHighNibble: [Int] = [1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 2, 2, 3, 4]
        var offset = 0
        var index: Int32 = 0
        while offset < text.count {
            let n = min(lengthByHighNibble[Int(text[offset] >> 4)], text.count - offset)
            start.append(Int32(offset))
            length.append(Int32(n))
            prev.append(index - 1)
            offset += n
            next.append(offset == text.count ? -1 : index + 1)
            index += 1
        }
        heap.removeAll()
        text.withUnsafeBufferPointer { all in
            for i in 1..<start.count { tryBigram(all, Int32(i - 1), Int32(i)) }
            while let top = heap.pop() {
                let l = Int(top.left)
                let r = Int(top.right)
                if length[l] == 0 || length[r] == 0 || length[l] + length[r] != top.size { continue }
                length[l] += length[r]
                length[r] = 0
                next[l] = next[r]
                if next[r] >= 0 { prev[Int(next[r])] = Int32(l) }
                tryBigram(all, prev[l], Int32(l))
                tryBigram(all, Int32(l), next[l])
            }
            var i: Int32 = 0
            while i >= 0 {
                let s = Int(i)
                let piece = UnsafeBufferPointer(rebasing: all[Int(start[s])..<Int(start[s] + length[s])])
                if let id = vocabulary.textToID.lookup(piece) {
                    output.append(id)
                } else {
                    for b in piece {
                        let id = vocabulary.byteTokens[Int(b)]
                        if id >= 0 {
                            output.append(id)
                        } else if let unk = vocabulary.unknown {
                            output.append(unk)
                        }
                    }
                }
                i = next[s]
            }
        }
    }

    @inline(__always)
    private mutating func tryBigram(_ all: UnsafeBufferPointer<UInt8>, _ left: Int32, _ right: Int32) {
        guard left >= 0, right >= 0 else { return }
        let from = Int(start[Int(left)])
        let to = Int(start[Int(right)] + length[Int(right)])
        guard let id = vocabulary.textToID.lookup(UnsafeBufferPointer(rebasing: all[from..<to])) else { return }
        heap.push(ScoredBigram(score: vocabulary.scores[Int(id)], left: left, right: right, size: Int32(to - from)))
    }
}

struct ScoredBigram {
    var score: Float
    var left: Int32
    var right: Int32
    var size: Int32

    /// Higher score first, then leftmost.
    @inline(__always)
    func before(_ other: ScoredBigram) -> Bool {
        score != other.score ? score > other.score : left < other.left
    }
}

struct ScoredBigramHeap {
    private var items: [ScoredBigram] = []

    mutating func removeAll() { items.removeAll(keepingCapacity: true) }

    mutating func push(_ item: ScoredBigram) {
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

    mutating func pop() -> ScoredBigram? {
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
