/// Which tokens are allowed next, e.g. by a grammar. The grammar module implements this; the sampler
/// only asks and tells.
public protocol TokenMask {
    /// Whether `token` may come next.
    mutating func allows(_ token: Int) -> Bool
    /// Advances past the token that was chosen.
    mutating func accept(_ token: Int)
    mutating func reset()
}

/// Removes the candidates a ``TokenMask`` forbids. Put it first in a chain so that later steps
/// (top-k, top-p, …) only see allowed tokens.
public struct LogitMaskStep<Mask: TokenMask>: SamplerStep {
    public var mask: Mask
    public init(_ mask: Mask) { self.mask = mask }

    public mutating func apply(_ candidates: inout TokenCandidates) {
        var keptIds: [Int] = [], keptLogits: [Float] = []
        for (i, id) in candidates.ids.enumerated() where mask.allows(id) {
            keptIds.append(id)
            keptLogits.append(candidates.logits[i])
        }
        candidates.ids = keptIds
        candidates.logits = keptLogits
    }

    public mutating func accept(_ token: Int) { mask.accept(token) }
    public mutating func reset() { mask.reset() }
}
