extension Kernels {
    /// Σ a[i]·b[i] over F32 rows. Eight independent lanes (a float reduction does not vectorize by
    /// itself, because reassociating it changes the result).
    public static func dot(_ a: UnsafePointer<Float>, _ b: UnsafePointer<Float>, count: Int) -> Float {
        #if LOCALLM_NATIVE && arch(x86_64)
        return VectorAVX2.dot(a, b, count: count)
        #else
        var acc = SIMD8<Float>()
        var i = 0
        let ra = UnsafeRawPointer(a), rb = UnsafeRawPointer(b)
        while i + 8 <= count {
            acc += ra.loadUnaligned(fromByteOffset: 4 * i, as: SIMD8<Float>.self) * rb.loadUnaligned(fromByteOffset: 4 * i, as: SIMD8<Float>.self)
            i += 8
        }
        var sum = acc.sum()
        while i < count { sum += a[i] * b[i]; i += 1 }
        return sum
        #endif
    }

    /// Σ a[i]·b[i] with both rows F16 (bit patterns), accumulated in float — as ggml's F16 K·Q.
    public static func dotF16(_ a: UnsafePointer<UInt16>, _ b: UnsafePointer<UInt16>, count: Int) -> Float {
        #if LOCALLM_NATIVE && arch(x86_64)
        return VectorAVX2.dotF16(a, b, count: count)
        #else
        return HalfTable.values.withUnsafeBufferPointer { table in
            let t = table.baseAddress!
            var s0: Float = 0, s1: Float = 0, s2: Float = 0, s3: Float = 0
            var i = 0
            while i + 4 <= count {
                s0 += t[Int(a[i])] * t[Int(b[i])]
                s1 += t[Int(a[i + 1])] * t[Int(b[i + 1])]
                s2 += t[Int(a[i + 2])] * t[Int(b[i + 2])]
                s3 += t[Int(a[i + 3])] * t[Int(b[i + 3])]
                i += 4
            }
            while i < count { s0 += t[Int(a[i])] * t[Int(b[i])]; i += 1 }
            return (s0 + s1) + (s2 + s3)
        }
        #endif
    }

    /// Σ a[i]·b[i] with `a` an F16 row and `b` F32.
    public static func dotF16F32(_ a: UnsafePointer<UInt16>, _ b: UnsafePointer<Float>, count: Int) -> Float {
        #if LOCALLM_NATIVE && arch(x86_64)
        return VectorAVX2.dotF16F32(a, b, count: count)
        #else
        return HalfTable.values.withUnsafeBufferPointer { table in
            let t = table.baseAddress!
            var s0: Float = 0, s1: Float = 0, s2: Float = 0, s3: Float = 0
            var i = 0
            while i + 4 <= count {
                s0 += t[Int(a[i])] * b[i]
                s1 += t[Int(a[i + 1])] * b[i + 1]
                s2 += t[Int(a[i + 2])] * b[i + 2]
                s3 += t[Int(a[i + 3])] * b[i + 3]
                i += 4
            }
            while i < count { s0 += t[Int(a[i])] * b[i]; i += 1 }
            return (s0 + s1) + (s2 + s3)
        }
        #endif
    }

    /// y[i] += α·x[i] with `x` an F16 row (e.g. a V cache row).
    public static func axpyF16(_ alpha: Float, _ x: UnsafePointer<UInt16>, _ y: UnsafeMutablePointer<Float>, count: Int) {
        #if LOCALLM_NATIVE
        for i in 0..<count { y[i] += alpha * halfToFloat(x[i]) }
        #else
        HalfTable.values.withUnsafeBufferPointer { t in
            for i in 0..<count { y[i] += alpha * t[Int(x[i])] }
        }
        #endif
    }

    /// y[i] *= α.
    public static func scale(_ y: UnsafeMutablePointer<Float>, by alpha: Float, count: Int) {
        for i in 0..<count { y[i] *= alpha }
    }

    /// F32 → F16 bit patterns (round to nearest even).
    public static func convertToF16(_ x: UnsafePointer<Float>, count: Int, into out: UnsafeMutablePointer<UInt16>) {
        GGMLRows.toHalf(x, count: count, into: out)
    }

    /// F16 bit patterns → F32.
    public static func convertFromF16(_ x: UnsafePointer<UInt16>, count: Int, into out: UnsafeMutablePointer<Float>) {
        GGMLRows.fromHalf(x, count: count, into: out)
    }

    /// One F32 value → F16 bits, and back (for callers that handle single values).
    public static func halfBits(_ value: Float) -> UInt16 { floatToHalf(value) }
    public static func float(halfBits bits: UInt16) -> Float { halfToFloat(bits) }
}

/// Without F16C (portable builds) half→float goes through a 65536-entry table, as ggml does
/// (`ggml_table_f32_f16`): one load per element instead of a bit construction with branches.
enum HalfTable {
    static let values: [Float] = (0...UInt16.max).map { halfToFloat($0) }
}
