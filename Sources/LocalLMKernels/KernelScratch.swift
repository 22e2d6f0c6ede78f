/// Per-sequence scratch memory for the kernels: the quantized activation row of a matvec and the
/// dequantized weight panels of a matmul. Buffers grow to the largest size asked for and are then
/// reused, so steady-state decoding allocates nothing.
///
/// Not thread-safe: one sequence uses one scratch at a time (the kernels themselves split work across
/// the pool's threads inside a call, and give each thread its own slice).
public final class KernelScratch {
    /// Slot for quantized activations (matvec) or the activation rows of a quantized matmul.
    package static let activationSlot = 0
    /// Slot for dequantized weight panels (matmul), one region per thread.
    package static let panelSlot = 1
    /// Spare slot for callers inside the package (e.g. attention).
    package static let extraSlot = 2
    /// Slots for the second and third activation formats of a fused matvec.
    package static let secondActivationSlot = 3
    package static let thirdActivationSlot = 4
    /// Slot for the activations of a several-row ``Kernels/matvec(_:_:rowsOfX:_:pool:scratch:)``.
    package static let batchActivationSlot = 5

    private var buffers: [(pointer: UnsafeMutableRawPointer, bytes: Int)] = []

    public init() {}

    deinit {
        for buffer in buffers { buffer.pointer.deallocate() }
    }

    /// A 64-byte aligned buffer of at least `bytes` bytes in `slot`; the contents are undefined and the
    /// pointer is valid until the next call for the same slot with a larger size.
    package func buffer(_ slot: Int, bytes: Int) -> UnsafeMutableRawPointer {
        while buffers.count <= slot {
            buffers.append((UnsafeMutableRawPointer.allocate(byteCount: 64, alignment: 64), 64))
        }
        if buffers[slot].bytes < bytes {
            buffers[slot].pointer.deallocate()
            let size = max(bytes, 64)
            buffers[slot] = (UnsafeMutableRawPointer.allocate(byteCount: size, alignment: 64), size)
        }
        return buffers[slot].pointer
    }
}
