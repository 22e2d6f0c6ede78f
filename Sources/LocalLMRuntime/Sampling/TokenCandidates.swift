/// The tokens a sampler chooses from: ids with their logits, possibly narrowed and re-weighted by
/// earlier steps, and the choice once a selecting step has made it.
public struct TokenCandidates: Sendable {
    public var ids: [Int]
    public var logits: [Float]
    /// True when `logits` is in descending order (steps that sort set it; filters keep it).
    public var isSorted: Bool
    /// The chosen token, set by a selecting step (greedy or random).
    public var selected: Int?

    /// Every token of a vocabulary with its logit.
    public init(logits: [Float]) {
        self.ids = Array(0..<logits.count)
        self.logits = logits
        self.isSorted = false
    }

    public init(ids: [Int], logits: [Float], isSorted: Bool = false) {
        self.ids = ids
        self.logits = logits
        self.isSorted = isSorted
    }

    public var count: Int { ids.count }

    /// Makes these the candidates of every token of `logits`, reusing the arrays' storage.
    public mutating func refill(from logits: [Float]) {
        let n = logits.count
        ids.removeAll(keepingCapacity: true)
        ids.append(contentsOf: 0..<n)
        self.logits.removeAll(keepingCapacity: true)
        self.logits.append(contentsOf: logits)
        isSorted = false
        selected = nil
    }

    /// Sorts by descending logit (ties by ascending id, so that results are deterministic).
    public mutating func sort() {
        guard !isSorted else { return }
        let order = ids.indices.sorted { a, b in
            logits[a] != logits[b] ? logits[a] > logits[b] : ids[a] < ids[b]
        }
        ids = order.map { ids[$0] }
        logits = order.map { logits[$0] }
        isSorted = true
    }

    /// Keeps the `k` highest logits, sorted (partial selection for large vocabularies).
    public mutating func keepTop(_ k: Int) {
        guard k > 0, k < count else { sort(); return }
        if !isSorted {
            let cut = Self.kthLargest(logits, k)
            var keptIds: [Int] = [], keptLogits: [Float] = []
            keptIds.reserveCapacity(k + 8)
            keptLogits.reserveCapacity(k + 8)
            for i in 0..<count where logits[i] >= cut {
                keptIds.append(ids[i]); keptLogits.append(logits[i])
            }
            ids = keptIds
            logits = keptLogits
            sort()
        }
        ids.removeSubrange(k...)
        logits.removeSubrange(k...)
    }

    /// The `k`-th largest of `values` (`1 ≤ k ≤ values.count`, NaNs ignored), from a bounded
    /// list of the best `k` seen so far: most values lose to its last entry at once, so a
    /// 49k-token vocabulary costs about one comparison per token instead of a full sort.
    static func kthLargest(_ values: [Float], _ k: Int) -> Float {
        var top: [Float] = []  // descending, at most k
        top.reserveCapacity(k + 1)
        for v in values {
            if top.count == k, let last = top.last, !(v > last) { continue }
            if v.isNaN { continue }
            var low = 0, high = top.count
            while low < high {
                let mid = (low + high) / 2
                if top[mid] >= v { low = mid + 1 } else { high = mid }
            }
            top.insert(v, at: low)
            if top.count > k { top.removeLast() }
        }
        return top.last ?? -.infinity
    }

    /// Softmax probabilities of the current logits (`[count]`), computed in Double for the sum.
    public func probabilities() -> [Float] {
        guard let maxLogit = logits.max() else { return [] }
        var sum: Double = 0
        var p = logits.map { l -> Float in
            let e = (l - maxLogit).isNaN ? 0 : expf(l - maxLogit)
            sum += Double(e)
            return e
        }
        let inverse = Float(1 / sum)
        for i in p.indices { p[i] *= inverse }
        return p
    }
}

import Foundation
