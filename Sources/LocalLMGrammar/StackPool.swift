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

    /// The node (position p on top of parent q) when it exists, without making it.
    func existing(_ p: Int32, _ q: Int32) -> Int32? { index[Self.key(p, q)] }

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

extension StackPool {
    /// Steps `forEachStack(ofRule:)` takes at most (a character class of a few dozen alternatives
    /// takes that many).
    static let maxOpenTextExpansion = 512

    /// Calls `body` with each stack a closure pushes for a reference to `rule` on parent `q`, up
    /// to their first terminals (not those popping past the rule's end), each node given by
    /// `node` (found or made). False when `node` or `body` returns nil / false, or after
    /// `maxOpenTextExpansion` steps.
    static func forEachStack(ofRule rule: Int32, on q: Int32, _ g: CompiledGrammar,
                             node: (Int32, Int32) -> Int32?, _ body: (Int32) -> Bool) -> Bool {
        guard g.startOffsets.indices.contains(Int(rule) + 1) else { return false }
        var work: [(Int32, Int32)] = []
        for k in Int(g.startOffsets[Int(rule)])..<Int(g.startOffsets[Int(rule) + 1]) { work.append((g.startList[k], q)) }
        var steps = 0
        while let (p, q) = work.popLast() {
            steps += 1
            if steps > maxOpenTextExpansion { return false }
            switch g.kinds[Int(p)] {
            case .terminal:
                guard let n = node(p, q), body(n) else { return false }
            case .rule:
                let ret: Int32
                if g.kinds[Int(p) + 1] == .end {
                    ret = q
                } else {
                    guard let r = node(p + 1, q) else { return false }
                    ret = r
                }
                let r = Int(g.ruleRefs[Int(p)])
                for k in Int(g.startOffsets[r])..<Int(g.startOffsets[r + 1]) { work.append((g.startList[k], ret)) }
            case .end:
                continue
            }
        }
        return true
    }

    /// The stacks of a reference to open text rule `rule` on parent `q` (see `forEachStack`),
    /// made where new, sorted; empty when the rule's expansion is too large.
    mutating func openTextStacks(of rule: Int32, on q: Int32, _ g: CompiledGrammar) -> [Int32] {
        var made: [Int32] = []
        // Moved into a local (no copy) so that the closure can make nodes in it.
        var pool = self
        self = StackPool()
        defer { self = pool }
        guard Self.forEachStack(ofRule: rule, on: q, g, node: { pool.node($0, $1) }, { made.append($0); return true })
        else { return [] }
        return made.sorted()
    }

    /// Candidates `forEachOpenText` checks at most in one set (each costs up to
    /// `maxOpenTextExpansion` steps; a state holds one per searched pattern it is inside).
    static let maxOpenTextCandidates = 64

    /// Calls `body` with each open text rule and parent whose stacks (see `forEachStack`) the
    /// sorted stack set `members` holds every one of (in the order of their first member met),
    /// and those stacks, until it returns false. Any text then leaves such a set alive after each
    /// byte: a character of it is taken by one of the rule's alternatives, which then continues in
    /// an open text rule on the same parent. Candidates come from members on one of an open text
    /// rule's positions (over the parent), or returning to one (a character class's alternatives).
    func forEachOpenText(in members: UnsafeBufferPointer<Int32>, _ g: CompiledGrammar,
                         _ body: (_ rule: Int32, _ parent: Int32, _ stacks: [Int32]) -> Bool) {
        let at = g.openTextRuleAt
        guard !at.isEmpty else { return }
        var tried: [(rule: Int32, parent: Int32)] = []
        var held: [Int32] = []
        for n in members {
            var rule = at[Int(pos[Int(n)])]
            var below = parent[Int(n)]
            if rule < 0 {
                guard below >= 0 else { continue }
                rule = at[Int(pos[Int(below)])]
                below = parent[Int(below)]
                guard rule >= 0 else { continue }
            }
            if tried.contains(where: { $0 == (rule, below) }) { continue }
            if tried.count == Self.maxOpenTextCandidates { return }
            tried.append((rule, below))
            held.removeAll(keepingCapacity: true)
            let holds = Self.forEachStack(ofRule: rule, on: below, g, node: { existing($0, $1) }) {
                held.append($0)
                return Self.sortedContains(members, $0)
            }
            if holds, !body(rule, below, held) { return }
        }
    }

    /// Whether the sorted stack set `members` holds an open text rule's stacks (see `forEachOpenText`).
    func holdsOpenText(_ members: UnsafeBufferPointer<Int32>, _ g: CompiledGrammar) -> Bool {
        var holds = false
        forEachOpenText(in: members, g) { _, _, _ in holds = true; return false }
        return holds
    }

    private static func sortedContains(_ members: UnsafeBufferPointer<Int32>, _ n: Int32) -> Bool {
        var lo = 0, hi = members.count
        while lo < hi {
            let mid = (lo + hi) / 2
            if members[mid] < n { lo = mid + 1 } else { hi = mid }
        }
        return lo < members.count && members[lo] == n
    }
}
