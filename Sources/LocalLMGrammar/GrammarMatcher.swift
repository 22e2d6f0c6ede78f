/// The per-sequence state of a grammar: which stacks are alive after the bytes accepted so far.
/// Cheap to create; the compiled grammar (and token index) it reads are shared and immutable.
///
/// Works on bytes, so tokens may end inside a UTF-8 character or span several terminals.
public struct GrammarMatcher: Sendable {
    public let grammar: CompiledGrammar
    /// Present when the matcher was made for a vocabulary; needed for token masks and `accept(token:)`.
    public let index: GrammarTokenIndex?

    var pool = StackPool()
    /// Live stacks (node ids in `pool`), each with a terminal on top.
    var stacks: [Int32] = []
    /// The grammar can end here.
    var accepting = false
    /// An end-of-generation token was accepted: nothing more is allowed.
    var terminated = false
    private var history: [(stacks: [Int32], accepting: Bool, terminated: Bool)] = []

    /// A byte-level matcher (no token masks).
    public init(_ grammar: CompiledGrammar) {
        self.grammar = grammar
        self.index = nil
        reset()
    }

    /// A token-level matcher over `index.tokens`.
    public init(_ index: GrammarTokenIndex) {
        self.grammar = index.grammar
        self.index = index
        reset()
    }

    /// Back to the start of the grammar.
    public mutating func reset() {
        pool = StackPool()
        let (range, flags) = pool.start(grammar)
        stacks = Array(pool.sets[range])
        pool.sets.removeAll(keepingCapacity: true)
        accepting = flags.accepting
        terminated = false
        history.removeAll()
    }

    /// The grammar may end here (an end-of-generation token is allowed).
    public var canTerminate: Bool { accepting && !terminated }

    /// Nothing more can be accepted: the grammar has ended, or an end-of-generation token was taken.
    public var isCompleted: Bool { terminated || (accepting && stacks.isEmpty) }

    /// Tokens (or `accept(bytes:)` calls) that `rollback` can undo.
    public var acceptedCount: Int { history.count }

    /// Bytes that may come next.
    public var nextBytes: ByteSet {
        var all = ByteSet()
        for n in stacks { all.formUnion(grammar.terminals[Int(pool.pos[Int(n)])]) }
        return all
    }

    /// Consumes `bytes` if the grammar allows them all; otherwise returns false and changes nothing.
    @discardableResult
    public mutating func accept(bytes: some Collection<UInt8>) -> Bool {
        guard !terminated else { return bytes.isEmpty }
        let mark = pool.mark
        guard let (newStacks, newAccepting) = run(from: stacks, bytes) else {
            pool.truncate(to: mark)
            return false
        }
        history.append((stacks, accepting, terminated))
        stacks = newStacks
        accepting = newAccepting
        return true
    }

    /// Consumes one token of the vocabulary; false (and no change) if the grammar forbids it.
    /// End-of-generation tokens are accepted only when the grammar can end; other special tokens never.
    @discardableResult
    public mutating func accept(token: Int) -> Bool {
        guard let tokens = index?.tokens, tokens.tokenBytes.indices.contains(token), !terminated else { return false }
        if tokens.endOfGeneration.contains(token) {
            guard accepting else { return false }
            history.append((stacks, accepting, terminated))
            terminated = true
            return true
        }
        if tokens.special.contains(token) { return false }
        let bytes = tokens.tokenBytes[token]
        if bytes.isEmpty { return false }
        return accept(bytes: bytes)
    }

    /// Undoes the last `count` accepted tokens (or byte runs). Returns false if there are fewer.
    @discardableResult
    public mutating func rollback(_ count: Int) -> Bool {
        guard count >= 0, count <= history.count else { return false }
        for _ in 0..<count {
            let h = history.removeLast()
            stacks = h.stacks
            accepting = h.accepting
            terminated = h.terminated
        }
        return true
    }

    /// Runs `bytes` from the stack set `start`; nil if some byte has no live stack.
    mutating func run(from start: [Int32], _ bytes: some Collection<UInt8>) -> ([Int32], Bool)? {
        pool.sets.removeAll(keepingCapacity: true)
        pool.sets.append(contentsOf: start)
        var range = 0..<start.count
        var acc = accepting
        for b in bytes {
            if range.isEmpty { return nil }
            let (r, flags) = pool.advance(grammar, range, b)
            range = r
            acc = flags.accepting
        }
        if range.isEmpty && !acc && !bytes.isEmpty { return nil }
        if bytes.isEmpty { return (start, accepting) }
        let result = Array(pool.sets[range])
        pool.sets.removeAll(keepingCapacity: true)
        return (result, acc)
    }
}

extension GrammarMatcher {
    /// The state as positions: each stack's frames from the top, -1 after each stack, and whether
    /// the grammar can end. Equal for equal states of any two matchers of one grammar.
    package var stateFingerprint: [Int32] {
        var out: [Int32] = [accepting ? 1 : 0]
        for n in stacks {
            var q = n
            while q >= 0 { out.append(pool.pos[Int(q)]); q = pool.parent[Int(q)] }
            out.append(-1)
        }
        return out
    }

    /// The live stacks, one line each, top frame first: each frame's rule name and position in it.
    /// For debugging and benchmark reports.
    public var stackDescription: String {
        stacks.map { n in
            var frames: [String] = []
            var q = n
            while q >= 0 && frames.count < 6 {
                frames.append(grammar.describe(position: pool.pos[Int(q)]))
                q = pool.parent[Int(q)]
            }
            return frames.joined(separator: " < ")
        }.joined(separator: "\n")
    }
}

extension CompiledGrammar {
    /// "rule#alternative.offset" for a flat position.
    func describe(position p: Int32) -> String {
        for (r, starts) in ruleStarts.enumerated() {
            for (a, s) in starts.enumerated().reversed() where s <= p {
                let nextRuleStart = r + 1 < ruleStarts.count ? (ruleStarts[r + 1].first ?? .max) : .max
                if p < nextRuleStart { return "\(ruleNames[r])#\(a).\(p - s)" }
                break
            }
        }
        return "?\(p)"
    }
}
