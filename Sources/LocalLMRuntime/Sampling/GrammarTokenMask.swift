import LocalLMGrammar

/// A grammar as the sampler chain's ``TokenMask`` (wrap it in ``LogitMaskStep``): the allowed set
/// is one bitmask over the vocabulary, computed on the first `allows` after each `accept`, so a
/// step costs one grammar mask however many candidates are asked about.
public struct GrammarTokenMask: TokenMask, Sendable {
    public private(set) var constraint: GrammarConstraint
    /// `[maskWordCount]`: bit `t & 63` of word `t >> 6` = token t allowed.
    private var bits: [UInt64]
    private var isFresh = false
    /// Tokens passed to `accept` that the grammar refused (the chain only offers allowed ones, so
    /// this stays 0 unless a caller feeds tokens past the mask).
    public private(set) var refusedCount = 0

    public init(_ constraint: GrammarConstraint) {
        self.constraint = constraint
        self.bits = [UInt64](repeating: 0, count: constraint.tokens.maskWordCount)
    }

    public init(_ index: GrammarTokenIndex, activation: GrammarConstraint.Activation = .required) {
        self.init(GrammarConstraint(index, activation: activation))
    }

    /// `.required` grammars: the output so far is a complete sentence of the grammar (or ended).
    public var isCompleted: Bool { constraint.isCompleted }

    public mutating func allows(_ token: Int) -> Bool {
        if !isFresh {
            constraint.fillNextTokenBitmask(into: &bits)
            isFresh = true
        }
        // Logit rows can be longer than the vocabulary (padding rows): those ids are never allowed.
        guard token >= 0, token >> 6 < bits.count else { return false }
        return bits[token >> 6] >> UInt64(token & 63) & 1 != 0
    }

    public mutating func accept(_ token: Int) {
        if !constraint.accept(token: token) { refusedCount += 1 }
        isFresh = false
    }

    public mutating func reset() {
        constraint.reset()
        isFresh = false
        refusedCount = 0
    }
}
