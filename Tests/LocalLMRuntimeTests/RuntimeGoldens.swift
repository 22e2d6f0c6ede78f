import Foundation
import LocalLMRuntime
import LocalLMTestSupport

/// Agreement between our logits and llama.cpp's over many positions.
struct LogitAgreement: CustomStringConvertible {
    var positions = 0
    var argmaxMismatches: [String] = []
    /// Where the argmaxes differ: how far below llama.cpp's best logit llama.cpp puts our argmax
    /// (infinity when our argmax is not even in its top 16).
    var largestReferenceGap: Double = 0
    /// Largest |ours − llama.cpp| over each position's top-16 logits.
    var maxAbsDifference: Double = 0
    /// Where the largest difference is.
    var maxAbsLabel = ""
    /// KL(llama.cpp ‖ ours) of the softmax restricted to llama.cpp's top 16 tokens (which hold almost
    /// all of the mass), summed per position; mean and max over positions.
    var klSum: Double = 0
    var klMax: Double = 0

    mutating func add(row: UnsafeBufferPointer<Float>, golden: RuntimeGoldens.Position, label: String) {
        positions += 1
        var best = 0
        for i in 1..<row.count where row[i] > row[best] { best = i }
        if best != golden.argmax {
            argmaxMismatches.append("\(label): argmax \(best) (\(row[best])) vs llama.cpp \(golden.argmax) (\(row[golden.argmax]))")
            let referenceBest = golden.top[0][1]
            let gap = golden.top.first { Int($0[0]) == best }.map { referenceBest - $0[1] } ?? .infinity
            largestReferenceGap = max(largestReferenceGap, gap)
        }
        let m = Double(row.max() ?? 0)
        var s = 0.0
        for x in row { s += exp(Double(x) - m) }
        let lse = m + log(s)
        var kl = 0.0
        for pair in golden.top {
            let id = Int(pair[0]), reference = pair[1]
            let ours = Double(row[id])
            if abs(ours - reference) > maxAbsDifference {
                maxAbsDifference = abs(ours - reference)
                maxAbsLabel = "\(label) token \(id): \(ours) vs \(reference)"
            }
            let logP = reference - golden.logsumexp, logQ = ours - lse
            kl += exp(logP) * (logP - logQ)
        }
        klSum += kl
        klMax = max(klMax, kl)
    }

    var description: String {
        "\(positions) positions, \(argmaxMismatches.count) argmax mismatches (largest llama.cpp gap \(largestReferenceGap)), "
            + "max |Δlogit| \(maxAbsDifference) (\(maxAbsLabel)), "
            + "KL mean \(klSum / Double(max(positions, 1))) max \(klMax)"
    }
}
