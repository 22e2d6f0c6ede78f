import LocalLMRuntime

extension GenerationOptions {
    /// Temperature when a request sets none. Apple does not document its default; 0.7 keeps small
    /// local models coherent while still varying.
    package static let defaultTemperature = 0.7
    /// Nucleus threshold when a request sets no sampling mode.
    package static let defaultProbabilityThreshold = 0.9
    /// Nucleus sampling looks at most at this many of the most likely tokens: the tail beyond them
    /// carries no measurable probability for these models, and narrowing by top-k first means
    /// top-p sorts 256 candidates rather than the whole vocabulary at every token.
    package static let nucleusCandidateLimit = 256

    /// The runtime's sampler settings for these options: `.greedy` (or temperature ≤ 0) selects the
    /// most likely token; `.random(top:)` is top-k alone; `.random(probabilityThreshold:)` and no
    /// mode are top-p (over the ``nucleusCandidateLimit`` best tokens). Min-p, which the runtime
    /// adds by default, is off: Apple's modes name one cut each. Without a seed each request draws
    /// a fresh one.
    package var samplingOptions: SamplingOptions {
        var sampling = SamplingOptions()
        sampling.temperature = Float(temperature ?? Self.defaultTemperature)
        sampling.minP = 0
        switch samplingMode?.kind {
        case .greedy:
            sampling.temperature = 0
        case .topK(let k):
            sampling.topK = max(1, k)
            sampling.topP = 1
        case .nucleus(let p):
            sampling.topK = Self.nucleusCandidateLimit
            sampling.topP = Float(min(max(p, 0), 1))
        case nil:
            sampling.topK = Self.nucleusCandidateLimit
            sampling.topP = Float(Self.defaultProbabilityThreshold)
        }
        if !(sampling.temperature > 0) { sampling.temperature = 0 }  // also NaN
        sampling.seed = samplingMode?.seed ?? UInt64.random(in: .min ... .max)
        return sampling
    }

    /// The sampler chain for these options, with `mask` (a grammar) first when given.
    package func makeSamplerChain(mask: (any SamplerStep)? = nil) -> SamplerChain {
        samplingOptions.makeChain(mask: mask)
    }
}
