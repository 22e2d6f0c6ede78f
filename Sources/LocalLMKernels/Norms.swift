import Foundation

extension Kernels {
    /// into[i] = x[i] / sqrt(mean(x²) + ε) · weight[i] (weight optional), as ggml's `rms_norm` followed
    /// by `mul`: the squares are float products summed in double, the scale is a float.
    /// `into` may alias `x`.
    public static func rmsNorm(
        _ x: UnsafePointer<Float>, weight: UnsafePointer<Float>?, count: Int, epsilon: Float,
        into out: UnsafeMutablePointer<Float>
    ) {
        guard count > 0 else { return }
        var sum: Double = 0
        for i in 0..<count { sum += Double(x[i] * x[i]) }
        let mean = Float(sum / Double(count))
        let scale = 1 / (mean + epsilon).squareRoot()
        if let weight {
            for i in 0..<count { out[i] = (x[i] * scale) * weight[i] }
        } else {
            for i in 0..<count { out[i] = x[i] * scale }
        }
    }

    /// In-place softmax as ggml computes it: subtract the max, exponentiate, sum in double, scale by
    /// the float of 1/sum. −∞ entries (masked) become 0.
    public static func softmax(_ x: UnsafeMutablePointer<Float>, count: Int) {
        guard count > 0 else { return }
        var maxValue = -Float.infinity
        for i in 0..<count { maxValue = max(maxValue, x[i]) }
        if maxValue == -.infinity {  // everything masked: ggml would produce NaN; give zeros
            x.update(repeating: 0, count: count)
            return
        }
        var sum: Double = 0
        for i in 0..<count {
            let e = expf(x[i] - maxValue)
            x[i] = e
            sum += Double(e)
        }
        let inverse = Float(1 / sum)
        for i in 0..<count { x[i] *= inverse }
    }
}
