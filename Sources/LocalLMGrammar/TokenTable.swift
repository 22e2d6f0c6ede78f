/// The vocabulary as the grammar sees it: each token's bytes (index = token id) and which ids are
/// end-of-generation or other special/control tokens. The runtime builds it from the tokenizer's
/// vocabulary; this module needs nothing else from it. Immutable and shared; building it also
/// builds the token trie every grammar mask walks.
public final class TokenTable: Sendable {
    /// Bytes of each token (index = token id).
    public let tokenBytes: [[UInt8]]
    /// Ids that end generation: allowed only once the grammar can end.
    public let endOfGeneration: Set<Int>
    /// Control ids (BOS, chat markers, …): never allowed inside constrained text.
    public let special: Set<Int>
    let trie: TokenTrie
    /// Mask-cache entries every grammar over this vocabulary may reuse (see `SharedMaskEntries`).
    let sharedEntries = SharedMaskEntries()

    public var count: Int { tokenBytes.count }

    /// - Parameters:
    ///   - tokenBytes: raw bytes per token id (after undoing GPT-2 byte-level or SPM escaping).
    ///   - endOfGeneration: ids such as `<|im_end|>` or `</s>`.
    ///   - special: other ids to keep out of constrained spans (EOG ids may appear here too).
    public init(tokenBytes: [[UInt8]], endOfGeneration: Set<Int>, special: Set<Int> = []) {
        self.tokenBytes = tokenBytes
        self.endOfGeneration = endOfGeneration.filter { tokenBytes.indices.contains($0) }
        self.special = special.union(self.endOfGeneration).filter { tokenBytes.indices.contains($0) }
        self.trie = TokenTrie(tokenBytes: tokenBytes, excluded: self.special)
    }

    /// 64-bit words in a mask over this vocabulary.
    public var maskWordCount: Int { (tokenBytes.count + 63) / 64 }
}

/// A byte trie over the ordinary tokens. Tokens are numbered in depth-first order so that every
/// subtree's tokens are one contiguous range of `order` (rejecting a prefix rejects a range).
struct TokenTrie: Sendable {
    /// Per node: its children are `edgeByte/edgeChild[childStart[n] ..< childStart[n + 1]]`, by byte.
    var childStart: [Int32] = []
    var edgeByte: [UInt8] = []
    var edgeChild: [Int32] = []
    /// Per node: tokens ending exactly here are `order[tokensStart[n] ..< tokensEnd[n]]`, and the
    /// whole subtree's tokens are `order[tokensStart[n] ..< subtreeEnd[n]]`.
    var tokensStart: [Int32] = []
    var tokensEnd: [Int32] = []
    var subtreeEnd: [Int32] = []
    /// Token ids in depth-first order.
    var order: [Int32] = []

    init(tokenBytes: [[UInt8]], excluded: Set<Int>) {
        // Sorting the byte strings gives depth-first order directly; build nodes from the sorted list.
        let ids = tokenBytes.indices.filter { !excluded.contains($0) && !tokenBytes[$0].isEmpty }
            .sorted { tokenBytes[$0].lexicographicallyPrecedes(tokenBytes[$1]) || (tokenBytes[$0] == tokenBytes[$1] && $0 < $1) }
        // Temporary pointer-style trie, then flattened breadth of children in byte order.
        var children: [[(UInt8, Int32)]] = [[]]
        var ends: [[Int32]] = [[]]
        for id in ids {
            var n: Int32 = 0
            for b in tokenBytes[id] {
                if let last = children[Int(n)].last, last.0 == b {
                    n = last.1
                } else {
                    let c = Int32(children.count)
                    children.append([]); ends.append([])
                    children[Int(n)].append((b, c))
                    n = c
                }
            }
            ends[Int(n)].append(Int32(id))
        }
        let n = children.count
        tokensStart = [Int32](repeating: 0, count: n)
        tokensEnd = [Int32](repeating: 0, count: n)
        subtreeEnd = [Int32](repeating: 0, count: n)
        // Depth-first numbering (children are already in byte order because ids were sorted).
        var stack: [(Int32, Bool)] = [(0, false)]
        while let (node, done) = stack.popLast() {
            if done { subtreeEnd[Int(node)] = Int32(order.count); continue }
            tokensStart[Int(node)] = Int32(order.count)
            order.append(contentsOf: ends[Int(node)])
            tokensEnd[Int(node)] = Int32(order.count)
            stack.append((node, true))
            for (_, c) in children[Int(node)].reversed() { stack.append((c, false)) }
        }
        childStart.reserveCapacity(n + 1)
        for node in 0..<n {
            childStart.append(Int32(edgeByte.count))
            for (b, c) in children[node] { edgeByte.append(b); edgeChild.append(c) }
        }
        childStart.append(Int32(edgeByte.count))
    }

    var nodeCount: Int { tokensStart.count }
}
