import LocalLMGGUF

/// An activation row quantized for the fast dot products, unpacked from ggml's blocks into separate
/// arrays so the inner loops read plain contiguous int8s and float scales:
/// - `qs[n]`: the int8 values (Q8_0/Q8_1/Q8_K blocks' qs, in order);
/// - `scales[n / blockSize]`: each block's d as a float (exactly the half or float ggml stores);
/// - `sums`: Q8_1: s per block (float of the stored half); Q8_K: the bsums of each 16 values.
///
/// The values are those of ggml's blocks, so the fast dots compute exactly what the reference dots do.
package struct PreparedActivation {
    package let type: GGMLType
    package let count: Int
    package let qs: UnsafeMutablePointer<Int8>
    package let scales: UnsafeMutablePointer<Float>
    package let sums: UnsafeMutablePointer<Float>
    package let bsums: UnsafeMutablePointer<Int32>
    /// The ggml blocks themselves (for the reference path).
    package let blocks: UnsafeMutableRawPointer

    /// Bytes of scratch needed for `count` values in `type`.
    package static func scratchBytes(type: GGMLType, count: Int) -> Int {
        let blockBytes = ((type.rowBytes(elements: count) ?? 0) + 63) & ~63
        return blockBytes + 64 + ((count + 63) & ~63) + 4 * (count / 32 + 16) * 2 + 4 * (count / 16 + 16)
    }

    /// Quantizes `x[count]` as llama.cpp's CPU backend does (see `Kernels.quantizeActivation`) into
    /// `memory` (at least `scratchBytes` bytes, 64-byte aligned) and unpacks it.
    package init(type: GGMLType, _ x: UnsafePointer<Float>, count: Int, memory: UnsafeMutableRawPointer) {
        self.type = type
        self.count = count
        let blockBytes = ((type.rowBytes(elements: count) ?? 0) + 63) & ~63
        blocks = memory
        qs = (memory + blockBytes).bindMemory(to: Int8.self, capacity: count)
        let floats = (memory + blockBytes + ((count + 63) & ~63))
        let perBlock = count / 32 + 16
        scales = floats.bindMemory(to: Float.self, capacity: perBlock)
        sums = (floats + 4 * perBlock).bindMemory(to: Float.self, capacity: perBlock)
        bsums = (floats + 8 * perBlock).bindMemory(to: Int32.self, capacity: count / 16 + 16)
        Kernels.quantizeActivation(type: type, x, count: count, into: memory)
        switch type {
        case .q8_0:
            for b in 0..<(count / 32) {
                let block = memory + 34 * b
                scales[b] = loadHalf(block)
                (qs + 32 * b).update(from: (block + 2).assumingMemoryBound(to: Int8.self), count: 32)
            }
        case .q8_1:
            for b in 0..<(count / 32) {
                let block = memory + 36 * b
                scales[b] = loadHalf(block)
                sums[b] = loadHalf(block, 2)
                (qs + 32 * b).update(from: (block + 4).assumingMemoryBound(to: Int8.self), count: 32)
            }
        case .q8_K:
            for b in 0..<(count / 256) {
                let block = memory + 292 * b
                scales[b] = block.loadUnaligned(as: Float.self)
                (qs + 256 * b).update(from: (block + 4).assumingMemoryBound(to: Int8.self), count: 256)
                for g in 0..<16 {
                    bsums[16 * b + g] = Int32(block.loadUnaligned(fromByteOffset: BlockLayout.q8_KBsums + 2 * g, as: Int16.self))
                }
            }
        default:
            break
        }
    }
}
