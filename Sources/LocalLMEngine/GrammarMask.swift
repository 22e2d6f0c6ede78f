import LocalLMGrammar
import LocalLMRuntime

/// A request's grammar as the sampler chain's ``TokenMask``, the one grammar step of every
/// generation: the chain's `LogitMaskStep` asks it which tokens may come next, and the generation
/// loop, which holds the same instance, switches grammars (a tool call starts) and checks a chosen
/// token before committing to it. It handles both activations: `.required` masks from the first
/// token, `.lazy` lets free text through until a trigger and refuses a token that completes the
/// trigger with bytes the grammar does not take.
///
/// A class because both the chain and the loop must see one state; it lives inside one request.
package final class GrammarMask: TokenMask {
    /// The grammar constraining output, or nil while output is free.
    package private(set) var constraint: GrammarConstraint?
    /// Bit `t & 63` of word `t >> 6` is set when token `t` is allowed; valid while `isMaskCurrent`.
    private var bits: [UInt64] = []
    private var isMaskCurrent = false
    /// Tokens the grammar refused after a chain chose them, excluded until the next token.
    private var refused: Set<Int> = []

    package init(_ constraint: GrammarConstraint? = nil) {
        self.constraint = constraint
    }

    /// Constrains output from now on (nil: free output).
    package func constrain(with constraint: GrammarConstraint?) {
        self.constraint = constraint
        isMaskCurrent = false
        refused.removeAll()
    }

    /// The grammar is active: output is being constrained now.
    package var isActive: Bool { constraint?.isActive ?? false }
    /// A `.required` grammar is complete.
    package var isCompleted: Bool { constraint?.isCompleted ?? false }

    package func allows(_ token: Int) -> Bool {
        guard constraint != nil else { return true }
        if !isMaskCurrent {
            let words = constraint?.tokens.maskWordCount ?? 0
            if bits.count != words { bits = [UInt64](repeating: 0, count: words) }
            constraint?.fillNextTokenBitmask(into: &bits)
            isMaskCurrent = true
        }
        // Logits beyond the grammar's token table (padding rows in some files) are never allowed.
        guard token >= 0, token >> 6 < bits.count else { return false }
        return bits[token >> 6] & (1 << UInt64(token & 63)) != 0 && !refused.contains(token)
    }

    /// Whether the grammar takes `token` next. A free-text token can complete a lazy trigger and
    /// carry on with bytes the grammar refuses; the mask allowed it, so the engine asks before
    /// committing and, when refused, calls ``refuse(_:)`` and lets the chain choose again.
    package func admits(_ token: Int) -> Bool {
        guard var copy = constraint else { return true }
        return copy.accept(token: token)
    }

    package func refuse(_ token: Int) {
        refused.insert(token)
    }

    package func accept(_ token: Int) {
        refused.removeAll()
        isMaskCurrent = false
        _ = constraint?.accept(token: token)
    }

    package func reset() {
        refused.removeAll()
        isMaskCurrent = false
        constraint?.reset()
    }

    /// How many chosen tokens the grammar may refuse in a row before giving up.
    package static let maximumRefusals = 64

    /// The token `chain` chooses from `logits` that the grammar takes (end-of-generation is left
    /// to the caller). A token the grammar refuses after the mask let it through (a lazy trigger
    /// followed by bytes the grammar does not take) is excluded, and the chain chooses again.
    /// Nil when nothing is left, or after `maximumRefusals` refusals.
    package func choose(with chain: inout SamplerChain, logits: [Float], isEndOfGeneration: (Int) -> Bool) -> Int? {
        for _ in 0...Self.maximumRefusals {
            guard let token = chain.choose(logits) else { return nil }
            if isEndOfGeneration(token) || admits(token) { return token }
            refuse(token)
        }
        return nil
    }
}
