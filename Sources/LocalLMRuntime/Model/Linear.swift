import LocalLMKernels

/// A weight matrix as the forward pass multiplies with it.
///
/// For Q4_1 and Q5_1 weights it also keeps each block's min (`m`) as Float, `[rows × columns/32]`:
/// ggml multiplies those with Q8_1 activations whose block sum `s` is stored as F16, so the min's
/// contribution is m·f16(d·Σq) rather than the m·f16(d)·Σq that a product with the dequantized matrix
/// gives. ``MatrixProduct`` adds the difference with a small second product (1/32 of the work), so
/// batched prefill matches llama.cpp like the quantized decode path does.
struct Linear: Sendable {
    let matrix: WeightMatrix
    let blockMins: [Float]?

    init(_ matrix: WeightMatrix) {
        self.matrix = matrix
        switch matrix.type {
        case .q4_1, .q5_1:
            let blocks = matrix.columns / 32
            var mins = [Float](repeating: 0, count: matrix.rows * blocks)
            for r in 0..<matrix.rows {
                let row = matrix.row(r)
                for b in 0..<blocks {
                    // Both layouts start with d (F16) then m (F16).
                    let bits = row.loadUnaligned(fromByteOffset: b * matrix.type.bytesPerBlock + 2, as: UInt16.self)
                    mins[r * blocks + b] = Float(Float16(bitPattern: bits))
                }
            }
            blockMins = mins
        default:
            blockMins = nil
        }
    }

    var rows: Int { matrix.rows }
    var columns: Int { matrix.columns }
}
