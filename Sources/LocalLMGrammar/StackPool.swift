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
    private var index: [Int64: Int32] = [:]
    private var stamp: [UInt32] = []
    private var round: UInt32 = 0
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
        pos.append(p); parent.append(q); stamp.append(0)
        index[k] = id
        return id
    }

    /// Forgets nodes made after `count` (scratch work of a mask computation or a failed accept).
    mutating func truncate(to count: Int) {
        guard count < pos.count else { return }
        for i in count..<pos.count { index[Self.key(pos[i], parent[i])] = nil }
        pos.removeSubrange(count...)
        parent.removeSubrange(count...)
        stamp.removeSubrange(count...)
    }

    /// Starts a new deduplication round (one per consumed byte).
    private mutating func nextRound() {
        round &+= 1
        if round == 0 {
            for i in stamp.indices { stamp[i] = 0 }
            round = 1
        }
    }

    /// Expands (position p on top of parent q) until every stack has a terminal on top, appending
    /// those stacks to `sets`. Rule references push their alternatives (a reference in tail
    /// position reuses the parent: no frame, so right recursion does not grow stacks); rule ends pop.
    private mutating func closure(_ g: CompiledGrammar, _ p0: Int32, _ q0: Int32, _ flags: inout Flags) {
        work.append((p0, q0))
        while let (p, q) = work.popLast() {
            let id = node(p, q)
            if stamp[Int(id)] == round { continue }
            stamp[Int(id)] = round
            switch g.kinds[Int(p)] {
            case .terminal:
                sets.append(id)
            case .rule:
                let ret: Int32 = g.kinds[Int(p) + 1] == .end ? q : node(p + 1, q)
                for start in g.ruleStarts[Int(g.ruleRefs[Int(p)])] { work.append((start, ret)) }
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
        nextRound()
        var flags = Flags()
        let begin = sets.count
        for s in g.ruleStarts[Int(g.root)] { closure(g, s, Self.root, &flags) }
        return (begin..<sets.count, flags)
    }

    /// Appends the closure of an arbitrary (position, parent) pair to `sets`.
    mutating func expand(_ g: CompiledGrammar, position p: Int32, parent q: Int32) -> (Range<Int>, Flags) {
        nextRound()
        var flags = Flags()
        let begin = sets.count
        closure(g, p, q, &flags)
        return (begin..<sets.count, flags)
    }

    /// Consumes `byte` from every stack in `sets[range]`, appending the surviving stacks to `sets`.
    mutating func advance(_ g: CompiledGrammar, _ range: Range<Int>, _ byte: UInt8) -> (Range<Int>, Flags) {
        nextRound()
        var flags = Flags()
        let begin = sets.count
        for i in range {
            let n = sets[i]
            let p = pos[Int(n)]
            if g.terminals[Int(p)].contains(byte) {
                closure(g, p + 1, parent[Int(n)], &flags)
            }
        }
        return (begin..<sets.count, flags)
    }

    /// The union of the next bytes the stacks in `sets[range]` accept.
    func nextBytes(_ g: CompiledGrammar, _ range: Range<Int>) -> ByteSet {
        var all = ByteSet()
        for i in range { all.formUnion(g.terminals[Int(pos[Int(sets[i])])]) }
        return all
    }
}
