@testable import LocalLMRuntime
import Testing

/// `keepTop` against the plain reference: sort everything (descending logit, ascending id), take k.
@Suite struct TokenCandidatesTests {
    @Test(arguments: [1, 2, 40, 256, 4000])
    func keepTopEqualsSortingEverything(k: Int) {
        var generator = SplitMix64(seed: UInt64(k))
        // Coarse values so that ties are common, as in quantized logits.
        let logits = (0..<49_152).map { _ in Float(Int.random(in: -600...600, using: &generator)) / 64 }
        var candidates = TokenCandidates(logits: logits)
        candidates.keepTop(k)
        let reference = logits.indices.sorted { logits[$0] != logits[$1] ? logits[$0] > logits[$1] : $0 < $1 }.prefix(k)
        #expect(candidates.ids == Array(reference))
        #expect(candidates.logits == reference.map { logits[$0] })
        #expect(candidates.isSorted)
        #expect(TokenCandidates.kthLargest(logits, k) == logits.sorted(by: >)[k - 1])
    }

    @Test func kthLargestIgnoresNaN() {
        #expect(TokenCandidates.kthLargest([1, .nan, 3, 2], 2) == 2)
        #expect(TokenCandidates.kthLargest([.nan, 5], 1) == 5)
    }
}
