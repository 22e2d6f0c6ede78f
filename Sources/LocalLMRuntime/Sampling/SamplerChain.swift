/// Steps applied in order; itself a step. `sample(_:)` runs the chain on a row of logits and returns
/// the selected token (the best remaining one if no step selected), then lets every step `accept` it.
public struct SamplerChain: SamplerStep {
    public var steps: [any SamplerStep]
    /// The candidate list of the last `choose`, whose storage the next one reuses.
    private var workspace = TokenCandidates(ids: [], logits: [])

    public init(_ steps: [any SamplerStep]) { self.steps = steps }

    public mutating func apply(_ candidates: inout TokenCandidates) {
        for i in steps.indices {
            steps[i].apply(&candidates)
            if candidates.count == 0 { return }
        }
    }

    public mutating func accept(_ token: Int) {
        for i in steps.indices { steps[i].accept(token) }
    }

    public mutating func reset() {
        for i in steps.indices { steps[i].reset() }
    }

    /// The token chosen from `logits` (`[vocabularySize]`), or nil when every token was masked out.
    /// The caller accepts it with ``accept(_:)`` once it is used (``sample(_:)`` does not).
    public mutating func choose(_ logits: [Float]) -> Int? {
        // A chain that only picks the best token needs no candidate list: scan the logits.
        if steps.allSatisfy({ $0 is GreedyStep }) { return GreedyStep.best(in: logits) }
        // The candidate arrays are kept between calls and refilled in place: a vocabulary-sized list
        // per token would otherwise be two fresh megabyte-scale allocations.
        var candidates = workspace
        workspace = TokenCandidates(ids: [], logits: [])
        defer { workspace = candidates }
        candidates.refill(from: logits)
        apply(&candidates)
        if let selected = candidates.selected { return selected }
        guard candidates.count > 0 else { return nil }
        var greedy = GreedyStep()
        greedy.apply(&candidates)
        return candidates.selected
    }

    /// Chooses a token and accepts it.
    public mutating func sample(_ logits: [Float]) -> Int? {
        guard let token = choose(logits) else { return nil }
        accept(token)
        return token
    }
}

/// The usual sampling settings, turned into a chain in llama.cpp's order
/// (mask → penalties → top-k → top-p → min-p → temperature → draw).
public struct SamplingOptions: Sendable, Equatable {
    /// 0 means greedy.
    public var temperature: Float = 0.8
    public var topK: Int = 40
    public var topP: Float = 0.95
    public var minP: Float = 0.05
    public var repetitionPenalty: Float = 1
    public var frequencyPenalty: Float = 0
    public var presencePenalty: Float = 0
    public var penaltyWindow: Int = 64
    public var seed: UInt64 = 0

    public init() {}

    public static var greedy: SamplingOptions {
        var o = SamplingOptions()
        o.temperature = 0
        return o
    }

    /// The chain, with `mask` (e.g. a grammar) first when given.
    public func makeChain(mask: (any SamplerStep)? = nil) -> SamplerChain {
        var steps: [any SamplerStep] = []
        if let mask { steps.append(mask) }
        if repetitionPenalty != 1 || frequencyPenalty != 0 || presencePenalty != 0 {
            steps.append(PenaltiesStep(window: penaltyWindow, repetition: repetitionPenalty,
                                       frequency: frequencyPenalty, presence: presencePenalty))
        }
        if temperature <= 0 {
            steps.append(GreedyStep())
            return SamplerChain(steps)
        }
        steps.append(TopKStep(topK))
        steps.append(TopPStep(topP))
        steps.append(MinPStep(minP))
        steps.append(TemperatureStep(temperature))
        steps.append(RandomStep(seed: seed))
        return SamplerChain(steps)
    }
}
