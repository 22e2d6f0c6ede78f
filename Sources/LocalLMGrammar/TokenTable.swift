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
    /// Each token's first byte (0 for an empty token, which no trie walk meets).
    let firstByte: [UInt8]
    /// All tokens' bytes end to end; token t is `flatBytes[flatStart[t] ..< flatStart[t + 1]]`
    /// (hot loops read these instead of one array per token).
    let flatBytes: [UInt8]
    let flatStart: [Int32]
    /// Mask-cache entries every grammar over this vocabulary may reuse (see `SharedMaskEntries`).
    let sharedEntries = SharedMaskEntries()
    /// Per token, read as JSON string content from a character boundary: the characters it begins
    /// before an unescaped `"` (or its end), times two, plus one if it has that `"` (see
    /// `StringContent`).
    let stringContent: [Int32]
    /// The most characters any token begins (bounds the sets `stringContentSets` builds).
    let longestStringContent: Int32
    /// Token sets by `stringContent`, built when first asked for (see `StringContent`).
    let stringContentSets = StringContentSets()
    /// The entry open text keys start from, built when first asked for (see `OpenTextBase`).
    let openTextBase = OpenTextBase()

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
        self.firstByte = tokenBytes.map { $0.first ?? 0 }
        var starts: [Int32] = [0]
        starts.reserveCapacity(tokenBytes.count + 1)
        for b in tokenBytes { starts.append(starts[starts.count - 1] + Int32(b.count)) }
        self.flatStart = starts
        self.flatBytes = Array(tokenBytes.joined())
        self.stringContent = tokenBytes.map(StringContent.measure)
        self.longestStringContent = stringContent.map { $0 >> 1 }.max() ?? 0
    }

    /// 64-bit words in a mask over this vocabulary.
    public var maskWordCount: Int { (tokenBytes.count + 63) / 64 }
}

/// A byte trie over the ordinary tokens, laid out in pre-order: a walk is a forward scan of a few
/// flat arrays that jumps over a subtree by setting the index to `skip`, so masks read memory in
/// order (the layout LLGuidance's token trie uses). Tokens are numbered in the same depth-first
/// order, so every subtree's tokens are one contiguous range of `order`.
struct TokenTrie: Sendable {
    /// Per node (node 0 is the root): the byte on the edge into it, and its depth (the root's is 0).
    var byte: [UInt8] = []
    var depth: [Int32] = []
    /// Per node: the first node after its subtree (the node count for the last subtree).
    var skip: [Int32] = []
    /// Per node, plus one sentinel: tokens ending exactly at node i are
    /// `order[tokenStart[i] ..< tokenStart[i + 1]]`, and its subtree's tokens are
    /// `order[tokenStart[i] ..< tokenStart[skip[i]]]`.
    var tokenStart: [Int32] = []
    /// Token ids in depth-first order.
    var order: [Int32] = []
    /// Per position of `order`: the length of the common prefix with the token before it (0 for
    /// the first). Two tokens' common prefix is the least of these between them.
    var lcp: [Int32] = []
    /// The longest token, in bytes.
    var maxDepth = 0
    /// Per first byte: its tokens, a range of `order` (the subtree of the root's child).
    var firstByteRanges = [Range<Int32>](repeating: 0..<0, count: 256)
    /// Per node: −1 for a leaf, else its index in `subtreeLowBytes` and `subtreeShape`.
    var inner: [Int32] = []
    /// Per inner node: the bytes below 0x80 on the edges of its subtree, its own edge included (bits
    /// of 0–63 and 64–127). A walk that knows every token made of some bytes is accepted from where
    /// it stands takes a subtree whose bytes are among them in one step (see `StackSetDFA.safeBytes`).
    var subtreeLowBytes: [(UInt64, UInt64)] = []
    /// Per inner node: `hasHighByte` when some edge of its subtree is 0x80 or above, `utf8Prefixes`
    /// when besides every path down its subtree (its own edge first) is a well-formed UTF-8 prefix
    /// read from between characters (see `UTF8Prefix`), or'ed with the bytes of its longest token
    /// past its parent (its own edge included), at most `maxHeight`. With `inner` and
    /// `subtreeLowBytes`, about 5 MB for Qwen2.5's 152k tokens (333k nodes, 227k inner).
    var subtreeShape: [UInt8] = []
    static let hasHighByte: UInt8 = 0x80
    static let utf8Prefixes: UInt8 = 0x40
    static let maxHeight: UInt8 = 0x3F

    init(tokenBytes: [[UInt8]], excluded: Set<Int>) {
        // Sorted byte strings visit the trie in pre-order: each string adds the nodes past its
        // common prefix with the previous one, and a string sorts before its extensions.
        let ids = tokenBytes.indices.filter { !excluded.contains($0) && !tokenBytes[$0].isEmpty }
            .sorted { tokenBytes[$0].lexicographicallyPrecedes(tokenBytes[$1]) || (tokenBytes[$0] == tokenBytes[$1] && $0 < $1) }
        byte = [0]; depth = [0]; tokenStart = [0]
        var previous: [UInt8] = []
        for (k, id) in ids.enumerated() {
            let bytes = tokenBytes[id]
            var common = 0
            while common < bytes.count && common < previous.count && bytes[common] == previous[common] { common += 1 }
            for d in common..<bytes.count {
                byte.append(bytes[d])
                depth.append(Int32(d + 1))
                tokenStart.append(Int32(k))
            }
            order.append(Int32(id))
            lcp.append(Int32(common))
            maxDepth = max(maxDepth, bytes.count)
            previous = bytes
        }
        let n = byte.count
        tokenStart.append(Int32(order.count))
        skip = [Int32](repeating: Int32(n), count: n)
        var open: [Int32] = []
        for i in 0..<n {
            while let last = open.last, depth[Int(last)] >= depth[i] {
                skip[Int(last)] = Int32(i)
                open.removeLast()
            }
            open.append(Int32(i))
        }
        for i in 1..<max(n, 1) where depth[i] == 1 {
            firstByteRanges[Int(byte[i])] = tokenStart[i]..<tokenStart[Int(skip[i])]
        }
        // Subtree byte sets, children before parents (reverse pre-order), each folded into its
        // parent: the nearest earlier node one level up.
        inner = [Int32](repeating: -1, count: n)
        var innerCount: Int32 = 0
        for i in 0..<n where Int(skip[i]) > i + 1 {
            inner[i] = innerCount
            innerCount += 1
        }
        var bytesUnder = [ByteSet](repeating: ByteSet(), count: Int(innerCount))
        var parentAt = [Int32](repeating: 0, count: maxDepth + 1)
        var parent = [Int32](repeating: 0, count: n)
        for i in 1..<max(n, 1) {
            let d = Int(depth[i])
            parent[i] = parentAt[d - 1]
            parentAt[d] = Int32(i)
        }
        var height = [UInt8](repeating: 0, count: Int(innerCount))
        for i in stride(from: n - 1, through: 1, by: -1) {
            var set = inner[i] >= 0 ? bytesUnder[Int(inner[i])] : ByteSet()
            set.insert(byte[i])
            let h = inner[i] >= 0 ? height[Int(inner[i])] : 1
            if inner[i] >= 0 { bytesUnder[Int(inner[i])] = set }
            let p = Int(inner[Int(parent[i])])
            if p >= 0 {
                bytesUnder[p].formUnion(set)
                height[p] = max(height[p], min(h + 1, Self.maxHeight))
            }
        }
        // Per node, the UTF-8 states (`UTF8Prefix`, one bit each) from which every path down its
        // subtree is a well-formed prefix: its byte has a transition, into a state every child
        // allows. Children come after their parent, so a reverse scan folds each into its parent.
        var childrenAllow = [UInt8](repeating: 0xFF, count: n)
        var wellFormed = [Bool](repeating: false, count: Int(innerCount))
        for i in stride(from: n - 1, through: 1, by: -1) {
            var allows: UInt8 = 0
            for state in 0..<UTF8Prefix.stateCount {
                if let next = UTF8Prefix.next(state, byte[i]), childrenAllow[i] & (1 << next) != 0 { allows |= 1 << state }
            }
            if inner[i] >= 0 { wellFormed[Int(inner[i])] = allows & 1 != 0 }
            childrenAllow[Int(parent[i])] &= allows
        }
        subtreeLowBytes = bytesUnder.map { ($0.w0, $0.w1) }
        subtreeShape = (0..<Int(innerCount)).map { k in
            let high = bytesUnder[k].w2 | bytesUnder[k].w3 != 0
            return (high ? Self.hasHighByte : 0) | (high && wellFormed[k] ? Self.utf8Prefixes : 0) | height[k]
        }
    }

    var nodeCount: Int { byte.count }
}
