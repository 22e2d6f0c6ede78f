import Foundation

extension Kernels {
    /// Rotary position embedding in place on `heads` vectors of `headDim` floats (`[heads × headDim]`,
    /// contiguous), rotating adjacent pairs (2i, 2i+1) — ggml `rope` mode 0 (llama).
    ///
    /// θ_i = position · base^(−2i/rotaryDims) / factor_i · scale, computed as ggml does: θ starts at the
    /// position and is multiplied by base^(−2/rotaryDims) once per pair, in float. Only the first
    /// `rotaryDims` (default headDim) elements of each head rotate.
    public static func ropeAdjacent(
        _ x: UnsafeMutablePointer<Float>, heads: Int, headDim: Int, position: Int,
        freqBase: Float, freqScale: Float = 1, rotaryDims: Int? = nil, frequencyFactors: UnsafePointer<Float>? = nil
    ) {
        rope(x, heads: heads, headDim: headDim, position: position, freqBase: freqBase, freqScale: freqScale,
             rotaryDims: rotaryDims ?? headDim, frequencyFactors: frequencyFactors, neox: false)
    }

    /// Like ``ropeAdjacent(_:heads:headDim:position:freqBase:freqScale:rotaryDims:frequencyFactors:)`` but
    /// pairs element i with i + rotaryDims/2 — ggml `rope` NeoX mode (Gemma, Qwen).
    public static func ropeNeoX(
        _ x: UnsafeMutablePointer<Float>, heads: Int, headDim: Int, position: Int,
        freqBase: Float, freqScale: Float = 1, rotaryDims: Int? = nil, frequencyFactors: UnsafePointer<Float>? = nil
    ) {
        rope(x, heads: heads, headDim: headDim, position: position, freqBase: freqBase, freqScale: freqScale,
             rotaryDims: rotaryDims ?? headDim, frequencyFactors: frequencyFactors, neox: true)
    }

    private static func rope(
        _ x: UnsafeMutablePointer<Float>, heads: Int, headDim: Int, position: Int, freqBase: Float,
        freqScale: Float, rotaryDims: Int, frequencyFactors: UnsafePointer<Float>?, neox: Bool
    ) {
        let dims = min(rotaryDims, headDim) & ~1
        let pairs = dims / 2
        guard pairs > 0 else { return }
        withUnsafeTemporaryAllocation(of: Float.self, capacity: 2 * pairs) { cache in
            let cosines = cache.baseAddress!, sines = cache.baseAddress! + pairs
            let thetaScale = powf(freqBase, -2 / Float(dims))
            var theta = Float(position)
            for i in 0..<pairs {
                let factor = frequencyFactors?[i] ?? 1
                let angle = freqScale * (theta / factor)
                cosines[i] = cosf(angle)
                sines[i] = sinf(angle)
                theta *= thetaScale
            }
            for h in 0..<heads {
                let v = x + h * headDim
                for i in 0..<pairs {
                    let (a, b) = neox ? (i, i + pairs) : (2 * i, 2 * i + 1)
                    let x0 = v[a], x1 = v[b]
                    v[a] = x0 * cosines[i] - x1 * sines[i]
                    v[b] = x0 * sines[i] + x1 * cosines[i]
                }
            }
        }
    }
}
