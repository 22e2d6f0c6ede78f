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
    }

    public let index: GrammarTokenIndex
    public let activation: Activation
    private let triggers: [[UInt8]]
    private var matcher: GrammarMatcher
    /// The grammar is constraining output now.
    public private(set) var isActive: Bool
    /// The tail of free text, long enough to find a trigger split across tokens.
    private var window: [UInt8] = []
    private var history: [Snapshot] = []

    private struct Snapshot: Sendable {
        var isActive: Bool
        var window: [UInt8]
        /// The matcher before this token when the token switched the grammar on or off; otherwise
        /// the token (if constrained) is undone with `matcher.rollback(1)`.
        var matcher: GrammarMatcher?
        var constrained: Bool
    }

    public init(_ index: GrammarTokenIndex, activation: Activation = .required) {
        self.index = index
        self.activation = activation
        if case .lazy(let t) = activation { triggers = t.map { Array($0.utf8) }.filter { !$0.isEmpty } } else { triggers = [] }
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
                history.append(Snapshot(isActive: true, window: window, matcher: before, constrained: true))
                matcher.reset()
                isActive = false
                window.removeAll()
            } else {
                history.append(Snapshot(isActive: true, window: window, matcher: nil, constrained: true))
            }
            return true
        }
        let bytes = tokens.special.contains(token) ? [] : tokens.tokenBytes[token]
        let text = window + bytes
        // The earliest trigger that ends inside this token.
        var best: Int? = nil
        for t in triggers where text.count >= t.count {
            var s = 0
            while s + t.count <= text.count {
                if s + t.count > window.count, text[s..<(s + t.count)].elementsEqual(t) {
                    if best.map({ s + t.count < $0 }) ?? true { best = s + t.count }
                    break
                }
                s += 1
            }
        }
        guard let end = best else {
            history.append(Snapshot(isActive: false, window: window, matcher: nil, constrained: false))
            let keep = max(0, (triggers.map(\.count).max() ?? 1) - 1)
            window = Array(text.suffix(keep))
            return true
        }
        var fresh = matcher
        fresh.reset()
        let rest = text[end...]
        if !rest.isEmpty {
            guard fresh.accept(bytes: rest) else { return false }
        }
        history.append(Snapshot(isActive: false, window: window, matcher: matcher, constrained: false))
        window.removeAll()
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
        }
        return true
    }
}
