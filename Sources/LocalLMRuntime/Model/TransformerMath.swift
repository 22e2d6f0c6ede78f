import Foundation
import LocalLMKernels

/// The element-wise pieces of the forward pass, computed as ggml's CPU backend computes them
/// (RMSNorm sum in double, RoPE angles by repeated multiplication in float, GELU through an F16 table).
enum TransformerMath {
    /// y = (x · 1/sqrt(mean(x²) + eps)) · weight over `count` elements; the sum of squares is
    /// accumulated in Double as ggml_compute_forward_rms_norm does. `y` may alias `x`.
    @inline(__always)
    static func rmsNorm(_ x: UnsafePointer<Float>, weight: UnsafePointer<Float>, count: Int, epsilon: Float,
                        into y: UnsafeMutablePointer<Float>) {
        var sum: Double = 0
        for i in 0..<count { sum += Double(x[i] * x[i]) }
        let mean = Float(sum / Double(count))
        let scale = 1 / (mean + epsilon).squareRoot()
        for i in 0..<count { y[i] = (x[i] * scale) * weight[i] }
    }

    /// Rotates one head in place. `cosSin` holds (cos, sin) per pair, `dimensions` values in all.
    /// As ggml's rope (compiled with FP contraction): x0·cos − x1·sin is fma(x0, cos, −(x1·sin)) and
    /// x0·sin + x1·cos is fma(x0, sin, x1·cos).
    /// On AVX2 + FMA the C kernel computes it (the same operations; a build without a target CPU would
    /// emulate each fused multiply-add in double precision).
    @inline(__always)
    static func rope(_ head: UnsafeMutablePointer<Float>, cosSin: UnsafePointer<Float>, dimensions: Int,
                     pairing: TransformerConfiguration.RoPEPairing) {
        if GGMLRows.ropeAVX2(head, cosSin: cosSin, dimensions: dimensions, neox: pairing == .neox) { return }
        ropePortable(head, cosSin: cosSin, dimensions: dimensions, pairing: pairing)
    }

    /// ``rope(_:cosSin:dimensions:pairing:)`` in Swift: the reference of its C kernel, and the path on
    /// CPUs without AVX2.
    @inline(__always)
    static func ropePortable(_ head: UnsafeMutablePointer<Float>, cosSin: UnsafePointer<Float>, dimensions: Int,
                             pairing: TransformerConfiguration.RoPEPairing) {
        switch pairing {
        case .adjacent:
            var i = 0
            while i < dimensions {
                let c = cosSin[i], s = cosSin[i + 1]
                let x0 = head[i], x1 = head[i + 1]
                head[i] = GGMLOrder.fma(x0, c, -(x1 * s))
                head[i + 1] = GGMLOrder.fma(x0, s, x1 * c)
                i += 2
            }
        case .neox:
            let half = dimensions / 2
            for i in 0..<half {
                let c = cosSin[2 * i], s = cosSin[2 * i + 1]
                let x0 = head[i], x1 = head[i + half]
                head[i] = GGMLOrder.fma(x0, c, -(x1 * s))
                head[i + half] = GGMLOrder.fma(x0, s, x1 * c)
            }
        }
    }

    /// (cos, sin) for each rotated pair at `position`, as ggml_rope_cache_init: theta starts at the
    /// position and is multiplied by base^(-2/d) (in float) from one pair to the next; pair i's theta is
    /// divided by `factors[i]` when there are frequency factors, and cos and sin are multiplied by
    /// `attentionFactor` (rope_yarn with ext_factor 0).
    static func ropeTable(position: Int, dimensions: Int, base: Float, frequencyScale: Float,
                          factors: [Float]? = nil, attentionFactor: Float = 1,
                          into table: UnsafeMutablePointer<Float>) {
        let thetaScale = powf(base, -2 / Float(dimensions))
        var theta = Float(position)
        var i = 0
        while i < dimensions {
            let factor = factors.map { i / 2 < $0.count ? $0[i / 2] : 1 } ?? 1
            let angle = frequencyScale * (theta / factor)
            table[i] = cosf(angle) * attentionFactor
            table[i + 1] = sinf(angle) * attentionFactor
            theta *= thetaScale
            i += 2
        }
    }

    /// ggml's GELU (tanh approximation) of every F16 value, itself rounded to F16: ggml's CPU backend
    /// evaluates GELU through this table (GGML_GELU_FP16).
    static let geluTable: [Float] = (0..<65536).map { bits in
        let x = Float(Float16(bitPattern: UInt16(bits)))
        let coefA: Float = 0.044715
        let sqrt2OverPi: Float = 0.79788456080286535587989211986876
        // ggml's C is compiled with FP contraction: 1 + a·x·x is fma(a·x, x, 1) (checked against its table).
        let inner = Float(1).addingProduct(coefA * x, x)
        let y = 0.5 * x * (1 + tanhf(sqrt2OverPi * x * inner))
        return Float(Float16(y))
    }

    /// y = gelu(gate) · up, as ggml_vec_geglu_f32.
    @inline(__always)
    static func geglu(gate: UnsafePointer<Float>, up: UnsafePointer<Float>, count: Int,
                      table: UnsafePointer<Float>, into y: UnsafeMutablePointer<Float>) {
        GGMLRows.geglu(gate: gate, up: up, table: table, count: count, into: y)
    }

    /// y = silu(gate) · up for `rows` rows of `width`, as ggml_vec_swiglu_f32 computes each row: whole
    /// groups of 8 through ggml_v_silu (``GGMLOrder/silu(_:)``), the rest with libm's expf.
    @inline(__always)
    static func swiglu(gate: UnsafePointer<Float>, up: UnsafePointer<Float>, rows: Int, width: Int,
                       into y: UnsafeMutablePointer<Float>) {
        let vectorized = width / 8 * 8
        for r in 0..<rows {
            let g = gate + r * width, u = up + r * width, out = y + r * width
            GGMLRows.swiglu(gate: g, up: u, out: out, count: vectorized)
            for i in vectorized..<width {
                let x = g[i]
                out[i] = x / (1 + expf(-x)) * u[i]
            }
        }
    }
}
