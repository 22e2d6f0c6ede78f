/// Splits special tokens out of text before BPE/SPM, as llama.cpp's `tokenizer_st_partition`:
/// tokens are taken longest first over the whole text, each at its leftmost free occurrences, so a
/// shorter token never cuts a longer one. Control and unknown tokens only when parsing specials;
/// user-defined tokens always.
///
/// Instead of one substring search per special token (Gemma has thousands), one pass over the text
/// with a byte trie finds every occurrence of every special token; they are then accepted in
/// llama.cpp's order (token rank, then position) when they do not overlap text already taken.
struct SpecialTokenSplitter: Sendable {
    /// Trie node i's children are `edges[firstEdge[i] ..< firstEdge[i + 1]]`, sorted by byte.
    private let firstEdge: [Int32]
    private let edgeByte: [UInt8]
    private let edgeTarget: [Int32]
    /// Rank in the longest-first order of the token ending at node i, or -1.
    private let nodeRank: [Int32]
    /// Rank → token id.
    private let rankedTokens: [Int32]
    private let tokenLength: [Int32]
    private let parseSpecialOnly: [Bool]
    private let leftStrip: [Bool]
    private let rightStrip: [Bool]

    init(vocabulary: Vocabulary) {
        rankedTokens = vocabulary.specialTokens
        // Build with dictionaries, then flatten.
        var children: [[UInt8: Int32]] = [[:]]
        var rankOf: [Int32] = [-1]
        for (rank, id) in rankedTokens.enumerated() {
            var node = 0
            for b in vocabulary.tokenText(id) {
                if let next = children[node][b] {
                    node = Int(next)
                } else {
                    children.append([:])
                    rankOf.append(-1)
                    children[node][b] = Int32(children.count - 1)
                    node = children.count - 1
                }
            }
            if rankOf[node] < 0 { rankOf[node] = Int32(rank) }
        }
        var firstEdge: [Int32] = []
        var edgeByte: [UInt8] = []
        var edgeTarget: [Int32] = []
        for node in children {
            firstEdge.append(Int32(edgeByte.count))
            for (b, t) in node.sorted(by: { $0.key < $1.key }) {
                edgeByte.append(b)
                edgeTarget.append(t)
            }
        }
        firstEdge.append(Int32(edgeByte.count))
        self.firstEdge = firstEdge
        self.edgeByte = edgeByte
        self.edgeTarget = edgeTarget
        self.nodeRank = rankOf
        tokenLength = rankedTokens.map { Int32(vocabulary.tokenText($0).count) }
        parseSpecialOnly = rankedTokens.map { !vocabulary.attributes(of: $0).isDisjoint(with: [.control, .unknown]) }
        leftStrip = rankedTokens.map { vocabulary.attributes(of: $0).contains(.leftStrip) }
        rightStrip = rankedTokens.map { vocabulary.attributes(of: $0).contains(.rightStrip) }
    }

    enum Fragment: Equatable {
        case text(Range<Int>)
        case token(Int32)
    }

    /// The text split into raw ranges and special tokens, in order.
    func split(_ text: UnsafeBufferPointer<UInt8>, parseSpecial: Bool) -> [Fragment] {
        guard !text.isEmpty else { return [] }
        guard !rankedTokens.isEmpty else { return [.text(0..<text.count)] }
        // Every occurrence, packed as rank << 32 | position so that sorting gives llama.cpp's order.
        var occurrences: [UInt64] = []
        let root = Int(firstEdge[0])..<Int(firstEdge[1])
        for start in 0..<text.count {
            var lo = root.lowerBound
            var hi = root.upperBound
            var p = start
            while p < text.count, lo < hi {
                let b = text[p]
                var found = -1
                // Nodes have few children except the root; binary search keeps the root cheap.
                var a = lo
                var z = hi
                while a < z {
                    let m = (a + z) >> 1
                    if edgeByte[m] < b { a = m + 1 } else { z = m }
                }
                if a < hi && edgeByte[a] == b { found = Int(edgeTarget[a]) }
                if found < 0 { break }
                let rank = nodeRank[found]
                if rank >= 0 && (parseSpecial || !parseSpecialOnly[Int(rank)]) {
                    occurrences.append(UInt64(rank) << 32 | UInt64(start))
                }
                lo = Int(firstEdge[found])
                hi = Int(firstEdge[found + 1])
                p += 1
            }
        }
        guard !occurrences.isEmpty else { return [.text(0..<text.count)] }
        occurrences.sort()
        // 0 = raw text, 1 = stripped whitespace, 2 = inside an accepted token.
        var taken = [UInt8](repeating: 0, count: text.count)
        var accepted: [(position: Int, rank: Int)] = []
        for occurrence in occurrences {
            let rank = Int(occurrence >> 32)
            let start = Int(occurrence & 0xFFFF_FFFF)
            let end = start + Int(tokenLength[rank])
            var free = true
            for i in start..<end where taken[i] != 0 { free = false; break }
            guard free else { continue }
            for i in start..<end { taken[i] = 2 }
            accepted.append((start, rank))
            if leftStrip[rank] {
                var i = start - 1
                while i >= 0 && taken[i] == 0 && isCSpace(text[i]) { taken[i] = 1; i -= 1 }
            }
            if rightStrip[rank] {
                var i = end
                while i < text.count && taken[i] == 0 && isCSpace(text[i]) { taken[i] = 1; i += 1 }
            }
        }
        accepted.sort { $0.position < $1.position }
        var fragments: [Fragment] = []
        var next = 0
        var rawStart = -1
        for i in 0...text.count {
            if next < accepted.count && accepted[next].position == i {
                if rawStart >= 0 { fragments.append(.text(rawStart..<i)); rawStart = -1 }
                fragments.append(.token(rankedTokens[accepted[next].rank]))
                next += 1
                continue
            }
            if i == text.count || taken[i] != 0 {
                if rawStart >= 0 { fragments.append(.text(rawStart..<i)); rawStart = -1 }
            } else if rawStart < 0 {
                rawStart = i
            }
        }
        return fragments
    }
}

@inline(__always)
private func isCSpace(_ b: UInt8) -> Bool { b == 0x20 || (b >= 0x09 && b <= 0x0D) }
