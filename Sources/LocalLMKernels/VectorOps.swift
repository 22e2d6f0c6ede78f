extension Kernels {
    /// Σ a[i]·b[i] over F32 rows.
    public static func dot(_ a: UnsafePointer<Float>, _ b: UnsafePointer<Float>, count: Int) -> Float {
        var s0: Float = 0, s1: Float = 0, s2: Float = 0, s3: Float = 0
        var i = 0
        while i + 4 <= count {
            s0 += a[i] * b[i]; s1 += a[i + 1] * b[i + 1]; s2 += a[i + 2] * b[i + 2]; s3 += a[i + 3] * b[i + 3]
            i += 4
        }
        while i < count { s0 += a[i] * b[i]; i += 1 }
        return (s0 + s1) + (s2 + s3)
    }

    /// Σ a[i]·b[i] with `a` an F16 row (bit patterns) and `b` F16 too — as ggml's F16 K·Q.
    public static func dotF16(_ a: UnsafePointer<UInt16>, _ b: UnsafePointer<UInt16>, count: Int) -> Float {
        var s0: Float = 0, s1: Float = 0
        var i = 0
        while i + 2 <= count {
            s0 += halfToFloat(a[i]) * halfToFloat(b[i]); s1 += halfToFloat(a[i + 1]) * halfToFloat(b[i + 1])
            i += 2
        }
        if i < count { s0 += halfToFloat(a[i]) * halfToFloat(b[i]) }
        return s0 + s1
    }

    /// Σ a[i]·b[i] with `a` an F16 row and `b` F32.
    public static func dotF16F32(_ a: UnsafePointer<UInt16>, _ b: UnsafePointer<Float>, count: Int) -> Float {
        var s0: Float = 0, s1: Float = 0
        var i = 0
        while i + 2 <= count {
            s0 += halfToFloat(a[i]) * b[i]; s1 += halfToFloat(a[i + 1]) * b[i + 1]
            i += 2
        }
        if i < count { s0 += halfToFloat(a[i]) * b[i] }
        return s0 + s1
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
