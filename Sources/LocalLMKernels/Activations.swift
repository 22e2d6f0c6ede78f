import Foundation

extension Kernels {
    /// into[i] = x[i] / (1 + e^−x[i]) (ggml `silu`). `into` may alias `x`.
    public static func silu(_ x: UnsafePointer<Float>, count: Int, into out: UnsafeMutablePointer<Float>) {
        for i in 0..<count { out[i] = x[i] / (1 + expf(-x[i])) }
    }

    /// into[i] = silu(gate[i]) · up[i] (ggml `swiglu`, the llama FFN). `into` may alias either input.
    public static func swiglu(
        gate: UnsafePointer<Float>, up: UnsafePointer<Float>, count: Int, into out: UnsafeMutablePointer<Float>
    ) {
        for i in 0..<count {
            let g = gate[i]
            out[i] = g / (1 + expf(-g)) * up[i]
        }
    }

    /// GELU with the tanh approximation, exactly as ggml's CPU backend computes it (`GGML_GELU_FP16`):
    /// x ≤ −10 → 0, x ≥ 10 → x, otherwise x is rounded to half and looked up in a table of
    /// half(gelu_tanh(half value)). `into` may alias `x`.
    public static func geluTanh(_ x: UnsafePointer<Float>, count: Int, into out: UnsafeMutablePointer<Float>) {
        GeluTable.table.withUnsafeBufferPointer { table in
            for i in 0..<count { out[i] = GeluTable.gelu(x[i], table.baseAddress!) }
        }
    }

    /// into[i] = geluTanh(gate[i]) · up[i] (ggml `geglu`, the Gemma FFN). `into` may alias either input.
    public static func geglu(
        gate: UnsafePointer<Float>, up: UnsafePointer<Float>, count: Int, into out: UnsafeMutablePointer<Float>
    ) {
        GeluTable.table.withUnsafeBufferPointer { table in
            for i in 0..<count { out[i] = GeluTable.gelu(gate[i], table.baseAddress!) * up[i] }
        }
    }

    /// ggml's `ggml_gelu_f32`: 0.5·x·(1 + tanh(√(2/π)·x·(1 + 0.044715·x²))), without the half table.
    public static func geluTanhExact(_ x: Float) -> Float {
        let sqrt2OverPi: Float = 0.797_884_560_802_865_355_879_892_119_868_76
        let coefA: Float = 0.044715
        return 0.5 * x * (1 + tanhf(sqrt2OverPi * x * (1 + coefA * x * x)))
    }
}

/// ggml's `ggml_table_gelu_f16`: gelu of every half value, rounded to half, kept here as floats.
enum GeluTable {
    static let table: [Float] = (0..<65536).map { bits in
        halfToFloat(floatToHalf(Kernels.geluTanhExact(halfToFloat(UInt16(bits)))))
    }

    @inline(__always)
    static func gelu(_ x: Float, _ table: UnsafePointer<Float>) -> Float {
        if x <= -10 { return 0 }
        if x >= 10 { return x }
        return table[Int(floatToHalf(x))]
    }
}
