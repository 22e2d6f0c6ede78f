import LocalLMKernels

/// A weight matrix as the forward pass multiplies with it.
///
/// For Q4_1 and Q5_1 weights, batched products also need each block's min (`m`) as a matrix
/// `[rows × columns/32]`: ggml multiplies those with Q8_1 activations whose block sum `s` is stored as
/// F16, so the min's contribution is m·f16(d·Σq) rather than the m·f16(d)·Σq that a product with the
/// dequantized matrix gives. ``MatrixProduct`` adds the difference with a small second product (1/32
/// of the work), so batched prefill matches llama.cpp like the quantized decode path does. The mins
/// are read from the blocks when a batch needs them (``blockMins(into:)``), not kept: a float copy
/// would be a sixth of the model's bytes again, resident for the model's lifetime.
struct Linear: Sendable {
    let matrix: WeightMatrix

    init(_ matrix: WeightMatrix) {
        self.matrix = matrix
    }

    var rows: Int { matrix.rows }
    var columns: Int { matrix.columns }

    /// Whether batched products need the block-min correction (Q4_1 and Q5_1).
    var hasBlockMins: Bool { matrix.type == .q4_1 || matrix.type == .q5_1 }

    /// Writes every block's min, `[rows × columns/32]` floats, to `mins`.
    func blockMins(into mins: UnsafeMutablePointer<Float>) {
        let blocks = matrix.columns / 32, blockBytes = matrix.type.bytesPerBlock
        for r in 0..<matrix.rows {
            let row = matrix.row(r)
            // Both layouts start with d (F16) then m (F16).
            for b in 0..<blocks {
                mins[r * blocks + b] = halfToFloat(row.loadUnaligned(fromByteOffset: b * blockBytes + 2, as: UInt16.self))
            }
        }
    }
}
