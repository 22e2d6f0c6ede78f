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
        var acc = SIMD8<Float>()
        var i = 0
        while i + 8 <= count {
            var x = SIMD8<Float>(), y = SIMD8<Float>()
            for l in 0..<8 { x[l] = halfToFloat(a[i + l]); y[l] = halfToFloat(b[i + l]) }
            acc += x * y
            i += 8
        }
        var sum = acc.sum()
        while i < count { sum += halfToFloat(a[i]) * halfToFloat(b[i]); i += 1 }
        return sum
        #endif
    }

    /// Σ a[i]·b[i] with `a` an F16 row and `b` F32.
    public static func dotF16F32(_ a: UnsafePointer<UInt16>, _ b: UnsafePointer<Float>, count: Int) -> Float {
        #if LOCALLM_NATIVE && arch(x86_64)
        return VectorAVX2.dotF16F32(a, b, count: count)
        #else
        var acc = SIMD8<Float>()
        var i = 0
        let rb = UnsafeRawPointer(b)
        while i + 8 <= count {
            var x = SIMD8<Float>()
            for l in 0..<8 { x[l] = halfToFloat(a[i + l]) }
            acc += x * rb.loadUnaligned(fromByteOffset: 4 * i, as: SIMD8<Float>.self)
            i += 8
        }
        var sum = acc.sum()
        while i < count { sum += halfToFloat(a[i]) * b[i]; i += 1 }
        return sum
        #endif
    }

    /// y[i] += α·x[i] over F32 rows.
    public static func axpy(_ alpha: Float, _ x: UnsafePointer<Float>, _ y: UnsafeMutablePointer<Float>, count: Int) {
        for i in 0..<count { y[i] += alpha * x[i] }
    }

    /// y[i] += α·x[i] with `x` an F16 row (e.g. a V cache row).
    public static func axpyF16(_ alpha: Float, _ x: UnsafePointer<UInt16>, _ y: UnsafeMutablePointer<Float>, count: Int) {
        for i in 0..<count { y[i] += alpha * halfToFloat(x[i]) }
    }

    /// y[i] *= α.
    public static func scale(_ y: UnsafeMutablePointer<Float>, by alpha: Float, count: Int) {
        for i in 0..<count { y[i] *= alpha }
    }

    /// F32 → F16 bit patterns (round to nearest even).
    public static func convertToF16(_ x: UnsafePointer<Float>, count: Int, into out: UnsafeMutablePointer<UInt16>) {
        for i in 0..<count { out[i] = floatToHalf(x[i]) }
    }

    /// F16 bit patterns → F32.
    public static func convertFromF16(_ x: UnsafePointer<UInt16>, count: Int, into out: UnsafeMutablePointer<Float>) {
        for i in 0..<count { out[i] = halfToFloat(x[i]) }
    }

    /// One F32 value → F16 bits, and back (for callers that handle single values).
    public static func halfBits(_ value: Float) -> UInt16 { floatToHalf(value) }
    public static func float(halfBits bits: UInt16) -> Float { halfToFloat(bits) }
}
