// IEEE half and bfloat16 conversions as ggml does them: half→float is exact, float→half rounds to
// nearest even (F16C `vcvtps2ph` / ggml's software fallback), float→bf16 rounds to nearest even and
// quiets NaNs (`ggml_compute_fp32_to_bf16`).

@inline(__always)
package func halfToFloat(_ bits: UInt16) -> Float {
    #if LOCALLM_NATIVE
    // With a target CPU (F16C) this is one `vcvtph2ps`.
    return Float(Float16(bitPattern: bits))
    #else
    // Without one, Float16 conversion is a library call; this exact bit construction is branch-light
    // and inlines (normal, subnormal, inf and NaN all handled).
    let shiftedExponent: UInt32 = 0x7c00 << 13
    var o = UInt32(bits & 0x7fff) << 13
    let exponent = o & shiftedExponent
    o &+= (127 - 15) << 23
    if exponent == shiftedExponent {
        o &+= (128 - 16) << 23
    } else if exponent == 0 {
        o &+= 1 << 23
        o = (Float(bitPattern: o) - Float(bitPattern: 113 << 23)).bitPattern
    }
    return Float(bitPattern: o | (UInt32(bits & 0x8000) << 16))
    #endif
}

/// F32 → F16 bits, rounded to nearest even (as F16C's `vcvtps2ph`). In a build without a target CPU
/// the Float16 conversion is a library call per value; this builds the bits from ``roundedToHalf(_:)``.
@inline(__always)
package func floatToHalf(_ value: Float) -> UInt16 {
    #if LOCALLM_NATIVE
    return Float16(value).bitPattern
    #else
    let a = roundedToHalf(value).bitPattern & 0x7fff_ffff
    let sign = UInt16(truncatingIfNeeded: value.bitPattern >> 16) & 0x8000
    if a > 0x7f80_0000 { return Float16(value).bitPattern }  // NaN: the library's payload rule
    if a == 0x7f80_0000 { return sign | 0x7c00 }
    // Normal: rebias the exponent (127 → 15); the 13 low mantissa bits are already zero.
    if a >= 0x3880_0000 { return sign | UInt16(truncatingIfNeeded: (a &- 0x3800_0000) >> 13) }
    // Subnormal or zero: a whole number of 2^-24.
    return sign | UInt16(Float(bitPattern: a) * 16_777_216)
    #endif
}

/// `x` rounded to an integer, ties to even, for |x| ≤ 2^22: adding 1.5·2^23 leaves no fraction bits,
/// so the FPU's own rounding does it, and subtracting is exact. In a build without a target CPU,
/// `rounded(.toNearestOrEven)` is a library call (SSE4.1's `roundss` is not in baseline x86-64).
@inline(__always)
package func roundedHalfEven(_ x: Float) -> Float {
    #if LOCALLM_NATIVE
    return x.rounded(.toNearestOrEven)
    #else
    let magic: Float = 0x1.8p23
    return (x + magic) - magic
    #endif
}

@inline(__always)
package func bf16ToFloat(_ bits: UInt16) -> Float {
    Float(bitPattern: UInt32(bits) << 16)
}

@inline(__always)
package func floatToBF16(_ value: Float) -> UInt16 {
    let u = value.bitPattern
    if u & 0x7fff_ffff > 0x7f80_0000 {  // NaN: keep the sign and top bits, force quiet
        return UInt16(truncatingIfNeeded: (u >> 16) | 64)
    }
    return UInt16(truncatingIfNeeded: (u &+ (0x7fff &+ ((u >> 16) & 1))) >> 16)
}

@inline(__always)
package func loadHalf(_ p: UnsafeRawPointer, _ offset: Int = 0) -> Float {
    halfToFloat(p.loadUnaligned(fromByteOffset: offset, as: UInt16.self))
}

/// `x` rounded to the nearest F16 value (ties to even), returned as Float: what a round trip through
/// F16 gives, without the library call that Float16 conversion is in a portable build.
@inline(__always)
package func roundedToHalf(_ x: Float) -> Float {
    #if LOCALLM_NATIVE
    return Float(Float16(x))
    #else
    let bits = x.bitPattern
    let sign = bits & 0x8000_0000
    let a = bits & 0x7fff_ffff
    if a >= 0x7f80_0000 { return x }  // inf, NaN
    if a >= 0x477f_f000 { return Float(bitPattern: sign | 0x7f80_0000) }  // ≥ 65520 overflows to inf
    if a >= 0x3880_0000 {  // normal F16 range: keep 10 mantissa bits, ties to even
        return Float(bitPattern: sign | ((a &+ 0x0fff &+ ((a >> 13) & 1)) & 0xffff_e000))
    }
    // Subnormal F16 range: a multiple of 2^-24. Adding 0.5 leaves exactly 24 bits of fraction below
    // the leading 1, so the FPU rounds to that multiple (ties to even).
    let f = Float(bitPattern: a)
    return Float(bitPattern: sign | ((f + 0.5) - 0.5).bitPattern)
    #endif
}
