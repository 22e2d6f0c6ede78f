/// The logit-mask step of the sampler: which tokens may come next, and advancing on the chosen one.
///
/// `.required`: the grammar constrains the whole output from the first token; once it is complete
/// only end-of-generation is allowed. `.lazy(triggers:)`: output is free until a trigger string
/// appears (for example `<tool_call>`); the grammar then constrains the text right after the
/// trigger until it is complete, and output is free again (so several constrained spans can
/// mix with free text, as tool calling in `.allowed` mode needs).
///
/// One per sequence; the `GrammarTokenIndex` it reads is shared.
public struct GrammarConstraint: Sendable {
    public enum Activation: Sendable, Equatable {
        case required
        case lazy(triggers: [String])
        /// Like `.lazy`, but the grammar matches from the trigger's first byte (the trigger is the
        /// start of the grammar's language, as llama.cpp's lazy grammars are), and `atStart`
        /// triggers count only at the start of the output, after whitespace: a tool call written
        /// as bare JSON (`{"name"`) opens a turn, while the same text inside an answer is free.
        case lazyFromTrigger(anywhere: [String], atStart: [String])
    }

    public let index: GrammarTokenIndex
    public let activation: Activation
    private let triggers: [[UInt8]]
    private let startTriggers: [[UInt8]]
    /// The grammar starts at the trigger's first byte (`.lazyFromTrigger`), not after its last.
    private let includesTrigger: Bool
    /// The output so far is whitespace, then `startText`, which may still become a start trigger.
    private var startOpen: Bool
    /// The output since its first non-whitespace byte, while `startOpen`.
    private var startText: [UInt8] = []
    private var matcher: GrammarMatcher
    /// The grammar is constraining output now.
    public private(set) var isActive: Bool
    /// The tail of free text, long enough to find a trigger split across tokens.
    private var window: [UInt8] = []
    private var history: [Snapshot] = []

    private struct Snapshot: Sendable {
        var isActive: Bool
        var window: [UInt8]
        var startOpen: Bool
        var startText: [UInt8]
        /// The matcher before this token when the token switched the grammar on or off; otherwise
        /// the token (if constrained) is undone with `matcher.rollback(1)`.
        var matcher: GrammarMatcher?
        var constrained: Bool
    }

    public init(_ index: GrammarTokenIndex, activation: Activation = .required) {
        self.index = index
        self.activation = activation
        switch activation {
        case .required:
            (triggers, startTriggers, includesTrigger) = ([], [], false)
        case .lazy(let t):
            (triggers, startTriggers, includesTrigger) = (t.map { Array($0.utf8) }.filter { !$0.isEmpty }, [], false)
        case .lazyFromTrigger(let anywhere, let atStart):
            triggers = anywhere.map { Array($0.utf8) }.filter { !$0.isEmpty }
            startTriggers = atStart.map { Array($0.utf8) }.filter { !$0.isEmpty }
            includesTrigger = true
        }
        startOpen = !startTriggers.isEmpty
        matcher = GrammarMatcher(index)
        isActive = activation == .required
    }

    public var tokens: TokenTable { index.tokens }

    /// In `.required` mode: the grammar is complete (or ended by an end-of-generation token).
    public var isCompleted: Bool { activation == .required && matcher.isCompleted }

    /// The grammar's own matcher (meaningful while active).
    public var grammarMatcher: GrammarMatcher { matcher }

    public mutating func reset() {
        matcher.reset()
        isActive = activation == .required
        window.removeAll()
        history.removeAll()
        startOpen = !startTriggers.isEmpty
        startText.removeAll()
    }

    /// Sets the bits of allowed tokens (bit `t & 63` of word `t >> 6`); `mask` holds
    /// `tokens.maskWordCount` words. Free text allows every token.
    public mutating func fillNextTokenBitmask(into mask: inout [UInt64]) {
        if isActive {
            matcher.fillNextTokenBitmask(into: &mask)
            return
        }
        for i in mask.indices { mask[i] = ~0 }
        let n = tokens.count
        if n % 64 != 0, mask.count >= tokens.maskWordCount { mask[tokens.maskWordCount - 1] = (1 << UInt64(n % 64)) - 1 }
    }

    /// Advances on the sampled token. False (and no change) if the grammar forbids it, including
    /// a free-text token that completes a trigger followed by bytes the grammar refuses.
    @discardableResult
    public mutating func accept(token: Int) -> Bool {
        guard tokens.tokenBytes.indices.contains(token) else { return false }
        if isActive {
            let before = matcher
            guard matcher.accept(token: token) else { return false }
            if activation != .required && matcher.isCompleted {
                // The span is over: back to free text (a fresh matcher for the next trigger).
                history.append(Snapshot(isActive: true, window: window, startOpen: startOpen, startText: startText, matcher: before, constrained: true))
                matcher.reset()
                isActive = false
                window.removeAll()
            } else {
                history.append(Snapshot(isActive: true, window: window, startOpen: startOpen, startText: startText, matcher: nil, constrained: true))
            }
            return true
        }
        let bytes = tokens.special.contains(token) ? [] : tokens.tokenBytes[token]
        let text = window + bytes
        // The earliest trigger that ends inside this token: where it starts and ends in `text`.
        var best: (start: Int, end: Int)? = nil
        for t in triggers where text.count >= t.count {
            var s = 0
            while s + t.count <= text.count {
                if s + t.count > window.count, text[s..<(s + t.count)].elementsEqual(t) {
                    if best.map({ s + t.count < $0.end }) ?? true { best = (s, s + t.count) }
                    break
                }
                s += 1
            }
        }
        // A start trigger: the output so far is whitespace, then a trigger (it comes first).
        var nextStartOpen = startOpen
        var nextStartText = startText
        var fromStart: [UInt8]? = nil
        if startOpen {
            for byte in bytes where !(nextStartText.isEmpty && (byte == 0x20 || byte == 0x0A || byte == 0x09 || byte == 0x0D)) {
                nextStartText.append(byte)
            }
            if startTriggers.contains(where: { nextStartText.starts(with: $0) }) {
                fromStart = nextStartText
            } else if !nextStartText.isEmpty && !startTriggers.contains(where: { $0.starts(with: nextStartText) }) {
                nextStartOpen = false
                nextStartText.removeAll()
            }
        }
        guard fromStart != nil || best != nil else {
            history.append(Snapshot(isActive: false, window: window, startOpen: startOpen, startText: startText, matcher: nil, constrained: false))
            let keep = max(0, (triggers.map(\.count).max() ?? 1) - 1)
            window = Array(text.suffix(keep))
            startOpen = nextStartOpen
            startText = nextStartText
            return true
        }
        var fresh = matcher
        fresh.reset()
        let rest: ArraySlice<UInt8> =
            if let fromStart { fromStart[...] } else if let best { includesTrigger ? text[best.start...] : text[best.end...] } else { [] }
        if !rest.isEmpty {
            guard fresh.accept(bytes: rest) else { return false }
        }
        history.append(Snapshot(isActive: false, window: window, startOpen: startOpen, startText: startText, matcher: matcher, constrained: false))
        window.removeAll()
        startOpen = false
        startText.removeAll()
        if fresh.isCompleted {
            isActive = false
        } else {
            matcher = fresh
            isActive = true
        }
        return true
    }

    /// Undoes the last `count` accepted tokens.
    @discardableResult
    public mutating func rollback(_ count: Int) -> Bool {
        guard count >= 0, count <= history.count else { return false }
        for _ in 0..<count {
            let s = history.removeLast()
            if let m = s.matcher {
                matcher = m
            } else if s.constrained {
                matcher.rollback(1)
            }
            isActive = s.isActive
            window = s.window
            startOpen = s.startOpen
            startText = s.startText
        }
        return true
    }
}
