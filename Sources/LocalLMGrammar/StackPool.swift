/// Matcher stacks as persistent, hash-consed linked lists of grammar positions.
///
/// A node is (position, parent). Equal stacks are the same node, so a set of stacks dedupes by
/// node id, and old states stay valid after new tokens (rollback is just keeping old node ids).
/// One pool belongs to one matcher (or one cache computation): it is scratch, never shared.
struct StackPool {
    /// Parent of a root frame: popping past it means the whole grammar matched.
    static let root: Int32 = -1
    /// Parent of the bottom frame of a mask-cache computation: popping past it means the token's
    /// fate depends on stack frames the cache key does not know (a context-dependent token).
    static let bottom: Int32 = -2

    struct Flags {
        /// Some path popped past `root` (the grammar can end here).
        var accepting = false
        /// Some path popped past `bottom`.
        var escaped = false
    }

    private(set) var pos: [Int32] = []
    private(set) var parent: [Int32] = []
    private var index = NodeIndex()
    /// Pairs the current closure has visited (cleared before each closure, and once before all of
    /// the start's alternatives).
    private var visited = VisitSet()
    /// Per node: where its successors start in `succ` (-1: not computed yet). A terminal node's
    /// successors (the closure after its terminal) do not depend on which byte of the terminal's
    /// set was consumed, so they are computed once per node: advancing is then a list merge.
    private var succStart: [Int32] = []
    private var succEnd: [Int32] = []
    private var succFlags: [UInt8] = []
    private var succ: [Int32] = []
    private var memoLog: [Int32] = []
    private var resultStamp: [UInt32] = []
    private var resultRound: UInt32 = 0
    private var work: [(Int32, Int32)] = []
    /// Scratch storage for stack sets: callers keep ranges into it, innermost last.
    var sets: [Int32] = []

    var count: Int { pos.count }

    @inline(__always)
    private static func key(_ p: Int32, _ q: Int32) -> Int64 { Int64(p) << 32 | Int64(UInt32(bitPattern: q)) }

    mutating func node(_ p: Int32, _ q: Int32) -> Int32 {
        let k = Self.key(p, q)
        if let id = index[k] { return id }
        let id = Int32(pos.count)
        pos.append(p); parent.append(q)
        succStart.append(-1); succEnd.append(-1); succFlags.append(0); resultStamp.append(0)
        index.insert(k, id)
        return id
    }

    struct Mark { var nodes: Int; var succ: Int; var memo: Int }

    var mark: Mark { Mark(nodes: pos.count, succ: succ.count, memo: memoLog.count) }

    /// Forgets nodes and successor lists made after `mark` (scratch work of a mask computation
    /// or a failed accept). Successor lists made before it only name older nodes, so they stay.
    mutating func truncate(to mark: Mark) {
        if memoLog.count > mark.memo {
            for id in memoLog[mark.memo...] where Int(id) < mark.nodes { succStart[Int(id)] = -1 }
            memoLog.removeSubrange(mark.memo...)
            succ.removeSubrange(mark.succ...)
        }
        let count = mark.nodes
        guard count < pos.count else { return }
        for i in count..<pos.count { index.remove(Self.key(pos[i], parent[i])) }
        pos.removeSubrange(count...)
        parent.removeSubrange(count...)
        succStart.removeSubrange(count...)
        succEnd.removeSubrange(count...)
        succFlags.removeSubrange(count...)
        resultStamp.removeSubrange(count...)
    }

    /// Expands (position p on top of parent q) until every stack has a terminal on top, appending
    /// those stacks to `sets`. Rule references push their alternatives (a reference in tail
    /// position reuses the parent: no frame, so right recursion does not grow stacks); rule ends pop.
    private mutating func closure(_ g: CompiledGrammar, _ p0: Int32, _ q0: Int32, _ flags: inout Flags) {
        work.append((p0, q0))
        while let (p, q) = work.popLast() {
            guard visited.insert(Self.key(p, q)) else { continue }
            switch g.kinds[Int(p)] {
            case .terminal:
                sets.append(node(p, q))
            case .rule:
                let ret: Int32 = g.kinds[Int(p) + 1] == .end ? q : node(p + 1, q)
                let r = Int(g.ruleRefs[Int(p)])
                for k in Int(g.startOffsets[r])..<Int(g.startOffsets[r + 1]) { work.append((g.startList[k], ret)) }
            case .end:
                if q == Self.root {
                    flags.accepting = true
                } else if q == Self.bottom {
                    flags.escaped = true
                } else {
                    work.append((pos[Int(q)], parent[Int(q)]))
                }
            }
        }
    }

    /// Appends the closure of the grammar's start (every root alternative) to `sets`.
    mutating func start(_ g: CompiledGrammar) -> (Range<Int>, Flags) {
        visited.clear()
        var flags = Flags()
        let begin = sets.count
        for s in g.ruleStarts[Int(g.root)] { closure(g, s, Self.root, &flags) }
        return (begin..<sets.count, flags)
    }

    /// Appends the closure of an arbitrary (position, parent) pair to `sets`.
    mutating func expand(_ g: CompiledGrammar, position p: Int32, parent q: Int32) -> (Range<Int>, Flags) {
        visited.clear()
        var flags = Flags()
        let begin = sets.count
        closure(g, p, q, &flags)
        return (begin..<sets.count, flags)
    }

    /// Consumes `byte` from every stack in `sets[range]`, appending the surviving stacks to `sets`.
    mutating func advance(_ g: CompiledGrammar, _ range: Range<Int>, _ byte: UInt8) -> (Range<Int>, Flags) {
        resultRound &+= 1
        if resultRound == 0 {
            for i in resultStamp.indices { resultStamp[i] = 0 }
            resultRound = 1
        }
        var flags = Flags()
        let begin = sets.count
        for i in range {
            let n = Int(sets[i])
            if !g.terminals[Int(pos[n])].contains(byte) { continue }
            if succStart[n] < 0 { memoize(g, n) }
            let f = succFlags[n]
            if f & 1 != 0 { flags.accepting = true }
            if f & 2 != 0 { flags.escaped = true }
            for k in Int(succStart[n])..<Int(succEnd[n]) {
                let s = succ[k]
                if resultStamp[Int(s)] != resultRound {
                    resultStamp[Int(s)] = resultRound
                    sets.append(s)
                }
            }
        }
        return (begin..<sets.count, flags)
    }

    /// Computes the successors of terminal node `n` (the closure after its terminal).
    private mutating func memoize(_ g: CompiledGrammar, _ n: Int) {
        visited.clear()
        var flags = Flags()
        let mark = sets.count
        closure(g, pos[n] + 1, parent[n], &flags)
        let start = Int32(succ.count)
        succ.append(contentsOf: sets[mark...])
        sets.removeSubrange(mark...)
        succStart[n] = start
        succEnd[n] = Int32(succ.count)
        succFlags[n] = (flags.accepting ? 1 : 0) | (flags.escaped ? 2 : 0)
        memoLog.append(Int32(n))
    }

    /// The union of the next bytes the stacks in `sets[range]` accept.
    func nextBytes(_ g: CompiledGrammar, _ range: Range<Int>) -> ByteSet {
        var all = ByteSet()
        for i in range { all.formUnion(g.terminals[Int(pos[Int(sets[i])])]) }
        return all
    }
}
